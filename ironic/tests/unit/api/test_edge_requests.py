"""Edge requests answered as the reference service answers them.

Each case was compared with a running Ironic 39: wrong methods, HEAD,
paths without the item, malformed identifiers and filter values, empty
version headers and empty patches.
"""

import uuid

import pytest

from ironic.tests.fixtures import error_message


@pytest.fixture
def ids(api):
    chassis = api.post("/v1/chassis", {}).json["uuid"]
    node = api.post("/v1/nodes", {"driver": "fake-hardware", "name": "n1",
                                  "chassis_uuid": chassis}).json["uuid"]
    port = api.post("/v1/ports", {"node_uuid": node,
                                  "address": "52:54:00:00:00:01"})
    group = api.post("/v1/portgroups", {"node_uuid": node})
    return {"node": node, "chassis": chassis, "port": port.json["uuid"],
            "portgroup": group.json["uuid"]}


_KEY = {"nodes": "node", "ports": "port", "portgroups": "portgroup",
        "chassis": "chassis"}


def _status(resp, status):
    assert resp.status_int == status, (resp.status, resp.body)
    if status >= 400 and resp.body:
        return error_message(resp)
    return None


@pytest.mark.parametrize("method", ["PUT", "POST"])
@pytest.mark.parametrize("kind", ["nodes", "ports", "portgroups", "chassis"])
def test_put_or_post_on_an_item_is_405_with_allow(api, ids, method, kind):
    resp = api.request(method, f"/v1/{kind}/{ids[_KEY[kind]]}",
                       {"x": 1})
    _status(resp, 405)
    assert set(resp.headers["Allow"].split(", ")) == {"DELETE", "GET",
                                                      "PATCH"}


@pytest.mark.parametrize("path", ["/v1/nodes", "/v1/ports", "/v1/chassis",
                                  "/v1/portgroups", "/v1/drivers"])
def test_put_on_a_collection_is_405(api, path):
    resp = api.put(path, {})
    _status(resp, 405)
    assert "GET" in resp.headers["Allow"]


@pytest.mark.parametrize("path", ["/v1/nodes", "/v1/nodes/n1",
                                  "/v1/nodes/detail", "/v1/ports",
                                  "/v1/chassis/detail",
                                  "/v1/nodes/n1/states"])
def test_head_on_v1_resources_is_405(api, ids, path):
    resp = api.request("HEAD", path)
    assert resp.status_int == 405
    assert "GET" in resp.headers["Allow"]


@pytest.mark.parametrize("path", ["/", "/v1", "/v1/"])
def test_head_on_version_documents_is_200(api, path):
    assert api.request("HEAD", path).status_int == 200


@pytest.mark.parametrize("method", ["POST", "DELETE", "PUT", "PATCH"])
def test_v1_document_answers_get_only(api, method):
    resp = api.request(method, "/v1", {})
    _status(resp, 405)
    assert resp.headers["Allow"] == "GET"


@pytest.mark.parametrize("method", ["POST", "PUT"])
def test_detail_answers_get_only(api, method):
    _status(api.request(method, "/v1/nodes/detail", {}), 405)


@pytest.mark.parametrize("method,path", [
    ("PATCH", "/v1/nodes"), ("DELETE", "/v1/nodes"), ("PATCH", "/v1/ports"),
    ("DELETE", "/v1/chassis"), ("PATCH", "/v1/portgroups")])
def test_item_method_without_the_item_is_400(api, method, path):
    message = _status(api.request(method, path, []), 400)
    assert "Missing mandatory parameter" in message


def test_unknown_paths_stay_404(api, ids):
    for path in ("/bogus", "/v1/bogus", "/v1/nodes/n1/bogus/more"):
        _status(api.get(path), 404)


@pytest.mark.parametrize("kind", ["nodes", "ports", "portgroups", "chassis"])
def test_a_segment_after_an_item_names_its_fields(api, ids, kind):
    # As Ironic 39, which reads it as the ``fields`` of the item's GET.
    path = f"/v1/{kind}/{ids[_KEY[kind]]}"
    assert api.get(f"{path}/uuid").json == api.get(f"{path}?fields=uuid").json
    message = _status(api.get(f"{path}/bogus"), 400)
    assert message == ("Field bogus is not a valid field." if kind == "nodes"
                       else 'Field(s) "bogus" are not valid')
    # The item is looked up first, the version checked before both.
    missing = "9be26c0b-03f2-4d2e-ae87-c02d7f33c199"
    assert missing in _status(api.get(f"/v1/{kind}/{missing}/bogus"), 404)
    _status(api.get(f"{path}/bogus", version="1.7"), 406)
    _status(api.get(f"{path}/uuid?fields=uuid"), 400)
    _status(api.delete(f"{path}/bogus"), 404)


@pytest.mark.parametrize("kind", ["nodes", "ports", "portgroups", "chassis"])
def test_empty_patch_answers_the_resource_unchanged(api, ids, kind):
    path = f"/v1/{kind}/{ids[_KEY[kind]]}"
    before = api.get(path).json
    resp = api.patch(path, [])
    _status(resp, 200)
    assert resp.json == before == api.get(path).json


@pytest.mark.parametrize("query,words", [
    ("chassis_uuid=notauuid", "Expected UUID for chassis_uuid"),
    ("provision_state=bogus", 'Provision state "bogus" is not valid'),
    ("fault=bogus", "Unrecognized fault"),
    ("limit=0", "Limit must be positive"),
    ("limit=-1", "Limit must be positive"),
])
def test_node_list_rejects_impossible_filters(api, ids, query, words):
    assert words in _status(api.get(f"/v1/nodes?{query}"), 400)


def test_node_list_chassis_filter_takes_any_uuid_spelling(api, ids):
    upper = ids["chassis"].upper()
    nodes = api.get(f"/v1/nodes?chassis_uuid={upper}").json["nodes"]
    assert [n["uuid"] for n in nodes] == [ids["node"]]
    _status(api.get(f"/v1/nodes?chassis_uuid={uuid.uuid4()}"), 404)


def test_port_list_rejects_a_malformed_address(api, ids):
    message = _status(api.get("/v1/ports?address=zz"), 400)
    assert "Expected valid MAC address for address: zz" in message


@pytest.mark.parametrize("ident,shown", [("zzz%20zz", "zzz zz"),
                                         ("a%3Cb", "a<b"),
                                         ("%C3%A9t%C3%A9!", "été!")])
def test_malformed_node_identifier_is_400(api, ident, shown):
    # In Ironic 39's words and plain HTTP error body (error_message reads
    # its description).
    message = _status(api.get(f"/v1/nodes/{ident}"), 400)
    assert message == f"Expected UUID or name for node: {shown}"


def test_malformed_node_identifier_before_names_is_404(api):
    _status(api.get("/v1/nodes/zzz%20zz", version="1.4"), 404)


@pytest.mark.parametrize("path", ["/v1/nodes/%00", "/v1/nodes?driver=%00",
                                  "/v1/ports?address=52:54%00",
                                  "/v1/nodes?name=a%00b"])
def test_nul_in_the_url_is_400(api, path):
    assert "NUL" in _status(api.get(path), 400)


def test_empty_version_header_is_as_if_absent(api):
    resp = api.get("/v1/nodes", headers={
        "X-OpenStack-Ironic-API-Version": ""})
    assert resp.status_int == 200
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.1"


@pytest.mark.parametrize("path", [
    "/v1/allocations/{u}", "/v1/deploy_templates/{u}",
    "/v1/volume/connectors/{u}", "/v1/volume/targets/{u}",
    "/v1/runbooks/{u}"])
@pytest.mark.parametrize("method", ["PUT", "POST"])
def test_put_or_post_on_other_items_is_405(api_newest, path, method):
    resp = api_newest.request(method, path.format(u=uuid.uuid4()), {})
    _status(resp, 405)
    assert "GET" in resp.headers["Allow"]


def test_patches_cannot_grow_a_document_past_the_depth_limit(api, ids):
    # Each body is shallow enough, but adding under ever deeper paths
    # would nest the stored document without bound.
    path = "/extra"
    value = {"a": {}}
    for _ in range(20):
        resp = api.patch("/v1/nodes/n1", [
            {"op": "add", "path": f"{path}/a", "value": value}])
        if resp.status_int != 200:
            break
        path += "/a/a"
    assert "deeper than 25" in _status(resp, 400)
    assert api.get("/v1/nodes/n1").status_int == 200


@pytest.mark.parametrize("path", ["/v1/nodes/%FF", "/v1/nodes/%FF/ports",
                                  "/v1/nodes?name=%FF", "/v1/nodes?%FF=1",
                                  "/v1/%FF", "/v1/ports/%C3"])
def test_a_url_that_is_not_utf8_is_400(api, path):
    message = _status(api.get(path), 400)
    assert "not valid UTF-8" in message


@pytest.mark.parametrize("host", ['evil.example/<x>"', "a b", "x:port",
                                  "[::1"])
def test_a_malformed_host_is_never_echoed_into_links(api, host):
    resp = api.get("/v1", headers={"Host": host})
    assert resp.status_int == 200
    assert host.encode() not in resp.body
    # The address the server listens on instead.
    assert resp.json["links"][0]["href"] == "http://localhost/v1/"


@pytest.mark.parametrize("host", ["api.example:6385", "10.0.0.1",
                                  "[fd00::1]:6385"])
def test_a_well_formed_host_names_the_links(api, host):
    resp = api.get("/v1", headers={"Host": host})
    assert resp.json["links"][0]["href"].startswith(f"http://{host}/")
