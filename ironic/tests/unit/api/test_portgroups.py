"""Port groups through the WSGI application."""

import pytest

from ironic.tests.fixtures import error_message

MAC = "52:54:00:aa:bb:cc"


@pytest.fixture
def newest(monkeypatch):
    return "1.110"


def _node(api, **fields):
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", **fields})
    assert resp.status_int == 201, resp.body
    return resp.json


def _pg(api, node, version=None, **fields):
    resp = api.post("/v1/portgroups", {"node_uuid": node["uuid"], **fields},
                    version=version)
    assert resp.status_int == 201, resp.body
    return resp.json


def _port(api, node, address, **fields):
    resp = api.post("/v1/ports", {"node_uuid": node["uuid"],
                                  "address": address, **fields})
    assert resp.status_int == 201, resp.body
    return resp.json


def _list(api, path="/v1/portgroups", **kw):
    resp = api.get(path, **kw)
    assert resp.status_int == 200, resp.body
    return resp.json["portgroups"]


def test_create_and_show(api):
    node = _node(api)
    resp = api.post("/v1/portgroups", {"node_uuid": node["uuid"],
                                       "name": "bond0",
                                       "address": MAC.upper(),
                                       "mode": "802.3ad",
                                       "properties": {"miimon": "100"}})
    assert resp.status_int == 201, resp.body
    pg = resp.json
    assert resp.headers["Location"].endswith(f"/v1/portgroups/{pg['uuid']}")
    assert pg["address"] == MAC
    assert pg["mode"] == "802.3ad"
    assert pg["standalone_ports_supported"] is True
    assert pg["ports"][0]["href"].endswith(f"/v1/portgroups/{pg['uuid']}/"
                                           "ports")
    assert api.get("/v1/portgroups/bond0").json == pg
    assert api.get(f"/v1/portgroups/{pg['uuid']}").json == pg


def test_versions(api, config):
    node = _node(api)
    assert api.get("/v1/portgroups", version="1.22").status_int == 404
    assert api.post("/v1/portgroups", {"node_uuid": node["uuid"]},
                    version="1.22").status_int == 404
    resp = api.post("/v1/portgroups", {"node_uuid": node["uuid"],
                                       "mode": "balance-rr"},
                    version="1.25")
    assert resp.status_int == 406
    config(default_portgroup_mode="balance-tlb")
    pg = _pg(api, node, version="1.23")
    assert set(pg) == {"uuid", "name", "address", "node_uuid", "extra",
                       "internal_info", "standalone_ports_supported",
                       "links", "created_at", "updated_at"}
    assert api.get(f"/v1/portgroups/{pg['uuid']}").json["mode"] == \
        "balance-tlb"
    sub = f"/v1/portgroups/{pg['uuid']}/ports"
    assert api.get(sub, version="1.23").status_int == 404
    assert api.get(f"/v1/nodes/{node['uuid']}/portgroups",
                   version="1.23").status_int == 404


def test_physical_network_with_a_higher_maximum(api, newest):
    node = _node(api)
    assert api.post("/v1/portgroups", {"node_uuid": node["uuid"],
                                       "physical_network": "p1"},
                    version="1.101").status_int == 406
    pg = _pg(api, node, version=newest, physical_network="p1",
             category="storage")
    assert (pg["physical_network"], pg["category"]) == ("p1", "storage")
    old = api.get(f"/v1/portgroups/{pg['uuid']}", version="1.102").json
    assert old["physical_network"] == "p1" and "category" not in old
    assert api.patch(f"/v1/portgroups/{pg['uuid']}", [
        {"op": "remove", "path": "/category"}],
        version="1.102").status_int == 406


@pytest.mark.parametrize("body", [
    {"name": "has space"},
    {"name": "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"},
    {"address": "nope"},
    {"uuid": "nope"},
    {"standalone_ports_supported": "maybe"},
    {"extra": []},
    {"bogus": 1},
    {"internal_info": {}},
    {"node_uuid": "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"},
    {"node_uuid": None},
])
def test_bad_create_is_400(api, body):
    node = _node(api)
    resp = api.post("/v1/portgroups", {"node_uuid": node["uuid"], **body})
    assert resp.status_int == 400, resp.body
    error_message(resp)
    assert _list(api) == []


def test_duplicates_are_409(api):
    node = _node(api)
    _pg(api, node, name="bond0", address=MAC)
    assert api.post("/v1/portgroups", {"node_uuid": node["uuid"],
                                       "name": "bond0"}).status_int == 409
    assert api.post("/v1/portgroups", {"node_uuid": node["uuid"],
                                       "address": MAC}).status_int == 409
    assert len(_list(api)) == 1


def test_list_filters_and_subresources(api):
    n1, n2 = _node(api, name="one"), _node(api, name="two")
    g1 = _pg(api, n1, name="g1", address=MAC)
    g2 = _pg(api, n2, name="g2")
    assert _list(api) == [
        {"uuid": g1["uuid"], "address": MAC, "name": "g1",
         "links": g1["links"]},
        {"uuid": g2["uuid"], "address": None, "name": "g2",
         "links": g2["links"]}]
    assert [g["uuid"] for g in _list(api, "/v1/portgroups?node=two")] == \
        [g2["uuid"]]
    assert [g["uuid"] for g in _list(api, f"/v1/portgroups?address={MAC}")
            ] == [g1["uuid"]]
    assert [g["uuid"] for g in _list(api, "/v1/nodes/one/portgroups")] == \
        [g1["uuid"]]
    detail = _list(api, "/v1/portgroups/detail")
    assert detail[0] == api.get("/v1/portgroups/g1").json
    assert api.get("/v1/portgroups?fields=mode").status_int == 200
    assert api.get("/v1/portgroups?shard=x",
                   version="1.105").status_int == 406
    assert api.get("/v1/portgroups?shard=x",
                   version="1.106").status_int == 200
    assert api.get("/v1/portgroups?node=ghost").status_int == 404
    # As Ironic 39: the port group is looked up (404), then refused.
    resp = api.get("/v1/nodes/one/portgroups/g1")
    assert resp.status_int == 400
    assert error_message(resp) == "Malformed request URI."
    resp = api.get("/v1/nodes/one/portgroups/ghost")
    assert resp.status_int == 404
    assert error_message(resp) == "Portgroup ghost could not be found."
    for method in ("DELETE", "PATCH"):
        resp = api.request(method, "/v1/nodes/one/portgroups/g1", [])
        assert resp.status_int == 400, resp.body
        resp = api.request(method, "/v1/nodes/one/portgroups/ghost", [])
        assert resp.status_int == 404, resp.body
    # A segment after an item names the fields to show.
    resp = api.get("/v1/portgroups/g1/bogus")
    assert resp.status_int == 400
    assert error_message(resp) == 'Field(s) "bogus" are not valid'
    assert set(api.get("/v1/portgroups/g1/mode").json) == {"mode", "links"}


def test_ports_of_a_portgroup(api):
    node = _node(api)
    pg = _pg(api, node, name="bond0")
    member = _port(api, node, "52:54:00:00:00:01",
                   portgroup_uuid=pg["uuid"])
    _port(api, node, "52:54:00:00:00:02")
    assert member["portgroup_uuid"] == pg["uuid"]
    ports = api.get("/v1/portgroups/bond0/ports").json["ports"]
    assert [p["uuid"] for p in ports] == [member["uuid"]]
    detail = api.get("/v1/portgroups/bond0/ports/detail").json["ports"]
    assert detail[0]["portgroup_uuid"] == pg["uuid"]
    assert [p["uuid"] for p in
            api.get("/v1/ports?portgroup=bond0").json["ports"]] == \
        [member["uuid"]]
    assert api.get("/v1/portgroups/ghost/ports").status_int == 404


def test_port_membership_rules(api):
    n1, n2 = _node(api), _node(api)
    pg = _pg(api, n1, standalone_ports_supported=False)
    other = api.post("/v1/ports", {"node_uuid": n2["uuid"],
                                   "address": "52:54:00:00:00:01",
                                   "portgroup_uuid": pg["uuid"]})
    assert other.status_int == 400
    pxe = api.post("/v1/ports", {"node_uuid": n1["uuid"],
                                 "address": "52:54:00:00:00:01",
                                 "portgroup_uuid": pg["uuid"]})
    assert pxe.status_int == 409
    ghost = api.post("/v1/ports", {
        "node_uuid": n1["uuid"], "address": "52:54:00:00:00:01",
        "portgroup_uuid": "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"})
    assert ghost.status_int == 400
    _port(api, n1, "52:54:00:00:00:01", portgroup_uuid=pg["uuid"],
          pxe_enabled=False, physical_network="a")
    mixed = api.post("/v1/ports", {"node_uuid": n1["uuid"],
                                   "address": "52:54:00:00:00:02",
                                   "portgroup_uuid": pg["uuid"],
                                   "pxe_enabled": False,
                                   "physical_network": "b"})
    assert mixed.status_int == 409
    assert len(api.get("/v1/ports").json["ports"]) == 1


def test_patch(api):
    node = _node(api)
    pg = _pg(api, node, name="bond0")
    resp = api.patch("/v1/portgroups/bond0", [
        {"op": "replace", "path": "/name", "value": "bond1"},
        {"op": "add", "path": "/properties/miimon", "value": 100},
        {"op": "replace", "path": "/address", "value": MAC}])
    assert resp.status_int == 200, resp.body
    assert resp.json["name"] == "bond1"
    assert resp.json["properties"] == {"miimon": 100}
    assert api.get(f"/v1/portgroups/{pg['uuid']}").json == resp.json


@pytest.mark.parametrize("patch", [
    [{"op": "remove", "path": "/node_uuid"}],
    [{"op": "replace", "path": "/internal_info", "value": {}}],
    [{"op": "replace", "path": "/name", "value": "bad name"}],
    [{"op": "replace", "path": "/uuid",
      "value": "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"}],
    [{"op": "add", "path": "/extra/a", "value": 1},
     {"op": "replace", "path": "/address", "value": "bad"}],
])
def test_bad_patch_is_400_and_changes_nothing(api, patch):
    node = _node(api)
    pg = _pg(api, node, name="bond0")
    resp = api.patch("/v1/portgroups/bond0", patch)
    assert resp.status_int == 400, resp.body
    assert api.get("/v1/portgroups/bond0").json == pg


def test_patch_keeps_members_consistent(api):
    n1, n2 = _node(api), _node(api)
    pg = _pg(api, n1, name="bond0")
    _port(api, n1, "52:54:00:00:00:01", portgroup_uuid=pg["uuid"])
    move = api.patch("/v1/portgroups/bond0", [
        {"op": "replace", "path": "/node_uuid", "value": n2["uuid"]}])
    assert move.status_int == 400
    no_standalone = api.patch("/v1/portgroups/bond0", [
        {"op": "replace", "path": "/standalone_ports_supported",
         "value": False}])
    assert no_standalone.status_int == 409
    assert api.get("/v1/portgroups/bond0").json == pg


def test_delete(api):
    node = _node(api)
    pg = _pg(api, node, name="bond0")
    port = _port(api, node, "52:54:00:00:00:01", portgroup_uuid=pg["uuid"])
    resp = api.delete("/v1/portgroups/bond0")
    assert resp.status_int == 400
    assert pg["uuid"] in error_message(resp)
    assert api.delete(f"/v1/ports/{port['uuid']}").status_int == 204
    assert api.delete("/v1/portgroups/bond0").status_int == 204
    assert api.get("/v1/portgroups/bond0").status_int == 404
    assert api.get("/v1/portgroups/bad%20name").status_int == 400


def test_locked_node_refuses_portgroup_changes_with_409(api):
    from ironic.db import api as db_api
    node = _node(api)
    pg = _pg(api, node, name="bond0")
    dbapi = db_api.get_instance()
    dbapi.update_node(dbapi.get_node_by_uuid(node["uuid"]).id,
                      {"reservation": "conductor-1"})
    assert api.post("/v1/portgroups",
                    {"node_uuid": node["uuid"]}).status_int == 409
    assert api.patch("/v1/portgroups/bond0", [
        {"op": "add", "path": "/extra/a", "value": 1}]).status_int == 409
    assert api.delete("/v1/portgroups/bond0").status_int == 409
    assert _list(api, "/v1/portgroups/detail") == [
        api.get("/v1/portgroups/bond0").json]
    assert api.get("/v1/portgroups/bond0").json == pg
