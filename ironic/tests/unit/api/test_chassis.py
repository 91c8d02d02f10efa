"""Chassis through the WSGI application."""

import pytest

from ironic.tests.fixtures import error_message

GHOST = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"


def _chassis(api, **fields):
    resp = api.post("/v1/chassis", fields)
    assert resp.status_int == 201, resp.body
    return resp.json


def _list(api, path="/v1/chassis", **kw):
    resp = api.get(path, **kw)
    assert resp.status_int == 200, resp.body
    return resp.json["chassis"]


def test_create_show_list(api):
    resp = api.post("/v1/chassis", {"description": "rack 1",
                                    "extra": {"row": "A"}})
    assert resp.status_int == 201, resp.body
    ch = resp.json
    assert resp.headers["Location"].endswith(f"/v1/chassis/{ch['uuid']}")
    assert set(ch) == {"uuid", "description", "extra", "links", "nodes",
                       "created_at", "updated_at"}
    assert ch["nodes"][0]["href"].endswith(f"/v1/chassis/{ch['uuid']}/nodes")
    assert api.get(f"/v1/chassis/{ch['uuid']}").json == ch
    assert _list(api) == [{"uuid": ch["uuid"], "description": "rack 1",
                           "links": ch["links"]}]
    assert _list(api, "/v1/chassis/detail") == [ch]
    fields = _list(api, "/v1/chassis?fields=extra", version="1.8")
    assert fields == [{"extra": {"row": "A"}, "links": ch["links"]}]
    assert api.get("/v1/chassis?fields=extra",
                   version="1.7").status_int == 406


@pytest.mark.parametrize("body", [
    {"uuid": "nope"}, {"description": 5}, {"description": "x" * 256},
    {"extra": "x"}, {"nodes": []}, {"bogus": 1},
])
def test_bad_create_is_400(api, body):
    resp = api.post("/v1/chassis", body)
    assert resp.status_int == 400
    error_message(resp)
    assert _list(api) == []


def test_duplicate_uuid_is_409(api):
    _chassis(api, uuid=GHOST)
    assert api.post("/v1/chassis", {"uuid": GHOST}).status_int == 409


def test_get_errors(api):
    assert api.get(f"/v1/chassis/{GHOST}").status_int == 404
    assert api.get("/v1/chassis/not-a-uuid").status_int == 400
    assert api.get(f"/v1/chassis/{GHOST}/nodes").status_int == 404
    assert api.get("/v1/chassis?bogus=1").status_int == 400


def test_pagination(api):
    made = [_chassis(api, description=str(i))["uuid"] for i in range(5)]
    seen, url = [], "/v1/chassis?limit=2"
    while url:
        doc = api.get(url).json
        seen += [c["uuid"] for c in doc["chassis"]]
        url = doc.get("next", "").replace("http://localhost", "") or None
    assert seen == made
    desc = _list(api, "/v1/chassis?sort_key=description&sort_dir=desc")
    assert [c["description"] for c in desc] == ["4", "3", "2", "1", "0"]
    assert api.get("/v1/chassis?sort_key=extra").status_int == 400


def test_patch(api):
    ch = _chassis(api, description="old")
    url = f"/v1/chassis/{ch['uuid']}"
    resp = api.patch(url, [{"op": "replace", "path": "/description",
                            "value": "new"},
                           {"op": "add", "path": "/extra/a", "value": 1}])
    assert resp.status_int == 200, resp.body
    assert (resp.json["description"], resp.json["extra"]) == ("new",
                                                              {"a": 1})
    for bad in ([{"op": "replace", "path": "/uuid", "value": GHOST}],
                [{"op": "add", "path": "/nodes", "value": []}],
                [{"op": "replace", "path": "/description", "value": 1}]):
        assert api.patch(url, bad).status_int == 400
    assert api.get(url).json == resp.json
    removed = api.patch(url, [{"op": "remove", "path": "/description"}])
    assert removed.json["description"] is None


def test_nodes_of_a_chassis_and_delete(api):
    ch = _chassis(api)
    other = _chassis(api)
    node = api.post("/v1/nodes", {"driver": "fake-hardware",
                                  "chassis_uuid": ch["uuid"]}).json
    api.post("/v1/nodes", {"driver": "fake-hardware",
                           "chassis_uuid": other["uuid"]})
    nodes = api.get(f"/v1/chassis/{ch['uuid']}/nodes").json["nodes"]
    assert [n["uuid"] for n in nodes] == [node["uuid"]]
    detail = api.get(f"/v1/chassis/{ch['uuid']}/nodes/detail").json
    assert detail["nodes"][0]["chassis_uuid"] == ch["uuid"]
    # As Ironic 39: a node is shown and deleted at /v1/nodes only.
    resp = api.get(f"/v1/chassis/{ch['uuid']}/nodes/{node['uuid']}")
    assert resp.status_int == 400
    assert error_message(resp) == "Malformed request URI."
    resp = api.delete(f"/v1/chassis/{ch['uuid']}/nodes/{node['uuid']}")
    assert resp.status_int == 404
    assert error_message(resp) == "Resource could not be found."
    resp = api.delete(f"/v1/chassis/{ch['uuid']}")
    assert resp.status_int == 400
    assert ch["uuid"] in error_message(resp)
    assert api.delete(f"/v1/nodes/{node['uuid']}").status_int == 204
    assert api.delete(f"/v1/chassis/{ch['uuid']}").status_int == 204
    assert api.get(f"/v1/chassis/{ch['uuid']}").status_int == 404
