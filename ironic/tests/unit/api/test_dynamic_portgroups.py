"""API 1.111: ports' available_for_dynamic_portgroup and port groups'
dynamic_portgroup, shown exactly from 1.111."""

import pytest

from ironic.tests.fixtures import error_message

NEW, OLD = "1.111", "1.110"
FLAG = "available_for_dynamic_portgroup"


@pytest.fixture
def node(api_newest):
    resp = api_newest.post("/v1/nodes", {"driver": "fake-hardware"})
    assert resp.status_int == 201, resp.body
    return resp.json


def _port(api, node, version=NEW, address="52:54:00:00:11:01", **fields):
    resp = api.post("/v1/ports", {"node_uuid": node["uuid"],
                                  "address": address, **fields},
                    version=version)
    assert resp.status_int == 201, resp.body
    return resp.json


def _flag(api, uuid):
    return api.get(f"/v1/ports/{uuid}", version=NEW).json[FLAG]


def test_port_flag_defaults_to_true_and_appears_at_1_111(api_newest, node):
    api = api_newest
    port = _port(api, node, version=OLD)
    assert FLAG not in port
    assert FLAG not in api.get(f"/v1/ports/{port['uuid']}",
                               version=OLD).json
    assert _flag(api, port["uuid"]) is True
    detail = api.get("/v1/ports/detail", version=NEW).json["ports"]
    assert detail[0][FLAG] is True
    old_detail = api.get("/v1/ports/detail", version=OLD).json["ports"]
    assert FLAG not in old_detail[0]
    # Not among the default fields of a plain list.
    assert FLAG not in api.get("/v1/ports", version=NEW).json["ports"][0]


def test_port_flag_in_fields_and_sort_needs_1_111(api_newest, node):
    api = api_newest
    port = _port(api, node, **{FLAG: False})
    _port(api, node, address="52:54:00:00:11:02")
    url = f"/v1/ports/{port['uuid']}?fields=uuid,{FLAG}"
    assert api.get(url, version=OLD).status_int == 406
    assert api.get(url, version=NEW).json[FLAG] is False
    assert api.get(f"/v1/ports?fields={FLAG}",
                   version=OLD).status_int == 406
    assert api.get(f"/v1/ports?sort_key={FLAG}",
                   version=OLD).status_int == 406
    ordered = api.get(f"/v1/ports?sort_key={FLAG}&fields=uuid,{FLAG}",
                      version=NEW).json["ports"]
    assert [p[FLAG] for p in ordered] == [False, True]


def test_port_flag_is_not_a_filter(api_newest, node):
    resp = api_newest.get(f"/v1/ports?{FLAG}=false", version=NEW)
    assert resp.status_int == 400


def test_create_port_with_the_flag(api_newest, node):
    api = api_newest
    resp = api.post("/v1/ports", {"node_uuid": node["uuid"],
                                  "address": "52:54:00:00:11:03",
                                  FLAG: False}, version=OLD)
    assert resp.status_int == 406
    assert FLAG in error_message(resp)
    for bad in ("yes", "false", None, 0):
        resp = api.post("/v1/ports", {"node_uuid": node["uuid"],
                                      "address": "52:54:00:00:11:03",
                                      FLAG: bad}, version=NEW)
        assert resp.status_int == 400, bad
    assert _port(api, node, **{FLAG: False})[FLAG] is False


def test_patch_port_flag(api_newest, node):
    api = api_newest
    uuid = _port(api, node)["uuid"]
    path = f"/v1/ports/{uuid}"
    off = [{"op": "replace", "path": f"/{FLAG}", "value": False}]
    assert api.patch(path, off, version=OLD).status_int == 406
    assert _flag(api, uuid) is True
    resp = api.patch(path, off, version=NEW)
    assert resp.status_int == 200, resp.body
    assert resp.json[FLAG] is False and _flag(api, uuid) is False
    for bad in (None, "true", 1):
        resp = api.patch(path, [{"op": "replace", "path": f"/{FLAG}",
                                 "value": bad}], version=NEW)
        assert resp.status_int == 400, bad
        assert _flag(api, uuid) is False
    # Removing the value restores the default.
    resp = api.patch(path, [{"op": "remove", "path": f"/{FLAG}"}],
                     version=NEW)
    assert resp.status_int == 200, resp.body
    assert _flag(api, uuid) is True
    # An older client's patch of other fields leaves the flag alone.
    api.patch(path, off, version=NEW)
    resp = api.patch(path, [{"op": "add", "path": "/extra/a",
                             "value": 1}], version=OLD)
    assert resp.status_int == 200, resp.body
    assert _flag(api, uuid) is False


def _pg(api, node, version=NEW, **fields):
    resp = api.post("/v1/portgroups", {"node_uuid": node["uuid"], **fields},
                    version=version)
    assert resp.status_int == 201, resp.body
    return resp.json


def test_portgroup_dynamic_flag_is_shown_from_1_111(api_newest, node):
    api = api_newest
    pg = _pg(api, node, version=OLD, name="bond0")
    assert "dynamic_portgroup" not in pg
    url = f"/v1/portgroups/{pg['uuid']}"
    assert api.get(url, version=NEW).json["dynamic_portgroup"] is False
    assert "dynamic_portgroup" not in api.get(url, version=OLD).json
    for query in ("?fields=dynamic_portgroup",):
        assert api.get(url + query, version=OLD).status_int == 406
        assert api.get(url + query, version=NEW).json[
            "dynamic_portgroup"] is False
    assert api.get("/v1/portgroups?sort_key=dynamic_portgroup",
                   version=OLD).status_int == 406
    listed = api.get("/v1/portgroups/detail", version=NEW).json
    assert listed["portgroups"][0]["dynamic_portgroup"] is False
    assert api.get("/v1/portgroups?dynamic_portgroup=true",
                   version=NEW).status_int == 400


def test_portgroup_dynamic_flag_is_read_only(api_newest, node):
    # The service decides which groups are dynamic; clients only read it.
    api = api_newest
    resp = api.post("/v1/portgroups", {"node_uuid": node["uuid"],
                                       "dynamic_portgroup": True},
                    version=NEW)
    assert resp.status_int == 400
    pg = _pg(api, node)
    for version in (NEW, OLD):
        resp = api.patch(f"/v1/portgroups/{pg['uuid']}", [
            {"op": "replace", "path": "/dynamic_portgroup", "value": True}],
            version=version)
        assert resp.status_int == 400, version
    assert api.get(f"/v1/portgroups/{pg['uuid']}",
                   version=NEW).json["dynamic_portgroup"] is False
