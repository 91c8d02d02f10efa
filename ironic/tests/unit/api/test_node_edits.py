"""Node PATCH and DELETE go through the conductor, which holds the lock."""

from __future__ import annotations

import pytest

from ironic.common import states
from ironic.db import api as db_api
from ironic.tests import fixtures as ifx


@pytest.fixture
def env(api_newest, config):
    # One retry, no wait: the bounded retry runs but the test never sleeps.
    config("conductor", node_locked_retry_attempts=1,
           node_locked_retry_interval=0)
    api_newest.version = "1.61"
    return api_newest


def _node(api, **extra):
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", **extra})
    assert resp.status_int == 201, resp.body
    return resp.json["uuid"]


def _lock(uuid, host="elsewhere"):
    dbapi = db_api.get_instance()
    dbapi.reserve_node(host, dbapi.get_node_by_uuid(uuid).id)


def _set(uuid, **values):
    dbapi = db_api.get_instance()
    dbapi.update_node(dbapi.get_node_by_uuid(uuid).id, values)


def test_patch_of_locked_node_is_409_and_changes_nothing(env):
    uuid = _node(env, extra={"a": 1})
    _lock(uuid)
    resp = env.patch(f"/v1/nodes/{uuid}",
                     [{"op": "add", "path": "/extra/b", "value": 2}])
    assert resp.status_int == 409
    assert "elsewhere" in ifx.error_message(resp)
    assert env.get(f"/v1/nodes/{uuid}").json["extra"] == {"a": 1}


def test_patch_saves_and_releases_the_lock(env):
    uuid = _node(env)
    resp = env.patch(f"/v1/nodes/{uuid}",
                     [{"op": "add", "path": "/extra/b", "value": 2},
                      {"op": "add", "path": "/maintenance", "value": True}])
    assert resp.status_int == 200, resp.body
    assert resp.json["extra"] == {"b": 2}
    assert resp.json["maintenance"] is True
    assert db_api.get_instance().get_node_by_uuid(uuid).reservation is None
    resp = env.patch(f"/v1/nodes/{uuid}",
                     [{"op": "replace", "path": "/maintenance",
                       "value": False}])
    assert resp.json["maintenance_reason"] is None


def test_patch_state_rules_are_checked_by_the_conductor(env):
    uuid = _node(env)
    resp = env.patch(f"/v1/nodes/{uuid}",
                     [{"op": "add", "path": "/protected", "value": True}])
    assert resp.status_int == 409
    assert "can only be made protected" in ifx.error_message(resp)
    _set(uuid, instance_uuid="9a0c4bcb-27b8-4b14-a7be-ee4c0a3d5d4e")
    resp = env.patch(f"/v1/nodes/{uuid}",
                     [{"op": "replace", "path": "/instance_uuid",
                       "value": "4b8e0d4e-5e53-4be4-9d11-6c5c5dbe5f5b"}])
    assert resp.status_int == 409


def _no_host(driver, group):
    return ('No valid host was found. Reason: No conductor service '
            f'registered which supports driver {driver} for conductor group '
            f'"{group}". Ensure the driver is valid and enabled.')


def test_patch_into_a_group_nobody_serves_is_400(env):
    uuid = _node(env)
    resp = env.patch(f"/v1/nodes/{uuid}",
                     [{"op": "add", "path": "/conductor_group",
                       "value": "NoWhere"}])
    assert resp.status_int == 400
    # As Ironic 39: the group as the node would store it.
    assert ifx.error_message(resp) == _no_host("fake-hardware", "nowhere")
    assert env.get(f"/v1/nodes/{uuid}").json["conductor_group"] == ""
    resp = env.patch(f"/v1/nodes/{uuid}",
                     [{"op": "replace", "path": "/driver", "value": "nope"},
                      {"op": "add", "path": "/conductor_group",
                       "value": "nowhere"}])
    assert ifx.error_message(resp) == _no_host("nope", "nowhere")


def test_create_in_a_group_nobody_serves_is_400(env):
    resp = env.post("/v1/nodes", {"driver": "fake-hardware",
                                  "conductor_group": "Foo"})
    assert resp.status_int == 400
    # As Ironic 39: the group as the request gave it.
    assert ifx.error_message(resp) == _no_host("fake-hardware", "Foo")
    resp = env.post("/v1/nodes", {"driver": "nope",
                                  "conductor_group": "foo"})
    assert ifx.error_message(resp) == _no_host("nope", "foo")
    assert env.get("/v1/nodes").json["nodes"] == []


def test_a_group_served_by_its_own_conductor(env):
    # Several conductors, one per group: each group takes its nodes.
    ifx.register_test_conductor("rack1-conductor", "rack1")
    uuid = _node(env, conductor_group="Rack1")
    assert env.get(f"/v1/nodes/{uuid}").json["conductor_group"] == "rack1"
    uuid = _node(env)
    resp = env.patch(f"/v1/nodes/{uuid}",
                     [{"op": "add", "path": "/conductor_group",
                       "value": "rack1"}])
    assert resp.status_int == 200, resp.body
    assert resp.json["conductor_group"] == "rack1"


def test_empty_patch_needs_no_conductor(env):
    uuid = _node(env, name="same")
    resp = env.patch(f"/v1/nodes/{uuid}",
                     [{"op": "replace", "path": "/name", "value": "same"}])
    assert resp.status_int == 200


def test_delete_of_locked_node_is_409(env):
    uuid = _node(env)
    _lock(uuid)
    resp = env.delete(f"/v1/nodes/{uuid}")
    assert resp.status_int == 409
    assert "elsewhere" in ifx.error_message(resp)
    assert env.get(f"/v1/nodes/{uuid}").status_int == 200


@pytest.mark.parametrize("state", [states.ACTIVE, states.DEPLOYING,
                                   states.CLEANING, states.DEPLOYWAIT])
def test_delete_of_busy_node_is_409_unless_maintenance(env, state):
    uuid = _node(env)
    _set(uuid, provision_state=state)
    resp = env.delete(f"/v1/nodes/{uuid}")
    assert resp.status_int == 409
    assert "maintenance" in ifx.error_message(resp)
    _set(uuid, maintenance=True)
    assert env.delete(f"/v1/nodes/{uuid}").status_int == 204
    assert env.get(f"/v1/nodes/{uuid}").status_int == 404


def test_delete_refuses_protected_and_associated_nodes(env):
    uuid = _node(env)
    _set(uuid, protected=True, maintenance=True)
    resp = env.delete(f"/v1/nodes/{uuid}")
    assert resp.status_int == 403
    assert "is protected" in ifx.error_message(resp)
    _set(uuid, protected=False,
         instance_uuid="9a0c4bcb-27b8-4b14-a7be-ee4c0a3d5d4e")
    resp = env.delete(f"/v1/nodes/{uuid}")
    assert resp.status_int == 409
    assert "9a0c4bcb" in ifx.error_message(resp)


def test_delete_removes_node_and_its_ports(env):
    uuid = _node(env)
    port = env.post("/v1/ports", {"node_uuid": uuid,
                                  "address": "52:54:00:12:34:56"})
    assert port.status_int == 201, port.body
    assert env.delete(f"/v1/nodes/{uuid}").status_int == 204
    assert env.get(f"/v1/ports/{port.json['uuid']}").status_int == 404
    assert env.delete(f"/v1/nodes/{uuid}").status_int == 404
