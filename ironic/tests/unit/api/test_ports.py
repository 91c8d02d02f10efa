"""Ports through the WSGI application."""

import functools
import inspect
import re
import uuid as uuidlib

import pytest

from ironic.tests import fixtures as ifx
from ironic.tests.fixtures import error_message

MAC = "52:54:00:12:34:56"
LLC = {"switch_id": "0a:1b:2c:3d:4e:5f", "port_id": "Ethernet1/1",
       "switch_info": "tor-1"}


@pytest.fixture
def newest(monkeypatch):
    """A version with every field up to 1.110."""
    return "1.110"


def _node(api, version=None, **fields):
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", **fields},
                    version=version)
    assert resp.status_int == 201, resp.body
    return resp.json


def _port(api, node, address=MAC, version=None, **fields):
    resp = api.post("/v1/ports", {"node_uuid": node["uuid"],
                                  "address": address, **fields},
                    version=version)
    assert resp.status_int == 201, resp.body
    return resp.json


def _ports(api, path="/v1/ports", **kw):
    resp = api.get(path, **kw)
    assert resp.status_int == 200, resp.body
    return resp.json["ports"]


def test_create_show_and_location(api):
    node = _node(api)
    resp = api.post("/v1/ports", {"node_uuid": node["uuid"],
                                  "address": "52:54:00:AB:CD:EF",
                                  "local_link_connection": LLC,
                                  "extra": {"rack": 4}}, version="1.38")
    assert resp.status_int == 201, resp.body
    port = resp.json
    assert resp.headers["Location"].endswith(f"/v1/ports/{port['uuid']}")
    assert port["address"] == "52:54:00:ab:cd:ef"
    assert port["node_uuid"] == node["uuid"]
    assert port["pxe_enabled"] is True
    assert port["local_link_connection"] == LLC
    assert port["internal_info"] == {}
    assert port["portgroup_uuid"] is None
    assert port["physical_network"] is None
    assert "is_smartnic" not in port and "name" not in port
    shown = api.get(f"/v1/ports/{port['uuid']}", version="1.38").json
    assert shown == port


def test_fields_follow_the_version(api):
    node = _node(api)
    port = _port(api, node)
    old = api.get(f"/v1/ports/{port['uuid']}", version="1.1").json
    assert set(old) == {"uuid", "address", "node_uuid", "extra", "links",
                        "created_at", "updated_at"}
    v18 = api.get(f"/v1/ports/{port['uuid']}", version="1.18").json
    assert set(v18) - set(old) == {"internal_info"}
    resp = api.post("/v1/ports", {"node_uuid": node["uuid"],
                                  "address": "52:54:00:00:00:01",
                                  "pxe_enabled": False}, version="1.18")
    assert resp.status_int == 406
    assert "pxe_enabled" in error_message(resp)


def test_later_fields_with_a_higher_maximum(api, newest):
    node = _node(api, name="n1")
    port = _port(api, node, version=newest, name="eth0", is_smartnic=False,
                 description="first NIC", vendor="acme", category="data",
                 physical_network="physnet1")
    assert (port["name"], port["vendor"], port["category"]) == \
        ("eth0", "acme", "data")
    assert api.get("/v1/ports/eth0", version=newest).json["uuid"] == \
        port["uuid"]
    # Before 1.88 a name is not an identifier.
    assert api.get("/v1/ports/eth0", version="1.87").status_int == 400
    resp = api.get(f"/v1/ports/{port['uuid']}", version="1.99").json
    assert "vendor" not in resp and resp["description"] == "first NIC"
    by_name = api.post("/v1/ports", {"node_ident": "n1",
                                     "address": "52:54:00:00:00:02"},
                       version="1.94")
    assert by_name.status_int == 201, by_name.body
    assert by_name.json["node_uuid"] == node["uuid"]
    # node_uuid takes a UUID only, at every version.
    for version in ("1.93", "1.94"):
        resp = api.post("/v1/ports", {"node_uuid": "n1",
                                      "address": "52:54:00:00:00:03"},
                        version=version)
        assert resp.status_int == 400
        assert error_message(resp) == "Expected UUID for node_uuid: n1"


def test_invalid_mac_is_400_and_creates_nothing(api):
    node = _node(api)
    for bad in ("zz:54:00:12:34:56", "52:54:00:12:34", "", 42):
        resp = api.post("/v1/ports", {"node_uuid": node["uuid"],
                                      "address": bad})
        assert resp.status_int == 400, bad
    assert _ports(api) == []


def test_duplicate_mac_is_409_whatever_the_case(api):
    node = _node(api)
    _port(api, node)
    resp = api.post("/v1/ports", {"node_uuid": node["uuid"],
                                  "address": MAC.upper()})
    assert resp.status_int == 409
    assert MAC in error_message(resp)
    assert len(_ports(api)) == 1


def test_unknown_or_invalid_node_is_400(api):
    resp = api.post("/v1/ports", {
        "node_uuid": "1be26c0b-03f2-4d2e-ae87-c02d7f33c123", "address": MAC})
    assert resp.status_int == 400
    assert "1be26c0b-03f2-4d2e-ae87-c02d7f33c123" in error_message(resp)
    assert api.post("/v1/ports", {"node_uuid": "not-a-uuid",
                                  "address": MAC}).status_int == 400
    assert api.post("/v1/ports", {"address": MAC}).status_int == 400
    assert _ports(api) == []


def test_unknown_attribute_and_bad_uuid_are_400(api):
    node = _node(api)
    resp = api.post("/v1/ports", {"node_uuid": node["uuid"], "address": MAC,
                                  "bogus": 1})
    assert resp.status_int == 400
    assert "bogus" in error_message(resp)
    resp = api.post("/v1/ports", {"node_uuid": node["uuid"], "address": MAC,
                                  "uuid": "nope"})
    assert resp.status_int == 400
    resp = api.post("/v1/ports", {"node_uuid": node["uuid"], "address": MAC,
                                  "internal_info": {"a": 1}})
    assert resp.status_int == 400
    # Before ports had names (1.88) an identifier must be a UUID; after,
    # anything else is looked up as a name.
    assert api.get("/v1/ports/not-a-uuid", version="1.87").status_int == 400
    assert api.get("/v1/ports/not-a-uuid", version="1.88").status_int == 404
    missing = api.get("/v1/ports/1be26c0b-03f2-4d2e-ae87-c02d7f33c123")
    assert missing.status_int == 404
    assert _ports(api) == []


@pytest.mark.parametrize("llc, version", [
    ({"switch_id": "0a:1b:2c:3d:4e:5f"}, "1.38"),          # no port_id
    ({"port_id": "1", "switch_id": "not-a-switch"}, "1.38"),
    ({"port_id": "1", "switch_id": "00:00:0a:1b:2c:3d:4e:5f\n"}, "1.38"),
    ({"port_id": "1", "switch_id": "0a:1b:2c:3d:4e:5f\n"}, "1.38"),
    ({"port_id": "1", "switch_id": "0a:1b:2c:3d:4e:5f", "x": 1}, "1.38"),
    ({"port_id": 1, "switch_id": "0a:1b:2c:3d:4e:5f"}, "1.38"),
    ({"network_type": "unmanaged"}, "1.63"),                # too new: 406
    ({"network_type": "other"}, "1.64"),
])
def test_bad_local_link_connection(api, newest, llc, version):
    node = _node(api)
    resp = api.post("/v1/ports", {"node_uuid": node["uuid"], "address": MAC,
                                  "local_link_connection": llc},
                    version=version)
    assert resp.status_int == (406 if version == "1.63" else 400)
    assert _ports(api) == []


def test_local_link_connection_variants(api, newest):
    node = _node(api)
    datapath = {"switch_id": "00:00:0a:1b:2c:3d:4e:5f", "port_id": "p1"}
    assert _port(api, node, "52:54:00:00:00:01", version="1.19",
                 local_link_connection=datapath)
    assert _port(api, node, "52:54:00:00:00:02", version="1.64",
                 local_link_connection={"network_type": "unmanaged"})
    smart = _port(api, node, "52:54:00:00:00:03", version="1.53",
                  is_smartnic=True,
                  local_link_connection={"port_id": "p", "hostname": "h"})
    assert smart["is_smartnic"] is True
    resp = api.post("/v1/ports", {"node_uuid": node["uuid"],
                                  "address": "52:54:00:00:00:04",
                                  "is_smartnic": True,
                                  "local_link_connection": LLC},
                    version="1.53")
    assert resp.status_int == 400
    assert "hostname" in error_message(resp)


def test_list_default_detail_and_fields(api, newest):
    node = _node(api)
    port = _port(api, node)
    listed = _ports(api)
    assert listed == [{"uuid": port["uuid"], "address": MAC,
                       "links": port["links"]}]
    detail = _ports(api, "/v1/ports/detail")
    assert detail[0] == api.get(f"/v1/ports/{port['uuid']}").json
    assert _ports(api, "/v1/ports?detail=True", version="1.43") == \
        _ports(api, "/v1/ports/detail", version="1.43")
    assert api.get("/v1/ports?detail=True",
                   version="1.42").status_int == 400
    only = _ports(api, "/v1/ports?fields=node_uuid,pxe_enabled")
    assert only == [{"node_uuid": node["uuid"], "pxe_enabled": True,
                     "links": port["links"]}]
    assert api.get("/v1/ports?fields=bogus").status_int == 400
    assert api.get("/v1/ports?fields=name", version="1.87").status_int == 406
    assert api.get("/v1/ports?fields=uuid&detail=True",
                   version=newest).status_int == 400
    assert api.get("/v1/ports?fields=uuid", version="1.7").status_int == 406
    assert api.get("/v1/ports?bogus=1").status_int == 400


def test_filters(api, newest):
    ifx.register_test_conductor("cg1-conductor", "cg1")
    n1 = _node(api, newest, name="one", shard="s1", conductor_group="CG1")
    n2 = _node(api, name="two")
    p1 = _port(api, n1, "52:54:00:00:00:01")
    p2 = _port(api, n2, "52:54:00:00:00:02")

    def uuids(query, version=None):
        return [p["uuid"] for p in _ports(api, "/v1/ports" + query,
                                          version=version)]

    assert uuids(f"?node={n1['uuid']}") == [p1["uuid"]]
    assert uuids("?node=two") == [p2["uuid"]]
    assert uuids(f"?node_uuid={n2['uuid']}&node=one") == [p2["uuid"]]
    assert uuids("?address=52:54:00:00:00:02") == [p2["uuid"]]
    # Six colon-separated octets only, as Ironic 39 takes them.
    assert api.get("/v1/ports?address=52-54-00-00-00-01").status_int == 400
    assert uuids("?address=52:54:00:00:00:09") == []
    assert uuids("?shard=s1", newest) == [p1["uuid"]]
    # Like the node filter, a comma-separated list of shards (the CLI's form).
    assert uuids("?shard=s9,s1", newest) == [p1["uuid"]]
    assert uuids("?conductor_groups=cg1,other", newest) == [p1["uuid"]]
    assert api.get("/v1/ports?shard=s1", version="1.81").status_int == 406
    assert api.get("/v1/ports?conductor_groups=x",
                   version="1.98").status_int == 406
    assert api.get("/v1/ports?node=ghost").status_int == 404
    assert api.get("/v1/ports?node_uuid=ghost").status_int == 400
    assert uuids("") == [p1["uuid"], p2["uuid"]]
    assert [p["uuid"] for p in _ports(api, "/v1/nodes/one/ports")] == \
        [p1["uuid"]]
    assert [p["uuid"] for p in
            _ports(api, f"/v1/nodes/{n2['uuid']}/ports/detail")] == \
        [p2["uuid"]]
    assert api.get("/v1/nodes/ghost/ports").status_int == 404


def test_node_subresource_only_lists(api):
    node = _node(api, name="one")
    port = _port(api, node)
    # As Ironic 39: 400, without looking the port (or the node) up.
    for resp in (
            api.get(f"/v1/nodes/one/ports/{port['uuid']}"),
            api.get(f"/v1/nodes/ghost/ports/{uuidlib.uuid4()}"),
            api.post("/v1/nodes/one/ports",
                     {"node_uuid": node["uuid"],
                      "address": "52:54:00:00:00:09"}),
            api.patch(f"/v1/nodes/one/ports/{port['uuid']}", []),
            api.delete(f"/v1/nodes/one/ports/{port['uuid']}"),
            api.get(f"/v1/portgroups/ghost/ports/{port['uuid']}")):
        assert resp.status_int == 400, resp.body
        assert error_message(resp) == "Malformed request URI."
    assert len(_ports(api)) == 1


def test_pagination_and_sorting(api):
    node = _node(api)
    macs = [f"52:54:00:00:00:{i:02x}" for i in (5, 3, 9, 1, 7)]
    created = [_port(api, node, m)["uuid"] for m in macs]
    seen, url = [], "/v1/ports?limit=2"
    while url:
        doc = api.get(url).json
        seen += [p["uuid"] for p in doc["ports"]]
        url = doc.get("next", "").replace("http://localhost", "") or None
    assert seen == created
    by_mac = _ports(api, "/v1/ports?sort_key=address&sort_dir=desc")
    assert [p["address"] for p in by_mac] == sorted(macs, reverse=True)
    assert api.get("/v1/ports?sort_key=extra").status_int == 400
    assert api.get("/v1/ports?sort_key=node_uuid").status_int == 400
    assert api.get("/v1/ports?sort_key=physical_network",
                   version="1.33").status_int == 406
    assert api.get("/v1/ports?sort_dir=up").status_int == 400
    assert api.get("/v1/ports?marker=bad").status_int == 400
    ghost = api.get("/v1/ports?marker=1be26c0b-03f2-4d2e-ae87-c02d7f33c123")
    assert ghost.status_int == 404


def test_patch(api):
    n1, n2 = _node(api), _node(api)
    port = _port(api, n1, local_link_connection=LLC)
    url = f"/v1/ports/{port['uuid']}"
    resp = api.patch(url, [
        {"op": "replace", "path": "/address", "value": "52:54:00:FF:00:01"},
        {"op": "replace", "path": "/node_uuid", "value": n2["uuid"]},
        {"op": "add", "path": "/extra/foo", "value": "bar"},
        {"op": "replace", "path": "/local_link_connection/port_id",
         "value": "Ethernet1/2"},
        {"op": "replace", "path": "/pxe_enabled", "value": False}])
    assert resp.status_int == 200, resp.body
    doc = resp.json
    assert doc["address"] == "52:54:00:ff:00:01"
    assert doc["node_uuid"] == n2["uuid"]
    assert doc["extra"] == {"foo": "bar"}
    assert doc["local_link_connection"]["port_id"] == "Ethernet1/2"
    assert doc["pxe_enabled"] is False
    assert doc["updated_at"] is not None
    assert api.get(url).json == doc


@pytest.mark.parametrize("patch", [
    [{"op": "replace", "path": "/uuid",
      "value": "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"}],
    [{"op": "add", "path": "/internal_info/a", "value": 1}],
    [{"op": "remove", "path": "/address"}],
    [{"op": "remove", "path": "/node_uuid"}],
    [{"op": "replace", "path": "/address", "value": "bad"}],
    [{"op": "replace", "path": "/node_uuid",
      "value": "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"}],
    [{"op": "add", "path": "/bogus", "value": 1}],
    [{"op": "add", "path": "/extra/a", "value": 1},
     {"op": "remove", "path": "/local_link_connection/port_id"}],
    [{"op": "replace", "path": "/extra/missing/x", "value": 1}],
])
def test_bad_patch_is_400_and_changes_nothing(api, patch):
    node = _node(api)
    port = _port(api, node, local_link_connection=LLC)
    url = f"/v1/ports/{port['uuid']}"
    resp = api.patch(url, patch)
    assert resp.status_int == 400, resp.body
    error_message(resp)
    assert api.get(url).json == port


def test_patch_duplicate_mac_is_409(api):
    node = _node(api)
    _port(api, node, "52:54:00:00:00:01")
    port = _port(api, node, "52:54:00:00:00:02")
    resp = api.patch(f"/v1/ports/{port['uuid']}", [
        {"op": "replace", "path": "/address", "value": "52:54:00:00:00:01"}])
    assert resp.status_int == 409
    assert api.get(f"/v1/ports/{port['uuid']}").json["address"] == \
        "52:54:00:00:00:02"


def test_patch_field_too_new_is_rejected(api):
    node = _node(api)
    port = _port(api, node)
    resp = api.patch(f"/v1/ports/{port['uuid']}", [
        {"op": "replace", "path": "/pxe_enabled", "value": False}],
        version="1.18")
    # As the reference answers: the field exists, this version is too old.
    assert resp.status_int == 406
    assert api.get(f"/v1/ports/{port['uuid']}").json["pxe_enabled"] is True


def test_delete(api):
    node = _node(api)
    port = _port(api, node)
    assert api.delete(f"/v1/ports/{port['uuid']}").status_int == 204
    assert api.get(f"/v1/ports/{port['uuid']}").status_int == 404
    assert api.delete(f"/v1/ports/{port['uuid']}").status_int == 404


def test_deleting_the_node_deletes_its_ports(api):
    node = _node(api)
    _port(api, node)
    assert api.delete(f"/v1/nodes/{node['uuid']}").status_int == 204
    assert _ports(api) == []


def test_v1_document_links_ports(api):
    doc = api.get("/v1").json
    assert doc["ports"][0]["href"].endswith("/v1/ports/")
    assert doc["chassis"][0]["href"].endswith("/v1/chassis/")
    assert "portgroups" not in api.get("/v1", version="1.22").json
    assert "portgroups" in doc


def test_locked_node_refuses_port_changes_with_409(api):
    from ironic.db import api as db_api
    node = _node(api)
    port = _port(api, node)
    free = _node(api)
    dbapi = db_api.get_instance()
    locked_id = dbapi.get_node_by_uuid(node["uuid"]).id
    dbapi.update_node(locked_id, {"reservation": "conductor-1"})
    url = f"/v1/ports/{port['uuid']}"
    created = api.post("/v1/ports", {"node_uuid": node["uuid"],
                                     "address": "52:54:00:00:00:02"})
    assert created.status_int == 409
    assert "conductor-1" in error_message(created)
    assert api.patch(url, [{"op": "add", "path": "/extra/a",
                            "value": 1}]).status_int == 409
    moved = api.patch(url, [{"op": "replace", "path": "/node_uuid",
                             "value": free["uuid"]}])
    assert moved.status_int == 409
    assert api.delete(url).status_int == 409
    assert _ports(api, "/v1/ports/detail") == [api.get(url).json]
    assert api.get(url).json["extra"] == {}
    dbapi.update_node(locked_id, {"reservation": None})
    assert api.delete(url).status_int == 204


def test_port_names_are_unique_and_node_name_key(api, newest):
    node = _node(api, name="n9")
    _port(api, node, version=newest, name="eth0")
    dup = api.post("/v1/ports", {"node_uuid": node["uuid"], "name": "eth0",
                                 "address": "52:54:00:00:00:09"},
                   version=newest)
    assert dup.status_int == 409
    assert "eth0" in error_message(dup)
    by_key = api.post("/v1/ports", {"node_ident": "n9",
                                    "address": "52:54:00:00:00:0a"},
                      version="1.94")
    assert by_key.status_int == 201, by_key.body
    assert by_key.json["node_uuid"] == node["uuid"]
    assert api.post("/v1/ports", {"node_ident": "n9",
                                  "address": "52:54:00:00:00:0b"},
                    version="1.93").status_int == 400
    uuid_name = api.post("/v1/ports", {
        "node_uuid": node["uuid"], "address": "52:54:00:00:00:0c",
        "name": "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"}, version=newest)
    assert uuid_name.status_int == 400
    assert len(_ports(api)) == 2


def test_moving_a_port_onto_a_locked_node_is_409(api):
    from ironic.db import api as db_api
    node, other = _node(api), _node(api)
    port = _port(api, node)
    dbapi = db_api.get_instance()
    dbapi.update_node(dbapi.get_node_by_uuid(other["uuid"]).id,
                      {"reservation": "conductor-2"})
    moved = api.patch(f"/v1/ports/{port['uuid']}",
                      [{"op": "replace", "path": "/node_uuid",
                        "value": other["uuid"]}])
    assert moved.status_int == 409
    assert "conductor-2" in error_message(moved)
    assert api.get(f"/v1/ports/{port['uuid']}").json["node_uuid"] == \
        node["uuid"]


@pytest.fixture
def db_calls(monkeypatch):
    """The database API calls the service makes (the outermost ones, not
    those one call makes of another), as (name, arguments)."""
    from ironic.db.sqlalchemy import api as sa_api

    calls: list[tuple[str, tuple]] = []
    depth = [0]

    def spy(name, func):
        @functools.wraps(func)
        def call(self, *args, **kwargs):
            if not depth[0]:
                calls.append((name, args))
            depth[0] += 1
            try:
                return func(self, *args, **kwargs)
            finally:
                depth[0] -= 1
        return call

    for name in dir(sa_api.Connection):
        func = inspect.getattr_static(sa_api.Connection, name)
        if not name.startswith("_") and inspect.isfunction(func):
            monkeypatch.setattr(sa_api.Connection, name, spy(name, func))
    return calls


def _node_reads(calls: list[tuple[str, tuple]]) -> list[str]:
    return [name for name, args in calls
            if re.match(r"(get|fetch)_nodes?_", name) or
            (name == "uuids_for_ids" and args[:1] == ("node",))]


def test_a_port_create_reads_its_node_once(api, db_calls):
    # The node the body names, its projects (policy) and its lock come
    # from one read; the answer's node_uuid from that read too.
    node = _node(api, name="once")
    db_calls.clear()
    port = _port(api, node)
    assert port["node_uuid"] == node["uuid"]
    assert _node_reads(db_calls) == ["fetch_node_with_traits"], db_calls
    assert [name for name, _ in db_calls].count("create_port") == 1
    db_calls.clear()
    by_name = api.post("/v1/ports", {"node_ident": "once",
                                     "address": "52:54:00:00:00:31"},
                       version="1.110")
    assert by_name.status_int == 201, by_name.body
    assert by_name.json["node_uuid"] == node["uuid"]
    assert _node_reads(db_calls) == ["fetch_node_with_traits"], db_calls
    # The answer is the port's document as a GET shows it.
    assert api.get(f"/v1/ports/{port['uuid']}").json == port


def test_a_portgroup_create_reads_its_node_once(api, db_calls):
    node = _node(api)
    db_calls.clear()
    resp = api.post("/v1/portgroups", {"node_uuid": node["uuid"]},
                    version="1.23")
    assert resp.status_int == 201, resp.body
    assert resp.json["node_uuid"] == node["uuid"]
    assert _node_reads(db_calls) == ["fetch_node_with_traits"], db_calls


def test_a_port_for_a_missing_node_is_400(api):
    missing = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
    for body in ({"node_uuid": missing}, {"node_uuid": missing.upper()},
                 {"node_ident": "nowhere"}):
        resp = api.post("/v1/ports", {"address": "52:54:00:00:00:51",
                                      **body}, version="1.110")
        assert resp.status_int == 400, resp.body
        ident = body.get("node_uuid") or body["node_ident"]
        assert f"Node {ident} could not be found" in error_message(resp)


def test_port_create_follows_the_node_projects(database, config,
                                               monkeypatch):
    # With rules enforced, the node read once still decides: a project's
    # admin wires its own node, not another project's.
    from keystonemiddleware import auth_token

    from ironic.api import app as api_app
    from ironic.common import policy
    from ironic.conf import CONF
    from ironic.tests import fixtures as ifx
    for group, opts in auth_token.list_opts():
        CONF.register_opts(opts, group=group)
    config(auth_strategy="keystone")
    policy.reset()
    monkeypatch.setattr(auth_token, "AuthProtocol", lambda app, _conf: app)
    ifx.register_test_conductor()
    try:
        client = ifx.ApiClient(api_app.setup_app())
        system = {"X-Roles": "admin,member,reader",
                  "OpenStack-System-Scope": "all"}
        p1_admin = {"X-Roles": "admin,member,reader", "X-Project-Id": "p1"}
        mine = client.post("/v1/nodes", {"driver": "fake-hardware",
                                         "owner": "p1"},
                           headers=system, version="1.50").json
        theirs = client.post("/v1/nodes", {"driver": "fake-hardware",
                                           "owner": "p2"},
                             headers=system, version="1.50").json
        ok = client.post("/v1/ports", {"node_uuid": mine["uuid"],
                                       "address": "52:54:00:00:00:41"},
                         headers=p1_admin)
        assert ok.status_int == 201, ok.body
        refused = client.post("/v1/ports", {"node_uuid": theirs["uuid"],
                                            "address": "52:54:00:00:00:42"},
                              headers=p1_admin)
        assert refused.status_int == 403, refused.body
        assert "baremetal:port:create" in ifx.error_message(refused)
    finally:
        policy.reset()
