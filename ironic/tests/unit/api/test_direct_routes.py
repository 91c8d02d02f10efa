"""The node GET answered in front of pecan gives pecan's answer, byte for
byte, errors included, and leaves to pecan every request it would answer
differently."""

import json

import pytest
import webob

from ironic.api import direct_routes, method
from ironic.api.controllers.v1 import node as node_api


@pytest.fixture
def taken(monkeypatch):
    """The paths the direct route answered."""
    seen = []
    plain = direct_routes._plain_node_get

    def spy(environ):
        wanted = plain(environ)
        if wanted is not None:
            seen.append(environ["PATH_INFO"] + "?" +
                        environ.get("QUERY_STRING", ""))
        return wanted
    monkeypatch.setattr(direct_routes, "_plain_node_get", spy)
    return seen


@pytest.fixture
def node(api):
    doc = api.post("/v1/nodes", {"driver": "fake-hardware",
                                 "name": "node-7.a_b~c",
                                 "driver_info": {"secret": "x"},
                                 "properties": {"cpus": 4}}).json
    assert api.put(f"/v1/nodes/{doc['uuid']}/traits",
                   {"traits": ["CUSTOM_B", "CUSTOM_A"]}).status_int == 204
    return doc


def _answer(api, path, version, accept):
    headers = {"X-OpenStack-Ironic-API-Version": version}
    if accept is not None:
        headers["Accept"] = accept
    resp = webob.Request.blank(path, headers=headers).get_response(api.app)
    varying = {"openstack-request-id", "x-openstack-request-id"}
    return (resp.status, resp.body,
            [(k, v) for k, v in resp.headerlist if k.lower() not in varying])


def _routed(api, monkeypatch, *args):
    with monkeypatch.context() as m:
        m.setattr(direct_routes, "_plain_node_get", lambda environ: None)
        return _answer(api, *args)


@pytest.mark.parametrize("path, version, accept", [
    ("/v1/nodes/{uuid}", "latest", None),
    ("/v1/nodes/{uuid}", "latest", "application/json"),
    ("/v1/nodes/{uuid}", "latest", "*/*"),
    ("/v1/nodes/{uuid}", "1.1", None),
    ("/v1/nodes/{uuid}", "1.38", None),
    ("/v1/nodes/{name}", "latest", None),
    ("/v1/nodes/{uuid}?fields=uuid,name,traits", "latest", None),
    ("/v1/nodes/{name}?fields=uuid%2Cdriver_info%2cproperties", "latest",
     None),
    ("/v1/nodes/{uuid}.json", "1.90", None),
    ("/v1/nodes/{uuid_upper}", "latest", None),
    # Errors, in the API's error body.
    ("/v1/nodes/no-such-node", "latest", None),
    ("/v1/nodes/{name}", "1.4", None),
    ("/v1/nodes/{uuid}.json", "latest", None),
    ("/v1/nodes/{uuid}?fields=uuid,nonsense", "latest", None),
    ("/v1/nodes/{uuid}?fields=uuid,shard", "1.80", None),
    ("/v1/nodes/{uuid}?fields=uuid", "1.7", None),
])
def test_the_direct_answer_is_pecans(api, node, taken, monkeypatch, path,
                                     version, accept):
    path = path.format(uuid=node["uuid"], name=node["name"],
                       uuid_upper=node["uuid"].upper())
    direct = _answer(api, path, version, accept)
    assert taken, "the request was not answered directly"
    assert direct == _routed(api, monkeypatch, path, version, accept)


@pytest.mark.parametrize("path, version, accept", [
    # Not the plain form: never tried.
    ("/v1/nodes/detail", "latest", None),
    ("/v1/nodes/get_all", "latest", None),
    ("/v1/nodes/{uuid}/", "latest", None),
    ("/v1/nodes/{uuid}?fields=uuid&fields=name", "latest", None),
    ("/v1/nodes/{uuid}?fields=", "latest", None),
    ("/v1/nodes/{uuid}?fields=uuid+name", "latest", None),
    ("/v1/nodes/{uuid}?limit=1", "latest", None),
    ("/v1/nodes/{uuid}", "latest", "text/html"),
    ("/v1/nodes/{uuid}", "latest", "application/json;q=0.5, text/plain"),
    ("/v1/nodes/n%C3%A9e", "latest", None),
])
def test_pecan_answers_the_rest(api, node, taken, monkeypatch, path,
                                version, accept):
    path = path.format(uuid=node["uuid"], name=node["name"])
    answer = _answer(api, path, version, accept)
    assert not taken
    assert answer == _routed(api, monkeypatch, path, version, accept)


def test_only_get_is_answered_directly(api, node, taken):
    for verb in ("HEAD", "PUT", "POST"):
        webob.Request.blank(f"/v1/nodes/{node['uuid']}",
                            method=verb).get_response(api.app)
    assert not taken
    assert api.get(f"/v1/nodes/{node['uuid']}").status_int == 200
    assert len(taken) == 1


def test_an_unexpected_error_is_a_500_answered_once(api, node, taken,
                                                   monkeypatch):
    calls = []

    def broken(*args):
        calls.append(args)
        raise RuntimeError("the database went away")
    monkeypatch.setattr(node_api, "node_document", broken)
    path = f"/v1/nodes/{node['uuid']}"
    direct = _answer(api, path, "latest", None)
    assert taken and len(calls) == 1
    assert direct[0].startswith("500")
    assert direct == _routed(api, monkeypatch, path, "latest", None)


def test_a_direct_answer_masks_secrets(api, node, taken):
    doc = json.loads(_answer(api, f"/v1/nodes/{node['uuid']}", "latest",
                             None)[1])
    assert taken
    assert doc["driver_info"] == {"secret": "******"}
    assert doc["traits"] == ["CUSTOM_A", "CUSTOM_B"]


def test_the_request_is_unbound_after_each_answer(api, node):
    for path in (f"/v1/nodes/{node['uuid']}", "/v1/nodes", "/v1/nowhere"):
        api.get(path)
        assert method._current.environ is None


@pytest.mark.parametrize("headers, expected", [
    ({}, "http://localhost"),
    ({"Host": "example.com:80"}, "http://example.com"),
    ({"Host": "example.com:6385"}, "http://example.com:6385"),
    ({"Host": "[::1]:6385"}, "http://[::1]:6385"),
    ({"Host": "[::1]"}, "http://[::1]"),
])
def test_links_name_the_host_the_request_was_sent_to(api, node, headers,
                                                     expected):
    for _ in range(2):
        # The second time from what was worked out the first.
        doc = api.get(f"/v1/nodes/{node['uuid']}", headers=headers).json
        assert doc["links"][0]["href"] == \
            f"{expected}/v1/nodes/{node['uuid']}"


def test_links_use_the_public_endpoint(api, node, config):
    config("api", public_endpoint="https://bm.example/api/")
    doc = api.get(f"/v1/nodes/{node['uuid']}").json
    assert doc["links"][0]["href"] == \
        f"https://bm.example/api/v1/nodes/{node['uuid']}"


def test_a_uuid_with_a_trailing_newline_is_a_bad_identifier(api, node):
    # It passed the UUID check, then failed to parse: a 500.
    resp = api.get(f"/v1/nodes/{node['uuid']}%0A", version="latest")
    assert resp.status_int == 400
