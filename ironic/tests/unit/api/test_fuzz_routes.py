"""Property-based walk over every GET route: no query, header or body
ever gets a 5xx.

One of each resource is created, then every collection and item route is
asked with generated query strings (repeated parameters, numbers of
thousands of digits, odd Unicode, bytes that are not UTF-8) and version
headers, and every collection is sent generated JSON bodies. Every answer
must be a success or a 4xx with the API error body. The classes of input
tried here are refused where requests are parsed (``ironic.api.app``,
``ironic.api.body``, the version middleware), so a new resource is covered
without a change to this file beyond its routes.
"""

from __future__ import annotations

import json
import os
from urllib.parse import quote, urlsplit

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ironic.tests import fixtures as ifx

# FUZZ_EXAMPLES=5000 for a longer hunt by hand.
_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", 400))
_SETTINGS = settings(max_examples=_EXAMPLES, deadline=None, derandomize=True,
                     suppress_health_check=list(HealthCheck))

HUGE = "9" * 5000

# Routes answering GET, "{node}" and the like filled in by the fixture.
GET_ROUTES = [
    "/", "/v1", "/v1/nodes", "/v1/nodes/detail", "/v1/nodes/{node}",
    "/v1/nodes/{node}/states", "/v1/nodes/{node}/traits",
    "/v1/nodes/{node}/vifs", "/v1/nodes/{node}/bios",
    "/v1/nodes/{node}/bios/X", "/v1/nodes/{node}/firmware",
    "/v1/nodes/{node}/history", "/v1/nodes/{node}/history/{node}",
    "/v1/nodes/{node}/inventory", "/v1/nodes/{node}/children",
    "/v1/nodes/{node}/ports", "/v1/nodes/{node}/ports/detail",
    "/v1/nodes/{node}/portgroups", "/v1/nodes/{node}/allocation",
    "/v1/nodes/{node}/volume", "/v1/nodes/{node}/volume/connectors",
    "/v1/nodes/{node}/volume/targets", "/v1/nodes/{node}/vmedia",
    "/v1/nodes/{node}/management/boot_device",
    "/v1/nodes/{node}/management/boot_device/supported",
    "/v1/nodes/{node}/management/indicators",
    "/v1/nodes/{node}/states/console", "/v1/nodes/{node}/validate",
    "/v1/nodes/{node}/vendor_passthru/methods",
    "/v1/ports", "/v1/ports/detail", "/v1/ports/{port}",
    "/v1/portgroups", "/v1/portgroups/detail", "/v1/portgroups/{portgroup}",
    "/v1/portgroups/{portgroup}/ports",
    "/v1/chassis", "/v1/chassis/detail", "/v1/chassis/{chassis}",
    "/v1/chassis/{chassis}/nodes",
    "/v1/volume", "/v1/volume/connectors", "/v1/volume/connectors/detail",
    "/v1/volume/connectors/{connector}", "/v1/volume/targets",
    "/v1/volume/targets/detail", "/v1/volume/targets/{target}",
    "/v1/drivers", "/v1/drivers/fake-hardware",
    "/v1/drivers/fake-hardware/properties",
    "/v1/drivers/fake-hardware/vendor_passthru/methods",
    "/v1/drivers/fake-hardware/raid/logical_disk_properties",
    "/v1/conductors", "/v1/conductors/test-conductor",
    "/v1/deploy_templates", "/v1/deploy_templates/{template}",
    "/v1/runbooks", "/v1/runbooks/{runbook}",
    "/v1/allocations", "/v1/allocations/{allocation}",
    "/v1/inspection_rules", "/v1/inspection_rules/{rule}",
    "/v1/shards", "/v1/lookup", "/v1/events",
]

# Routes taking a JSON body, with the method.
BODY_ROUTES = [
    ("POST", "/v1/nodes"), ("POST", "/v1/ports"), ("POST", "/v1/portgroups"),
    ("POST", "/v1/chassis"), ("POST", "/v1/volume/connectors"),
    ("POST", "/v1/volume/targets"), ("POST", "/v1/deploy_templates"),
    ("POST", "/v1/runbooks"), ("POST", "/v1/allocations"),
    ("POST", "/v1/inspection_rules"), ("POST", "/v1/heartbeat/{node}"),
    ("POST", "/v1/continue_inspection"), ("POST", "/v1/events"),
    ("POST", "/v1/nodes/{node}/vifs"), ("POST", "/v1/nodes/{node}/vmedia"),
    ("POST", "/v1/nodes/{node}/vendor_passthru?method=first_method"),
    ("POST", "/v1/drivers/fake-hardware/vendor_passthru?method=x"),
    ("PUT", "/v1/nodes/{node}/states/provision"),
    ("PUT", "/v1/nodes/{node}/states/power"),
    ("PUT", "/v1/nodes/{node}/states/raid"),
    ("PUT", "/v1/nodes/{node}/states/boot_mode"),
    ("PUT", "/v1/nodes/{node}/states/secure_boot"),
    ("PUT", "/v1/nodes/{node}/states/console"),
    ("PUT", "/v1/nodes/{node}/management/boot_device"),
    ("PUT", "/v1/nodes/{node}/maintenance"),
    ("PUT", "/v1/nodes/{node}/traits"),
    ("PUT", "/v1/nodes/{node}/management/indicators/system/led"),
    ("PATCH", "/v1/nodes/{node}"), ("PATCH", "/v1/ports/{port}"),
    ("PATCH", "/v1/portgroups/{portgroup}"),
    ("PATCH", "/v1/chassis/{chassis}"),
    ("PATCH", "/v1/volume/connectors/{connector}"),
    ("PATCH", "/v1/volume/targets/{target}"),
    ("PATCH", "/v1/deploy_templates/{template}"),
    ("PATCH", "/v1/runbooks/{runbook}"),
    ("PATCH", "/v1/allocations/{allocation}"),
    ("PATCH", "/v1/inspection_rules/{rule}"),
]

# Every query parameter some route reads, and a few no route reads.
PARAM_NAMES = [
    "limit", "marker", "sort_key", "sort_dir", "fields", "detail", "node",
    "node_uuid", "node_ident", "driver", "maintenance", "associated",
    "provision_state", "instance_uuid", "owner", "lessee", "project",
    "resource_class", "conductor_group", "fault", "description_contains",
    "chassis_uuid", "address", "portgroup", "shard", "sharded", "state",
    "type", "addresses", "conductor", "include_children", "parent_node",
    "retired", "is_child", "method", "supported", "topic", "x",
]

odd_text = st.sampled_from([
    HUGE, "-" + HUGE, "1" + "0" * 30, "-1", "0", "1.5", "1e999", "NaN",
    "\x00", "\U0001f600", "\u202e", "\ufeff", "é", "", " ", ",", ",,",
    "uuid,uuid", "asc", "desc", "true", "True", "[]", "{}", "%", "a" * 300,
])
query_values = odd_text | st.text(max_size=12)
# A list of pairs, so names repeat.
query_pairs = st.lists(
    st.tuples(st.sampled_from(PARAM_NAMES) | st.text(max_size=6),
              query_values), max_size=5)
# Bytes that are not UTF-8, as a client could send them percent-encoded.
raw_query_tails = st.sampled_from(["", "&limit=%ff", "&%c3=1", "&fields=%ed"
                                   "%a0%80", "&a=%00", "&=", "&&", "&=1"])
# Mostly versions that reach the handlers; now and then one that must not.
versions = st.sampled_from(
    ["latest"] * 14 + [None, "1.1", "1.37", "1.65"] * 2
    + ["1." + HUGE, "1.9999999", "1.-1", "1.٣", "", " ", "abc"])
standard_versions = st.sampled_from([None] * 8 + [
    "baremetal 1." + HUGE, "baremetal latest", "baremetal 1.٣",
    "compute 1.1, baremetal 1.50"])

raw_json_tokens = st.sampled_from([
    HUGE, "-" + HUGE, "1" + "0" * 30, "1e999", "NaN", "-Infinity",
    '"\\ud800"', '"\\u0000"', '"\\ud83d\\ude00"', "1.5", "-1", "true",
    "null", "[]", "{}", '"' + "a" * 2000 + '"', "[" + HUGE + "]",
    '{"a": ' + HUGE + '}', '[{"interface": 1, "step": [], "args": 5}]',
    '[{"op": 1, "args": {"a": []}}]', '{"interface": "deploy"}'])
# Keys the resources read, so the odd value reaches their own checks.
BODY_KEYS = [
    "priority", "name", "driver", "uuid", "node_uuid", "address",
    "agent_version", "callback_url", "steps", "actions", "conditions",
    "boot_index", "volume_id", "volume_type", "connector_id", "type",
    "extra", "properties", "target", "boot_device", "traits", "id",
    "events", "resource_class", "candidate_nodes", "clean_steps",
    "inventory", "mode", "value", "op", "path", "disable_ramdisk",
    "state", "owner", "device_type", "image_url", "args", "node",
    "portgroup_uuid", "event", "interface", "step", "order", "phase",
    "description", "force", "rescue_password", "deploy_steps",
    "service_steps", "runbook", "configdrive", "target_raid_config",
    "reason", "sensitive", "ipmi_address", "status", "mac", "physical_network",
    "local_link_connection", "vif", "boot_mode", "enabled", "persistent",
]
json_scalars = (st.none() | st.booleans() | st.integers() | st.floats()
                | st.text(max_size=8))
json_values = st.recursive(
    json_scalars, lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(BODY_KEYS) | st.text(max_size=4),
                      inner, max_size=3), max_leaves=8)
json_tokens = raw_json_tokens | json_values.map(
    lambda v: json.dumps(v, allow_nan=True))


@st.composite
def raw_bodies(draw) -> bytes:
    """A JSON object (or a patch list) with odd values in known keys."""
    pairs = draw(st.lists(st.tuples(st.sampled_from(BODY_KEYS),
                                    json_tokens), min_size=1,
                          max_size=4))
    obj = "{" + ",".join(f'"{k}": {v}' for k, v in pairs) + "}"
    if draw(st.booleans()):
        return obj.encode()
    op = draw(st.sampled_from(["add", "replace"]))
    key = pairs[0][0]
    return (f'[{{"op": "{op}", "path": "/{key}", "value": {pairs[0][1]}}},'
            f'{{"op": "add", "path": "/extra/x", "value": {obj}}}]'
            ).encode()


@pytest.fixture(scope="module")
def routes_api(tmp_path_factory):
    """One application with one of each resource, shared by the module."""
    from ironic.api import app as api_app
    from ironic.conf import CONF

    directory = str(tmp_path_factory.mktemp("fuzz-routes"))
    with ifx.module_api_database(directory) as overrides:
        overrides("api", restrict_lookup=False)
        client = ifx.ApiClient(api_app.setup_app(), "latest")
        client.idents = _create_resources(client)
        yield client
    assert CONF.database.connection != \
        f"sqlite:///{directory}/ironic.sqlite"


def _created(resp) -> str:
    assert resp.status_int == 201, (resp.status, resp.body)
    return resp.json.get("uuid") or resp.json["name"]


def _create_resources(client) -> dict[str, str]:
    ids = {}
    ids["chassis"] = _created(client.post("/v1/chassis", {}))
    ids["node"] = _created(client.post("/v1/nodes", {
        "driver": "fake-hardware", "name": "walked",
        "chassis_uuid": ids["chassis"]}))
    ids["portgroup"] = _created(client.post("/v1/portgroups", {
        "node_uuid": ids["node"], "name": "pg0",
        "address": "52:54:00:00:00:01"}))
    ids["port"] = _created(client.post("/v1/ports", {
        "node_uuid": ids["node"], "address": "52:54:00:00:00:02",
        "portgroup_uuid": ids["portgroup"]}))
    ids["connector"] = _created(client.post("/v1/volume/connectors", {
        "node_uuid": ids["node"], "type": "iqn",
        "connector_id": "iqn.2017-01.walked"}))
    ids["target"] = _created(client.post("/v1/volume/targets", {
        "node_uuid": ids["node"], "volume_type": "iscsi", "boot_index": 0,
        "volume_id": "vol-1"}))
    step = {"interface": "bios", "step": "apply_configuration",
            "args": {}, "priority": 10}
    ids["template"] = _created(client.post("/v1/deploy_templates", {
        "name": "CUSTOM_WALKED", "steps": [step]}))
    ids["runbook"] = _created(client.post("/v1/runbooks", {
        "name": "CUSTOM_WALKED", "steps": [
            {k: v for k, v in step.items() if k != "priority"}
            | {"order": 0}]}))
    ids["allocation"] = _created(client.post("/v1/allocations", {
        "resource_class": "walked"}))
    ids["rule"] = _created(client.post("/v1/inspection_rules", {
        "description": "walked", "actions": [
            {"op": "set-attribute", "args": ["/extra/x", "y"]}]}))
    return ids


def _fill(client, route: str) -> str:
    return route.format(**client.idents)


def _assert_sane(resp, what: str) -> None:
    event(f"status {resp.status_int}")  # --hypothesis-show-statistics
    assert resp.status_int < 500, (what, resp.status, resp.body[:500])
    if resp.status_int >= 400 and resp.status_int != 406:
        ifx.error_message(resp)  # the API error body, or it raises


def _query(pairs: list[tuple[str, str]], tail: str) -> str:
    text = "&".join(f"{quote(k, safe='')}={quote(v, safe=',')}"
                    for k, v in pairs)
    return text + tail


def _headers(standard: str | None, accept: str | None) -> dict:
    headers = {} if standard is None else {"OpenStack-API-Version": standard}
    if accept is not None:
        headers["Accept"] = accept
    return headers


accepts = st.sampled_from([None] * 6 + [
    "application/json", "*/*", "text/html", "application/json;q=" + HUGE,
    "application/*;q=0.5, text/plain", ";;;", "application/json; q=nan",
    "application/json;q=-1", "\xff"]) | st.text(
        alphabet=st.characters(min_codepoint=32, max_codepoint=255),
        max_size=20)


@_SETTINGS
@given(route=st.sampled_from(GET_ROUTES), pairs=query_pairs,
       tail=raw_query_tails, version=versions,
       standard=standard_versions, accept=accepts)
def test_get_routes_never_5xx(routes_api, route, pairs, tail, version,
                              standard, accept):
    path = f"{_fill(routes_api, route)}?{_query(pairs, tail)}"
    resp = routes_api.get(path, version=version or "",
                          headers=_headers(standard, accept))
    _assert_sane(resp, path)


@pytest.mark.parametrize("route", GET_ROUTES)
def test_every_route_refuses_a_repeated_parameter(routes_api, route):
    # A 4xx in the API's error body, as Ironic 39 answers: refused as a
    # parameter the route does not take, or by the check of its kind with
    # the values shown as a list (an item that does not exist, or a
    # method the route does not serve, may be answered first). The
    # version documents read no query at all.
    if route in ("/", "/v1/"):
        return
    for query in ("sort_dir=asc&sort_dir=zz", f"limit=1&limit={HUGE}"):
        resp = routes_api.get(f"{_fill(routes_api, route)}?{query}")
        assert 400 <= resp.status_int < 500, (route, query, resp.body)
        assert ifx.error_message(resp), (route, query)


@pytest.mark.parametrize("path", ["/v1/nodes", "/v1/nodes/{node}"])
def test_repeated_fields_add_up_to_one_list(routes_api, path):
    # Ironic 39 reads ``fields`` as a list parameter: its repetitions join.
    resp = routes_api.get(
        f"{_fill(routes_api, path)}?fields=uuid&fields=name",
        version="1.99")
    assert resp.status_int == 200, resp.body
    doc = resp.json["nodes"][0] if "nodes" in resp.json else resp.json
    assert set(doc) == {"uuid", "name", "links"}


@pytest.mark.parametrize("method, route", [
    ("PATCH", "/v1/nodes/{node}"), ("DELETE", "/v1/ports/{port}"),
    ("POST", "/v1/nodes/{node}/vifs"), ("PUT", "/v1/nodes/{node}/traits")])
def test_other_methods_refuse_a_repeated_parameter(routes_api, method,
                                                   route):
    before = _snapshot(routes_api)
    resp = routes_api.request(method, f"{_fill(routes_api, route)}?a=1&a=2",
                              raw=b'{"id": "x", "traits": []}')
    assert resp.status_int == 400, resp.body
    assert ifx.error_message(resp) == "Unexpected arguments: a"
    assert _snapshot(routes_api) == before


@pytest.mark.parametrize("header, value", [
    ("X-OpenStack-Ironic-API-Version", "1." + HUGE),
    ("OpenStack-API-Version", "baremetal 1." + HUGE),
])
@pytest.mark.parametrize("route", ["/", "/v1", "/v1/nodes", "/v1/lookup"])
def test_huge_version_is_not_acceptable(routes_api, route, header, value):
    resp = routes_api.get(route, version="", headers={header: value})
    assert resp.status_int == 406, resp.body


@settings(_SETTINGS, max_examples=_EXAMPLES // 2)
@given(target=st.sampled_from(BODY_ROUTES), raw=raw_bodies(),
       version=versions)
def test_bodies_never_5xx(routes_api, target, raw, version):
    method, route = target
    path = _fill(routes_api, route)
    before = _snapshot(routes_api)
    resp = routes_api.request(method, path, raw=raw, version=version or "")
    _assert_sane(resp, f"{method} {path} {raw[:200]!r}")
    if resp.status_int >= 400:
        assert _snapshot(routes_api) == before
    else:
        _undo(routes_api, method, resp)


def _snapshot(client) -> bytes:
    # What a refused body must leave as it was: the walked resources.
    return b"".join(client.get(_fill(client, r)).body for r in (
        "/v1/nodes/{node}", "/v1/ports/{port}",
        "/v1/inspection_rules/{rule}"))


def _undo(client, method: str, resp) -> None:
    """Remove what a successful POST created, so later examples see the
    same resources (and names stay free)."""
    if method != "POST" or resp.status_int != 201 or not resp.body:
        return
    location = resp.headers.get("Location")
    if location:
        client.delete(urlsplit(location).path)


odd_segments = st.sampled_from([
    HUGE, "-1", "0", "1" + "0" * 30, "1.5", "\x00", "\U0001f600", "\u202e",
    "a" * 300, "..", ".", "~", "%", "%ff", "detail", "None", "null",
    "1BE26C0B-03F2-4D2E-AE87-C02D7F33C123", "{}", "[]", " ", "a b",
    ]) | st.text(min_size=1, max_size=12).filter(
        # Never the name of a walked resource: a DELETE would remove it.
        lambda s: s not in ("walked", "pg0", "CUSTOM_WALKED"))


@settings(_SETTINGS, max_examples=_EXAMPLES // 2)
@given(route=st.sampled_from(GET_ROUTES + [r for _, r in BODY_ROUTES]),
       segment=odd_segments,
       method=st.sampled_from(["GET", "DELETE", "PATCH", "PUT", "POST"]),
       raw=st.sampled_from([b"", b"{}", b"[]", b'[{"op": "remove", '
                            b'"path": "/extra/x"}]']))
def test_odd_identifiers_never_5xx(routes_api, route, segment, method, raw):
    """Each identifier of a route replaced by an odd one, every method."""
    idents = {k: quote(segment, safe="") for k in routes_api.idents}
    path = route.format(**idents)
    before = _snapshot(routes_api)
    resp = routes_api.request(method, path, raw=raw or None)
    _assert_sane(resp, f"{method} {path}")
    if resp.status_int >= 400:
        assert _snapshot(routes_api) == before


# Names a controller object answers to in Python (dunders, pecan's own
# hooks, our helpers): a URL segment naming one must route like any
# other unknown segment, never into the attribute.
_ATTRIBUTE_SEGMENTS = ["__class__", "__init__", "__dict__", "_route",
                       "_lookup", "_default", "_handle_post", "post",
                       "get_all", "get_one", "delete", "patch", "put"]


@pytest.mark.parametrize("segment", _ATTRIBUTE_SEGMENTS)
@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH",
                                    "DELETE"])
def test_attribute_names_in_urls_never_5xx(routes_api, segment, method):
    routes = sorted({r.split("?")[0] for r in GET_ROUTES}
                    | {r.split("?")[0] for _, r in BODY_ROUTES})
    failures = []
    for route in routes:
        filled = route.format(**routes_api.idents)
        for path in (f"{filled.rstrip('/')}/{segment}",
                     route.format(**dict.fromkeys(routes_api.idents,
                                                  segment))):
            resp = routes_api.request(method, path, raw=b"{}")
            if resp.status_int >= 500:
                failures.append((path, resp.status_int))
            elif resp.status_int >= 400 and resp.status_int != 406:
                ifx.error_message(resp)
    assert not failures, "\n".join(f"{status} {path}"
                                    for path, status in failures)
