"""The collection controller: every resource served from a descriptor
parses its list query in one place, so bad values are refused alike, and
the OpenAPI document lists what the descriptors declare."""

from __future__ import annotations

import pytest

from ironic.api import openapi
from ironic.api.controllers.v1 import collection, index, versions
from ironic.api.controllers.v1 import port as port_api
from ironic.tests import fixtures as ifx

HUGE = "9" * 5000

#: Every list served by collection.controller, top-level and nested.
LISTS = ["/v1/chassis", "/v1/ports", "/v1/portgroups",
         "/v1/volume/connectors", "/v1/volume/targets",
         "/v1/deploy_templates", "/v1/runbooks", "/v1/allocations",
         "/v1/inspection_rules", "/v1/nodes/{node}/ports",
         "/v1/nodes/{node}/portgroups", "/v1/nodes/{node}/volume/targets"]


@pytest.fixture
def api(api_newest):
    resp = api_newest.post("/v1/nodes", {"driver": "fake-hardware"})
    assert resp.status_int == 201, resp.body
    api_newest.node = resp.json["uuid"]
    return api_newest


@pytest.mark.parametrize("route", LISTS)
@pytest.mark.parametrize("query", [
    "sort_dir=sideways", f"limit={HUGE}", "limit=0", "limit=x",
    "marker=not-a-uuid", "sort_key=no_such_field", "fields=no_such_field",
    "no_such_parameter=1", "sort_dir=asc&sort_dir=zz",
    "fields=uuid&detail=true"])
def test_every_list_refuses_a_bad_query(api, route, query):
    path = route.replace("{node}", api.node)
    resp = api.get(f"{path}?{query}")
    assert resp.status_int == 400, (path, query, resp.body)
    assert ifx.error_message(resp)


@pytest.mark.parametrize("route", LISTS)
def test_every_list_pages_with_a_next_link(api, route):
    path = route.replace("{node}", api.node)
    resp = api.get(f"{path}?limit=1&sort_dir=desc")
    assert resp.status_int == 200, resp.body
    (key,) = [k for k in resp.json if k != "next"]
    assert isinstance(resp.json[key], list)


def test_every_served_collection_comes_from_a_descriptor():
    served = {r.controller for r in openapi.routes(index.V1Controller())
              if issubclass(r.controller, collection.CollectionController)}
    names = {c.spec.collection for c in served}
    assert names == {"chassis", "ports", "portgroups", "volume/connectors",
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
