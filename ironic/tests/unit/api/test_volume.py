"""Volume connectors and targets (API 1.32)."""

import uuid as uuidlib

import pytest

from ironic.db import api as db_api
from ironic.tests.fixtures import error_message

UUID = "11111111-2222-3333-4444-555555555555"


def _set_node(node: dict, **values) -> None:
    dbapi = db_api.get_instance()
    dbapi.update_node(dbapi.get_node_by_uuid(node["uuid"]).id, values)


@pytest.fixture
def node(api):
    """A node known to be powered off: volumes may change."""
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "name": "n1"})
    assert resp.status_int == 201
    _set_node(resp.json, power_state="power off")
    return resp.json


def _connector(api, node, **kw):
    body = {"node_uuid": node["uuid"], "type": "iqn",
            "connector_id": "iqn.2017-01.org.example:n1", **kw}
    return api.post("/v1/volume/connectors", body)


def _target(api, node, **kw):
    body = {"node_uuid": node["uuid"], "volume_type": "iscsi",
            "boot_index": 0, "volume_id": "vol-1", **kw}
    return api.post("/v1/volume/targets", body)


def test_not_there_before_1_32(api, node):
    assert api.get("/v1/volume", version="1.31").status_int == 404
    assert api.get("/v1/volume/connectors",
                   version="1.31").status_int == 404
    assert "volume" not in api.get("/v1", version="1.31").json


def test_root_documents(api, node):
    doc = api.get("/v1/volume").json
    assert {"links", "connectors", "targets"} == set(doc)
    doc = api.get("/v1/nodes/n1/volume").json
    assert doc["connectors"][0]["href"].endswith(
        f"/v1/nodes/{node['uuid']}/volume/connectors")


def test_connector_crud(api, node):
    resp = _connector(api, node, extra={"a": 1})
    assert resp.status_int == 201, resp.body
    conn = resp.json
    assert conn["node_uuid"] == node["uuid"] and conn["type"] == "iqn"
    assert resp.headers["Location"].endswith(conn["uuid"])
    listed = api.get("/v1/volume/connectors").json["connectors"]
    assert [c["uuid"] for c in listed] == [conn["uuid"]]
    assert set(listed[0]) == {"uuid", "node_uuid", "type", "connector_id",
                              "links"}
    by_node = api.get("/v1/nodes/n1/volume/connectors").json["connectors"]
    assert len(by_node) == 1
    assert api.get("/v1/volume/connectors?node=n1").json["connectors"]
    url = f"/v1/volume/connectors/{conn['uuid']}"
    resp = api.patch(url, [{"op": "replace", "path": "/type",
                            "value": "wwpn"},
                           {"op": "add", "path": "/extra/b", "value": 2}])
    assert resp.status_int == 200, resp.body
    assert resp.json["type"] == "wwpn"
    assert resp.json["extra"] == {"a": 1, "b": 2}
    # Ironic 39 links the item whatever fields names.
    assert set(api.get(f"{url}?fields=type").json) == {"type", "links"}
    assert api.delete(url).status_int == 204
    assert api.get(url).status_int == 404


def test_connector_validation(api, node):
    assert _connector(api, node, type="floppy").status_int == 400
    assert _connector(api, node, node_uuid=UUID).status_int == 400
    assert _connector(api, node, bogus=1).status_int == 400
    assert _connector(api, node).status_int == 201
    resp = _connector(api, node)
    assert resp.status_int == 409
    assert "connector_id" in error_message(resp)
    assert api.get("/v1/volume/connectors/not-a-uuid").status_int == 400
    assert api.get(f"/v1/volume/connectors/{UUID}").status_int == 404


def test_target_crud_and_boot_index_unique(api, node):
    resp = _target(api, node, properties={"lun": 0})
    assert resp.status_int == 201, resp.body
    target = resp.json
    assert target["properties"] == {"lun": 0}
    assert _target(api, node).status_int == 409
    assert _target(api, node, boot_index=1, volume_id="v2").status_int == \
        201
    assert _target(api, node, boot_index=-1).status_int == 400
    url = f"/v1/volume/targets/{target['uuid']}"
    resp = api.patch(url, [{"op": "replace", "path": "/boot_index",
                            "value": 1}])
    assert resp.status_int == 409
    resp = api.patch(url, [{"op": "remove", "path": "/volume_id"}])
    assert resp.status_int == 400
    detailed = api.get("/v1/volume/targets?detail=true", version="1.32")
    assert detailed.json["targets"][0]["properties"] == {"lun": 0}
    listed = api.get("/v1/volume/targets?fields=properties").json
    assert listed["targets"][0]["properties"] == {"lun": 0}
    assert set(listed["targets"][0]) == {"properties", "links"}


def test_detail_from_1_43(api_newest, node):
    _target(api_newest, node)
    detail = api_newest.get("/v1/volume/targets?detail=true").json
    assert "properties" in detail["targets"][0]


@pytest.mark.parametrize("kind, make", [("connector", _connector),
                                        ("target", _target)])
def test_changes_refused_while_node_busy(api, node, kind, make):
    item = make(api, node).json
    url = f"/v1/volume/{kind}s/{item['uuid']}"
    patch = [{"op": "add", "path": "/extra/a", "value": 1}]
    _set_node(node, power_state="power on", provision_state="active")
    resp = api.delete(url)
    assert resp.status_int == 400
    # The action is named as clients expect to read it.
    assert f'"volume {kind} deletion"' in error_message(resp)
    resp = api.patch(url, patch)
    assert resp.status_int == 400
    assert f'"volume {kind} update"' in error_message(resp)
    # An unknown power state is not "off" either.
    _set_node(node, power_state=None)
    assert api.patch(url, patch).status_int == 400
    _set_node(node, power_state="power off", reservation="c1")
    assert api.delete(url).status_int == 409
    _set_node(node, reservation=None)
    assert api.patch(url, patch).status_int == 200
    assert api.delete(url).status_int == 204


@pytest.mark.parametrize("state", ["enroll", "manageable", "adopt failed"])
def test_powered_on_node_not_in_use_loses_its_volumes(api, node, state):
    conn = _connector(api, node).json
    target = _target(api, node).json
    _set_node(node, power_state="power on", provision_state=state)
    for url in (f"/v1/volume/connectors/{conn['uuid']}",
                f"/v1/volume/targets/{target['uuid']}"):
        assert api.delete(url).status_int == 204


def test_node_subresource_is_read_only(api, node):
    body = {"node_uuid": node["uuid"], "type": "iqn", "connector_id": "x"}
    resp = api.post("/v1/nodes/n1/volume/connectors", body)
    assert resp.status_int == 400
    assert error_message(resp) == "Malformed request URI."
    # An item is looked up first, as Ironic 39 does.
    made = api.post("/v1/volume/connectors", body).json["uuid"]
    for method in ("GET", "PATCH", "DELETE"):
        resp = api.request(method, f"/v1/nodes/n1/volume/connectors/{made}",
                           [] if method == "PATCH" else None)
        assert resp.status_int == 400, resp.body
        assert error_message(resp) == "Malformed request URI."
    missing = str(uuidlib.uuid4())
    resp = api.get(f"/v1/nodes/n1/volume/targets/{missing}")
    assert resp.status_int == 404
    assert error_message(resp) == \
        f"Volume target {missing} could not be found."
    resp = api.get("/v1/nodes/n1/volume/connectors/bogus")
    assert resp.status_int == 400
    assert error_message(resp) == \
        "Expected UUID for connector_uuid: bogus"


def test_deleting_node_removes_its_volumes(api, node):
    _connector(api, node)
    _target(api, node)
    assert api.delete("/v1/nodes/n1").status_int == 204
    assert api.get("/v1/volume/connectors").json["connectors"] == []
    assert api.get("/v1/volume/targets").json["targets"] == []


def test_paging(api, node):
    for i in range(3):
        _connector(api, node, connector_id=f"iqn.x:{i}")
    doc = api.get("/v1/volume/connectors?limit=2").json
    assert len(doc["connectors"]) == 2 and "marker=" in doc["next"]
