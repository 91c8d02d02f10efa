"""/v1/allocations and /v1/nodes/{node}/allocation, with the conductor's
allocation process running in-process behind the ``none`` transport."""

from __future__ import annotations

import pytest

from ironic.common import rpc, states
from ironic.db import api as db_api
from ironic.tests import fixtures as ifx

V = "1.79"


@pytest.fixture
def env(api_newest, config):
    config("conductor", node_locked_retry_attempts=0)
    api_newest.version = V
    return api_newest


def _wait():
    for host in rpc.local_hosts():
        assert rpc._LOCAL[host].pool.wait_idle(10)


def _node(api, rc="gold", state=states.AVAILABLE, traits=(), **extra):
    resp = api.post("/v1/nodes", {"driver": "fake-hardware",
                                  "resource_class": rc, **extra})
    assert resp.status_int == 201, resp.body
    uuid = resp.json["uuid"]
    dbapi = db_api.get_instance()
    node_id = dbapi.get_node_by_uuid(uuid).id
    dbapi.update_node(node_id, {"provision_state": state})
    if traits:
        dbapi.set_node_traits(node_id, list(traits))
    return uuid


def _create(api, status=201, **body):
    resp = api.post("/v1/allocations", body)
    assert resp.status_int == status, resp.body
    if status >= 400:
        ifx.error_message(resp)
        return resp
    _wait()
    return api.get(f"/v1/allocations/{resp.json['uuid']}").json


def test_allocation_picks_matching_node_and_sets_instance(env):
    _node(env, rc="silver")
    _node(env, traits=["CUSTOM_A"])
    want = _node(env, traits=["CUSTOM_A", "CUSTOM_B"])
    alloc = _create(env, resource_class="gold",
                    traits=["CUSTOM_A", "CUSTOM_B"], name="a1",
                    extra={"k": "v"})
    assert alloc["state"] == "active", alloc
    assert alloc["node_uuid"] == want
    assert alloc["last_error"] is None
    assert alloc["extra"] == {"k": "v"}
    assert set(alloc) == {"uuid", "name", "node_uuid", "state",
                          "last_error", "resource_class", "traits",
                          "candidate_nodes", "extra", "owner", "created_at",
                          "updated_at", "links"}
    node = env.get(f"/v1/nodes/{want}").json
    assert node["instance_uuid"] == alloc["uuid"]
    assert node["allocation_uuid"] == alloc["uuid"]
    assert node["instance_info"]["traits"] == ["CUSTOM_A", "CUSTOM_B"]
    by_node = env.get(f"/v1/nodes/{want}/allocation").json
    assert by_node["uuid"] == alloc["uuid"]
    assert env.get("/v1/allocations/a1").json["uuid"] == alloc["uuid"]


def test_no_matching_node_is_error_with_last_error(env):
    _node(env, maintenance=True)
    _node(env, state=states.MANAGEABLE)
    alloc = _create(env, resource_class="gold")
    assert alloc["state"] == "error"
    assert "No available nodes" in alloc["last_error"]
    assert alloc["node_uuid"] is None


def test_candidate_nodes_by_name_and_uuid(env):
    _node(env, name="n1")
    n2 = _node(env, name="n2")
    alloc = _create(env, resource_class="gold", candidate_nodes=["n2"])
    assert alloc["candidate_nodes"] == [n2]
    assert alloc["node_uuid"] == n2
    resp = _create(env, 400, resource_class="gold",
                   candidate_nodes=["nope"])
    assert "nope" in ifx.error_message(resp)


def test_node_named_like_allocation_is_preferred(env):
    for i in range(5):
        _node(env, name=f"other-{i}")
    want = _node(env, name="web-1")
    alloc = _create(env, resource_class="gold", name="web-1")
    assert alloc["node_uuid"] == want


def test_owner_restricts_nodes(env):
    _node(env)
    leased = _node(env, lessee="proj")
    alloc = _create(env, resource_class="gold", owner="proj")
    assert alloc["node_uuid"] == leased
    assert alloc["owner"] == "proj"
    assert env.get("/v1/allocations?owner=proj").json["allocations"][0][
        "uuid"] == alloc["uuid"]
    assert env.post("/v1/allocations", {"resource_class": "gold",
                                        "owner": "p"},
                    version="1.59").status_int == 406
    assert "owner" not in env.get(f"/v1/allocations/{alloc['uuid']}",
                                  version="1.59").json


def test_delete_allocation_frees_node(env):
    uuid = _node(env)
    alloc = _create(env, resource_class="gold")
    assert env.delete(f"/v1/allocations/{alloc['uuid']}").status_int == 204
    node = env.get(f"/v1/nodes/{uuid}").json
    assert node["instance_uuid"] is None
    assert node["allocation_uuid"] is None
    assert "traits" not in node["instance_info"]
    assert env.get(f"/v1/allocations/{alloc['uuid']}").status_int == 404
    assert env.get(f"/v1/nodes/{uuid}/allocation").status_int == 404


def test_delete_through_node_and_refused_while_active(env):
    uuid = _node(env)
    alloc = _create(env, resource_class="gold")
    db_api.get_instance().update_node(
        db_api.get_instance().get_node_by_uuid(uuid).id,
        {"provision_state": states.ACTIVE})
    resp = env.delete(f"/v1/nodes/{uuid}/allocation")
    assert resp.status_int == 409
    ifx.error_message(resp)
    env.patch(f"/v1/nodes/{uuid}", [{"op": "add", "path": "/maintenance",
                                     "value": True}])
    assert env.delete(f"/v1/nodes/{uuid}/allocation").status_int == 204
    assert env.get(f"/v1/allocations/{alloc['uuid']}").status_int == 404


def test_backfill_deployed_node(env):
    uuid = _node(env, state=states.ACTIVE, traits=["CUSTOM_X"])
    resp = env.post("/v1/allocations", {"node": uuid,
                                        "traits": ["CUSTOM_X"]})
    assert resp.status_int == 201, resp.body
    assert resp.json["state"] == "active"
    assert resp.json["node_uuid"] == uuid
    assert resp.json["resource_class"] == "gold"
    node = env.get(f"/v1/nodes/{uuid}").json
    assert node["instance_uuid"] == resp.json["uuid"]
    # Backfilling again, or a node not deployed, or bad combos: 4xx.
    again = env.post("/v1/allocations", {"node": uuid})
    assert again.status_int == 400
    assert "already" in ifx.error_message(again)
    avail = _node(env)
    assert env.post("/v1/allocations", {"node": avail}).status_int == 400
    assert env.post("/v1/allocations", {
        "node": avail, "candidate_nodes": [avail]}).status_int == 400
    assert env.post("/v1/allocations", {"node": "missing"}
                    ).status_int == 400
    assert env.post("/v1/allocations", {"node": uuid},
                    version="1.57").status_int == 406


def test_backfill_keeps_instance_uuid(env):
    uuid = _node(env, state=states.ACTIVE)
    instance = "8b3a4b5e-7d6c-4e1f-9a2b-3c4d5e6f7a8b"
    dbapi = db_api.get_instance()
    dbapi.update_node(dbapi.get_node_by_uuid(uuid).id,
                      {"instance_uuid": instance})
    resp = env.post("/v1/allocations", {"node": uuid})
    assert resp.status_int == 201, resp.body
    assert resp.json["uuid"] == instance


def test_patch_name_and_extra_from_157(env):
    _node(env)
    alloc = _create(env, resource_class="gold", name="old")
    url = f"/v1/allocations/{alloc['uuid']}"
    body = [{"op": "replace", "path": "/name", "value": "new"},
            {"op": "add", "path": "/extra/x", "value": 1}]
    assert env.patch(url, body, version="1.56").status_int == 405
    resp = env.patch(url, body)
    assert resp.status_int == 200, resp.body
    assert resp.json["name"] == "new" and resp.json["extra"] == {"x": 1}
    for bad in ([{"op": "replace", "path": "/resource_class",
                  "value": "x"}],
                [{"op": "replace", "path": "/name", "value": "a b"}],
                [{"op": "replace", "path": "/extra", "value": "str"}],
                {"not": "a list"}):
        resp = env.patch(url, bad)
        assert resp.status_int == 400, (bad, resp.body)
        ifx.error_message(resp)
    resp = env.patch(url, [{"op": "remove", "path": "/name"}])
    assert resp.json["name"] is None


def test_duplicate_name_and_uuid_are_409(env):
    alloc = _create(env, resource_class="gold", name="dup")
    assert alloc["state"] == "error"
    assert env.post("/v1/allocations", {"resource_class": "gold",
                                        "name": "dup"}).status_int == 409
    assert env.post("/v1/allocations", {"resource_class": "gold",
                                        "uuid": alloc["uuid"]}
                    ).status_int == 409


@pytest.mark.parametrize("body", [
    {},
    {"resource_class": ""},
    {"resource_class": "x" * 81},
    {"resource_class": "gold", "traits": ["lowercase"]},
    {"resource_class": "gold", "traits": "CUSTOM_A"},
    {"resource_class": "gold", "traits": [1]},
    {"resource_class": "gold", "candidate_nodes": "n1"},
    {"resource_class": "gold", "name": "bad name"},
    {"resource_class": "gold",
     "name": "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"},
    {"resource_class": "gold", "uuid": "not-a-uuid"},
    {"resource_class": "gold", "extra": []},
    {"resource_class": "gold", "state": "active"},
    {"resource_class": "gold", "node_uuid": "x"},
    [],
    "string",
])
def test_bad_create_bodies_are_400(env, body):
    resp = env.post("/v1/allocations", body)
    assert resp.status_int == 400, resp.body
    ifx.error_message(resp)
    assert env.get("/v1/allocations").json["allocations"] == []


def test_list_filters_fields_and_paging(env):
    _node(env)
    a1 = _create(env, resource_class="gold")
    a2 = _create(env, resource_class="silver")
    a3 = _create(env, resource_class="gold")
    lst = env.get("/v1/allocations").json["allocations"]
    assert [a["uuid"] for a in lst] == [a1["uuid"], a2["uuid"], a3["uuid"]]
    assert [a["uuid"] for a in env.get(
        "/v1/allocations?state=error").json["allocations"]] == [
        a2["uuid"], a3["uuid"]]
    assert [a["uuid"] for a in env.get(
        "/v1/allocations?resource_class=silver").json["allocations"]] == [
        a2["uuid"]]
    assert [a["uuid"] for a in env.get(
        f"/v1/allocations?node={a1['node_uuid']}").json["allocations"]] == [
        a1["uuid"]]
    page = env.get("/v1/allocations?limit=2&fields=uuid,state").json
    # Ironic 39 links every item, whatever fields names.
    assert [set(a) for a in page["allocations"]] == [
        {"uuid", "state", "links"}] * 2
    assert "marker=" in page["next"]
    rest = env.get(f"/v1/allocations?limit=2&marker="
                   f"{page['allocations'][-1]['uuid']}").json
    assert [a["uuid"] for a in rest["allocations"]] == [a3["uuid"]]
    desc = env.get("/v1/allocations?sort_key=created_at&sort_dir=desc")
    assert desc.status_int == 200
    for query in ("state=bogus", "sort_key=traits", "fields=bogus",
                  "node=missing", "marker=nope", "limit=x", "bogus=1"):
        resp = env.get(f"/v1/allocations?{query}")
        assert resp.status_int == 400, (query, resp.body)
        ifx.error_message(resp)
    assert env.get("/v1/allocations?owner=p", version="1.59"
                   ).status_int == 406


def test_not_found_and_versions(env):
    assert env.get("/v1/allocations/missing").status_int == 404
    assert env.get("/v1/allocations/1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
                   ).status_int == 404
    assert env.delete("/v1/allocations/missing").status_int == 404
    assert env.get("/v1/allocations", version="1.51").status_int == 404
    uuid = _node(env)
    assert env.get(f"/v1/nodes/{uuid}/allocation").status_int == 404
    assert "allocation_uuid" not in env.get(f"/v1/nodes/{uuid}",
                                            version="1.51").json
    assert "allocations" in env.get("/v1").json


def test_node_deletion_removes_its_allocation(env):
    uuid = _node(env)
    alloc = _create(env, resource_class="gold")
    dbapi = db_api.get_instance()
    dbapi.update_node(dbapi.get_node_by_uuid(uuid).id,
                      {"maintenance": True, "instance_uuid": None})
    assert env.delete(f"/v1/nodes/{uuid}").status_int == 204
    assert env.get(f"/v1/allocations/{alloc['uuid']}").status_int == 404


def test_removing_instance_uuid_ends_the_allocation(env):
    uuid = _node(env)
    alloc = _create(env, resource_class="gold")
    resp = env.patch(f"/v1/nodes/{uuid}", [
        {"op": "replace", "path": "/instance_uuid",
         "value": "8b3a4b5e-7d6c-4e1f-9a2b-3c4d5e6f7a8b"}])
    assert resp.status_int == 409
    resp = env.patch(f"/v1/nodes/{uuid}", [
        {"op": "remove", "path": "/instance_uuid"}])
    assert resp.status_int == 200, resp.body
    assert resp.json["allocation_uuid"] is None
    assert env.get(f"/v1/allocations/{alloc['uuid']}").status_int == 404


def test_tear_down_forgets_the_allocation(env):
    from ironic.conductor import allocations
    from ironic.objects.node import Node
    uuid = _node(env)
    alloc = _create(env, resource_class="gold")
    node = Node.get(uuid)
    node.instance_uuid = None
    allocations.forget_on_teardown(node)
    node.save()
    assert env.get(f"/v1/allocations/{alloc['uuid']}").status_int == 404
    assert env.get(f"/v1/nodes/{uuid}").json["allocation_uuid"] is None


def test_node_lists_show_allocation_uuid(env):
    uuid = _node(env)
    free = _node(env, rc="silver")
    alloc = _create(env, resource_class="gold")
    rows = env.get("/v1/nodes?fields=uuid,allocation_uuid").json["nodes"]
    assert {r["uuid"]: r["allocation_uuid"] for r in rows} == {
        uuid: alloc["uuid"], free: None}
    detail = env.get("/v1/nodes/detail").json["nodes"]
    assert {r["uuid"]: r["allocation_uuid"] for r in detail} == {
        uuid: alloc["uuid"], free: None}
    assert env.get("/v1/nodes?fields=allocation_uuid",
                   version="1.51").status_int == 406


def test_projects_allocate_for_themselves_under_keystone(api_newest, config,
                                                         monkeypatch):
    from keystonemiddleware import auth_token

    from ironic.api import app as api_app
    from ironic.common import policy
    from ironic.conf import CONF
    for group, opts in auth_token.list_opts():
        CONF.register_opts(opts, group=group)
    config("keystone_authtoken", www_authenticate_uri="http://127.0.0.1:9/v3")
    config(auth_strategy="keystone")
    policy.reset()
    # Stand in for keystonemiddleware having validated a token.
    monkeypatch.setattr(auth_token, "AuthProtocol", lambda app, _conf: app)
    client = ifx.ApiClient(api_app.setup_app(), V)
    admin = {"X-Roles": "admin,member,reader",
             "OpenStack-System-Scope": "all"}
    p1 = {"X-Roles": "member,reader", "X-Project-Id": "p1"}
    p2 = {"X-Roles": "member,reader", "X-Project-Id": "p2"}
    p1_reader = {"X-Roles": "reader", "X-Project-Id": "p1"}
    node = client.post("/v1/nodes", {"driver": "fake-hardware",
                                     "resource_class": "gold",
                                     "owner": "p1"}, headers=admin).json
    dbapi = db_api.get_instance()
    dbapi.update_node(dbapi.get_node_by_uuid(node["uuid"]).id,
                      {"provision_state": states.AVAILABLE})
    # A project may not allocate for another one, nor may a reader.
    assert client.post("/v1/allocations", {"resource_class": "gold",
                                           "owner": "p2"},
                       headers=p1).status_int == 403
    assert client.post("/v1/allocations", {"resource_class": "gold"},
                       headers=p1_reader).status_int == 403
    resp = client.post("/v1/allocations", {"resource_class": "gold"},
                       headers=p1)
    assert resp.status_int == 201, resp.body
    assert resp.json["owner"] == "p1"
    _wait()
    uuid = resp.json["uuid"]
    assert client.get(f"/v1/allocations/{uuid}", headers=p1_reader
                      ).json["node_uuid"] == node["uuid"]
    assert [a["uuid"] for a in client.get(
        "/v1/allocations", headers=p1_reader).json["allocations"]] == [uuid]
    assert client.get("/v1/allocations", headers=p2).json[
        "allocations"] == []
    assert client.get(f"/v1/allocations/{uuid}", headers=p2
                      ).status_int == 404
    assert client.delete(f"/v1/allocations/{uuid}", headers=p2
                         ).status_int == 404
    assert client.delete(f"/v1/allocations/{uuid}", headers=p1_reader
                         ).status_int == 403
    assert client.delete(f"/v1/allocations/{uuid}", headers=p1
                         ).status_int == 204
    policy.reset()
