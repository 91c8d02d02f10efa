"""The collection controller: every resource served from a descriptor
parses its list query in one place, so bad values are refused alike, and
the OpenAPI document lists what the descriptors declare. The other lists
(nodes, conductors, drivers and a node's sub-lists) parse theirs there
too, from a descriptor of their own."""

from __future__ import annotations

import pytest

from ironic.api import openapi
from ironic.api.controllers.v1 import collection, descriptor, index, versions
from ironic.api.controllers.v1 import port as port_api
from ironic.tests import fixtures as ifx

HUGE = "9" * 5000

#: Every list served by collection.controller, top-level and nested.
LISTS = ["/v1/chassis", "/v1/ports", "/v1/portgroups",
         "/v1/volume/connectors", "/v1/volume/targets",
         "/v1/deploy_templates", "/v1/runbooks", "/v1/allocations",
         "/v1/inspection_rules", "/v1/nodes/{node}/ports",
         "/v1/nodes/{node}/portgroups", "/v1/nodes/{node}/volume/targets",
         "/v1/nodes/{node}/volume/connectors", "/v1/ports/detail",
         "/v1/portgroups/detail", "/v1/chassis/detail",
         "/v1/portgroups/{portgroup}/ports",
         "/v1/nodes/{node}/portgroups/{portgroup}/ports"]
#: The other lists: nodes (whose parsing is shared) and the lists parsed
#: from a descriptor of their own; some take no paging at all.
OTHER_LISTS = ["/v1/nodes", "/v1/nodes/detail", "/v1/chassis/{chassis}/nodes",
               "/v1/conductors", "/v1/drivers", "/v1/nodes/{node}/bios",
               "/v1/nodes/{node}/history", "/v1/nodes/{node}/firmware",
               "/v1/nodes/{node}/children"]
#: What is not a list of items but answers a GET without an identifier:
#: it takes no query parameter at all.
NO_QUERY = ["/v1/shards", "/v1/nodes/{node}/vifs", "/v1/nodes/{node}/traits",
            "/v1/nodes/{node}/states", "/v1/nodes/{node}/volume", "/v1/volume",
            "/v1/nodes/{node}/vmedia", "/v1/drivers/fake-hardware/properties",
            "/v1/nodes/{node}/inventory"]

BAD_QUERIES = [
    "sort_dir=sideways", "sort_dir=DESC", f"limit={HUGE}", "limit=0", "limit=x", "limit=-1",
    "marker=not-a-uuid", "sort_key=no_such_field", "fields=no_such_field",
    "no_such_parameter=1", "sort_dir=asc&sort_dir=zz",
    "fields=uuid&detail=true", "detail=maybe", f"detail={HUGE}",
    "limit=1&limit=2"]
#: Answers Ironic 39 gives that are not 400: a conductor's marker is its
#: hostname, and deploy templates, runbooks and inspection rules look any
#: marker up, so a string that is no UUID is a marker naming none.
NOT_400 = {(route, "marker=not-a-uuid"): 404 for route in (
    "/v1/conductors", "/v1/deploy_templates", "/v1/runbooks",
    "/v1/inspection_rules")}


@pytest.fixture
def api(api_newest):
    resp = api_newest.post("/v1/nodes", {"driver": "fake-hardware"})
    assert resp.status_int == 201, resp.body
    api_newest.node = resp.json["uuid"]
    resp = api_newest.post("/v1/portgroups", {"node_uuid": api_newest.node})
    assert resp.status_int == 201, resp.body
    api_newest.portgroup = resp.json["uuid"]
    resp = api_newest.post("/v1/chassis", {})
    assert resp.status_int == 201, resp.body
    api_newest.chassis = resp.json["uuid"]
    return api_newest


def _path(api, route: str) -> str:
    return route.format(node=api.node, portgroup=api.portgroup,
                        chassis=api.chassis)


@pytest.mark.parametrize("route", LISTS + OTHER_LISTS + NO_QUERY)
@pytest.mark.parametrize("query", BAD_QUERIES)
def test_every_list_refuses_a_bad_query(api, route, query):
    path = _path(api, route)
    resp = api.get(f"{path}?{query}")
    expected = NOT_400.get((route, query), 400)
    assert resp.status_int == expected, (path, query, resp.body)
    assert ifx.error_message(resp)


@pytest.mark.parametrize("route", LISTS + OTHER_LISTS)
def test_repeated_fields_are_one_list(api, route):
    """``fields`` may be repeated: its values join into one list, as the
    comma-separated form (Ironic 39 joins them too)."""
    path = _path(api, route)
    joined = api.get(f"{path}?fields=uuid,uuid")
    repeated = api.get(f"{path}?fields=uuid&fields=uuid")
    assert repeated.status_int == joined.status_int < 500, repeated.body
    assert repeated.json == joined.json


@pytest.mark.parametrize("route", [
    r for r in LISTS
    # Ironic 39 lists the ports of a node or of a port group, not both.
    if r != "/v1/nodes/{node}/portgroups/{portgroup}/ports"])
def test_every_list_pages_with_a_next_link(api, route):
    path = _path(api, route)
    resp = api.get(f"{path}?limit=1&sort_dir=desc")
    assert resp.status_int == 200, resp.body
    (key,) = [k for k in resp.json if k != "next"]
    assert isinstance(resp.json[key], list)


def test_every_list_taking_a_query_is_parsed_from_a_descriptor():
    """A list that takes list parameters declares them in a Spec, which
    list_query.parse_list reads (the node lists too, from the node Spec);
    only a node's allocation, one item, reads its ``fields`` itself."""
    own = set()
    for route in openapi.routes(index.V1Controller()):
        if route.http_method != "get" or route.path.endswith("}") or \
                not route.query:
            continue
        spec = getattr(route.controller, "spec", None)
        if not isinstance(spec, descriptor.Spec):
            own.add(route.controller.__name__)
    assert own == {"NodeAllocationController"}


def test_every_served_collection_comes_from_a_descriptor():
    served = {r.controller for r in openapi.routes(index.V1Controller())
              if issubclass(r.controller, collection.CollectionController)}
    names = {c.spec.collection for c in served}
    assert names == {"nodes", "chassis", "ports", "portgroups",
                     "volume/connectors",
                     "volume/targets", "deploy_templates", "runbooks",
                     "allocations", "inspection_rules"}


def test_openapi_lists_the_descriptor_filters():
    doc = openapi.document(index.V1Controller(), versions.NEWEST_KNOWN)
    params = {p.get("name") for p in
              doc["paths"]["/v1/ports"]["get"]["parameters"]}
    assert set(port_api.SPEC.filters) <= params
    nested = {p.get("name") for p in doc["paths"][
        "/v1/nodes/{node_ident}/volume/connectors"]["get"]["parameters"]}
    # A nested view takes its node from the URL, not a filter.
    assert "node" not in nested
    old = {p.get("name") for p in
           openapi.document(index.V1Controller(), 30)["paths"][
               "/v1/ports"]["get"]["parameters"]}
    assert "shard" not in old


@pytest.mark.parametrize("route,field", [
    ("/v1/nodes", "uuid"), ("/v1/chassis", "uuid"),
    ("/v1/portgroups", "uuid"), ("/v1/conductors", "hostname"),
    ("/v1/drivers", "name"), ("/v1/nodes/{node}/portgroups", "uuid")])
def test_items_are_linked_whatever_fields_names(api, route, field):
    """As Ironic 39: ``fields`` never drops ``links``; empty, it shows
    only them."""
    path = _path(api, route)
    for query, shown in (("fields=", {"links"}),
                         (f"fields={field}", {field, "links"})):
        resp = api.get(f"{path}?{query}")
        assert resp.status_int == 200, resp.body
        (key,) = [k for k in resp.json if k != "next"]
        assert resp.json[key], "the fixture gives every list an item"
        assert all(set(item) == shown for item in resp.json[key]), \
            resp.json


MAC = "52:54:00:00:00:01"


@pytest.mark.parametrize("route,status", [
    ("/v1/ports?node={node}&portgroup={portgroup}", 403),
    ("/v1/ports?node_uuid={node}&portgroup={portgroup}", 403),
    ("/v1/ports?node={node}&shard=x", 403),
    ("/v1/ports?portgroup={portgroup}&shard=x", 403),
    ("/v1/nodes/{node}/ports?portgroup={portgroup}", 403),
    ("/v1/portgroups/{portgroup}/ports?node={node}", 403),
    ("/v1/nodes/{node}/portgroups/{portgroup}/ports", 403),
    ("/v1/nodes/{node}/portgroups/{portgroup}/ports/detail", 403),
    ("/v1/ports?conductor_groups=x&node={node}", 400),
    (f"/v1/ports?conductor_groups=x&address={MAC}", 400),
    ("/v1/ports?conductor_groups=x&portgroup={portgroup}", 400),
    ("/v1/nodes/{node}/ports?conductor_groups=x", 400),
    ("/v1/portgroups?node={node}&shard=x", 400),
    ("/v1/portgroups?conductor_groups=x&node={node}", 400),
    (f"/v1/portgroups?address={MAC}&node={{node}}", 400),
    (f"/v1/nodes/{{node}}/portgroups?address={MAC}", 400),
    ("/v1/ports?conductor_groups=x&shard=y", 200),
    ("/v1/ports?node_uuid={node}&node={node}", 200),
])
def test_filters_taken_one_at_a_time(api, route, status):
    """The filter combinations Ironic 39 refuses (answers seen beside it):
    ports of one node, port group or shard at a time, conductor groups
    alone; port groups of one node, address, shard or conductor groups."""
    resp = api.get(_path(api, route))
    assert resp.status_int == status, resp.body
    # Each filter on its own is checked first.
    if status != 200:
        bad = api.get(_path(api, route) + "&limit=x" if "?" in route
                      else _path(api, route) + "?limit=x")
        assert bad.status_int == 400, bad.body


UNKNOWN = "2d2d37c5-ae95-4f4f-9f1e-21f0bd8e0e9a"
#: A GET of an item that is not there, with a bad query: status codes
#: Ironic 39 answers, (UUID, name) for each query. An unknown parameter is
#: always 400; an unknown field is 400 where the reference reads ``fields``
#: before it looks the item up, 404 where it looks first (ports, runbooks,
#: inspection rules, nodes). Items known by UUID only refuse a name.
ITEM_ANSWERS = {
    "allocations": {"bogus=1": (400, 400), "fields=nosuch": (400, 400),
                    "fields=uuid": (404, 404)},
    "ports": {"bogus=1": (400, 400), "fields=nosuch": (404, 404),
              "fields=uuid": (404, 404)},
    "chassis": {"bogus=1": (400, 400), "fields=nosuch": (400, 400),
                "fields=uuid": (404, 400)},
    "portgroups": {"bogus=1": (400, 400), "fields=nosuch": (400, 400),
                   "fields=uuid": (404, 404)},
    "inspection_rules": {"bogus=1": (400, 400), "fields=nosuch": (404, 400),
                         "fields=uuid": (404, 400)},
    "deploy_templates": {"bogus=1": (400, 400), "fields=nosuch": (400, 400),
                         "fields=uuid": (404, 404)},
    "runbooks": {"bogus=1": (400, 400), "fields=nosuch": (404, 404),
                 "fields=uuid": (404, 404)},
    "volume/connectors": {"bogus=1": (400, 400),
                          "fields=nosuch": (400, 400),
                          "fields=uuid": (404, 400)},
    "volume/targets": {"bogus=1": (400, 400), "fields=nosuch": (400, 400),
                       "fields=uuid": (404, 400)},
    "nodes": {"bogus=1": (400, 400), "fields=nosuch": (404, 404),
              "fields=uuid": (404, 404)},
}


@pytest.mark.parametrize("resource,query,answers", [
    (resource, query, answers) for resource, table in ITEM_ANSWERS.items()
    for query, answers in table.items()])
def test_a_missing_item_with_a_bad_query(api_newest, resource, query,
                                         answers):
    for ident, status in zip((UNKNOWN, "missing"), answers, strict=True):
        resp = api_newest.get(f"/v1/{resource}/{ident}?{query}")
        assert resp.status_int == status, (ident, resp.body)
        assert ifx.error_message(resp)


def _item(api, resource: str) -> str:
    if resource == "nodes":
        return api.node
    body = {"ports": {"node_uuid": api.node, "address": "52:54:00:aa:bb:cc"},
            "runbooks": {"name": "CUSTOM_X", "steps": [{
                "interface": "bios", "step": "apply_configuration",
                "args": {}, "order": 1}]}}[resource]
    resp = api.post(f"/v1/{resource}", body)
    assert resp.status_int == 201, resp.body
    return resp.json["uuid"]


@pytest.mark.parametrize("resource", ["ports", "runbooks", "nodes"])
def test_an_item_found_first_still_refuses_an_unknown_field(api, resource):
    ident = _item(api, resource)
    resp = api.get(f"/v1/{resource}/{ident}?fields=nosuch")
    assert resp.status_int == 400, resp.body
    assert ifx.error_message(resp)
    assert api.get(f"/v1/{resource}/{ident}?fields=uuid").json["uuid"] \
        == ident
