"""Retired nodes (1.61): cleaned, then parked in manageable; never provided."""

from __future__ import annotations

import pytest

from ironic.common import exception, states
from ironic.conductor import rpcapi
from ironic.tests.unit.conductor.test_lifecycle import (
    _node,
    _provision,
    _state,
)


def _active(env):
    uuid = _node(env[0])
    _provision(env, uuid, "manage")
    _provision(env, uuid, "provide")
    _provision(env, uuid, "active")
    assert _state(env, uuid)[0] == states.ACTIVE
    return uuid


def _retire(env, uuid, reason="end of warranty"):
    resp = env[0].patch(f"/v1/nodes/{uuid}", [
        {"op": "add", "path": "/retired", "value": True},
        {"op": "add", "path": "/retired_reason", "value": reason}])
    assert resp.status_int == 200, resp.body


def test_undeployed_retired_node_lands_in_manageable(env):
    uuid = _active(env)
    _retire(env, uuid)
    _provision(env, uuid, "deleted")
    assert _state(env, uuid) == (states.MANAGEABLE, None, None)
    node = env[0].get(f"/v1/nodes/{uuid}").json
    assert node["retired"] is True
    assert node["retired_reason"] == "end of warranty"
    assert node["instance_info"] == {}


def test_provide_refused_for_retired_node(env):
    uuid = _node(env[0])
    _provision(env, uuid, "manage")
    _retire(env, uuid)
    resp = _provision(env, uuid, "provide", status=400)
    assert "retired" in resp.json["error_message"]
    assert _state(env, uuid)[0] == states.MANAGEABLE
    # Unretiring lets the node be provided again, and forgets the reason.
    resp = env[0].patch(f"/v1/nodes/{uuid}", [
        {"op": "replace", "path": "/retired", "value": False}])
    assert resp.status_int == 200
    assert resp.json["retired_reason"] is None
    _provision(env, uuid, "provide")
    assert _state(env, uuid) == (states.AVAILABLE, None, None)


def test_retired_node_can_still_be_cleaned_manually(env):
    uuid = _node(env[0])
    _provision(env, uuid, "manage")
    _retire(env, uuid)
    _provision(env, uuid, "clean", clean_steps=[
        {"interface": "bios", "step": "factory_reset"}])
    assert _state(env, uuid) == (states.MANAGEABLE, None, None)


def test_available_node_cannot_be_retired(env):
    uuid = _node(env[0])
    _provision(env, uuid, "manage")
    _provision(env, uuid, "provide")
    resp = env[0].patch(f"/v1/nodes/{uuid}", [
        {"op": "add", "path": "/retired", "value": True}])
    assert resp.status_int == 409


def test_conductor_refuses_provide_of_retired_node(env):
    uuid = _node(env[0])
    _provision(env, uuid, "manage")
    _retire(env, uuid)
    node = env[0].get(f"/v1/nodes/{uuid}").json
    with pytest.raises(exception.NodeIsRetired):
        rpcapi.get_api().do_provisioning_action({}, node, "provide")
