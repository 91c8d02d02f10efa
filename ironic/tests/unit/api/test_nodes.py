"""Node CRUD through the WSGI application."""

import json

import pytest

from ironic.api.controllers.v1 import versions
from ironic.tests.fixtures import error_message


def _create(api, **fields):
    body = {"driver": "fake-hardware", **fields}
    resp = api.post("/v1/nodes", body)
    assert resp.status_int == 201, resp.body
    return resp.json


def test_create_and_get_by_uuid_and_name(api):
    node = _create(api, name="node-1", driver_info={"ipmi_password": "s3"})
    assert node["provision_state"] == "enroll"
    assert node["driver_info"] == {"ipmi_password": "******"}
    by_uuid = api.get(f"/v1/nodes/{node['uuid']}").json
    by_name = api.get("/v1/nodes/node-1").json
    assert by_uuid == by_name
    assert by_uuid["links"][0]["href"].endswith(f"/v1/nodes/{node['uuid']}")


def test_duplicate_name_is_409(api):
    _create(api, name="dup")
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "name": "dup"})
    assert resp.status_int == 409
    assert "dup" in error_message(resp)


def test_unknown_field_is_400_and_creates_nothing(api):
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "bogus": 1})
    assert resp.status_int == 400
    assert "bogus" in error_message(resp)
    assert api.get("/v1/nodes").json["nodes"] == []


def test_malformed_json_is_400(api):
    resp = api.post("/v1/nodes", raw=b'{"driver": ')
    assert resp.status_int == 400
    assert "JSON" in error_message(resp)


def test_patch_applies_atomically(api):
    node = _create(api, name="p1")
    resp = api.patch("/v1/nodes/p1", [
        {"op": "add", "path": "/extra/a", "value": 1},
        {"op": "remove", "path": "/driver"}])
    assert resp.status_int == 400
    assert api.get("/v1/nodes/p1").json["extra"] == {}
    resp = api.patch("/v1/nodes/p1", [
        {"op": "add", "path": "/extra/a", "value": 1},
        {"op": "replace", "path": "/resource_class", "value": "gold"}])
    assert resp.status_int == 200, resp.body
    assert resp.json["extra"] == {"a": 1}
    assert resp.json["resource_class"] == "gold"
    assert resp.json["uuid"] == node["uuid"]


def test_patch_read_only_is_400(api):
    _create(api, name="ro")
    resp = api.patch("/v1/nodes/ro", [
        {"op": "replace", "path": "/provision_state", "value": "active"}])
    assert resp.status_int == 400


def test_list_pages_follow_next(api):
    uuids = [_create(api)["uuid"] for _ in range(5)]
    seen, url = [], "/v1/nodes?limit=2"
    while url:
        doc = api.get(url).json
        seen += [n["uuid"] for n in doc["nodes"]]
        url = doc.get("next", "").replace("http://localhost", "") or None
    assert seen == uuids


def test_delete_then_404(api):
    node = _create(api)
    assert api.delete(f"/v1/nodes/{node['uuid']}").status_int == 204
    resp = api.get(f"/v1/nodes/{node['uuid']}")
    assert resp.status_int == 404
    assert node["uuid"] in error_message(resp)


@pytest.mark.parametrize("version", ["1.999", "2.1", "0.5", "1.-1"])
def test_version_out_of_range_is_406(api, version):
    resp = api.get("/v1/nodes", version=version)
    assert resp.status_int == 406
    assert resp.headers["X-OpenStack-Ironic-API-Maximum-Version"] == \
        versions.MAX_VERSION_STRING
    assert resp.headers["X-OpenStack-Ironic-API-Minimum-Version"] == "1.1"
    assert version in error_message(resp)
    assert "The supported version range is: [1.1, " in error_message(resp)


@pytest.mark.parametrize("version", ["1.x", "abc", "1", "1.5.1", "1."])
def test_malformed_version_is_406_without_the_range(api, version):
    resp = api.get("/v1/nodes", version=version)
    assert resp.status_int == 406
    assert "X-OpenStack-Ironic-API-Maximum-Version" not in resp.headers
    assert error_message(resp) == \
        "Invalid value for X-OpenStack-Ironic-API-Version header"


def test_version_refusal_bodies_as_ironic_39(api):
    # Below the root the body is that of a plain HTTP error, byte for byte.
    resp = api.get("/v1/nodes", version="abc")
    assert resp.body == (
        b'{"error_message": "{\\"code\\": 406, \\"title\\": \\"Not '
        b'Acceptable\\", \\"description\\": \\"Invalid value for '
        b'X-OpenStack-Ironic-API-Version header\\"}"}')
    assert resp.content_type == "application/json"
    # On the root, the usual fault document.
    resp = api.get("/", version="1.0")
    assert resp.status_int == 406
    inner = json.loads(resp.json["error_message"])
    assert list(inner) == ["faultcode", "faultstring", "debuginfo"]
    assert inner["faultstring"].startswith(
        "Version 1.0 was requested but the minor version is not supported")


@pytest.mark.parametrize("version,minor", [("01.5", "1.5"), ("1.05", "1.5"),
                                           ("LATEST", None)])
def test_versions_read_as_numbers(api, version, minor):
    resp = api.get("/v1/nodes", version=version)
    assert resp.status_int == 200
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == \
        (minor or versions.MAX_VERSION_STRING)


def test_standard_version_header_wins_over_the_legacy_one(api):
    resp = api.get("/v1/nodes", headers={
        "X-OpenStack-Ironic-API-Version": "1.9",
        "OpenStack-API-Version": "baremetal 1.20"})
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.20"
    # Another service's entry in the standard header is not ours.
    resp = api.get("/v1/nodes", headers={
        "X-OpenStack-Ironic-API-Version": "1.9",
        "OpenStack-API-Version": "compute 2.1"})
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.9"


def test_traits(api):
    _create(api, name="t1")
    assert api.put("/v1/nodes/t1/traits/CUSTOM_GPU").status_int == 204
    assert api.get("/v1/nodes/t1/traits").json == {"traits": ["CUSTOM_GPU"]}
    assert api.put("/v1/nodes/t1/traits/bad-trait").status_int == 400
    assert api.delete("/v1/nodes/t1/traits/CUSTOM_GPU").status_int == 204
    assert api.delete("/v1/nodes/t1/traits/CUSTOM_GPU").status_int == 404

