"""Runbooks (1.92) run by the clean and service verbs."""

from __future__ import annotations

import pytest

from ironic.common import states
from ironic.tests.unit.conductor.test_lifecycle import (
    _node,
    _provision,
    _state,
)

RAID = {"logical_disks": [{"size_gb": 10, "raid_level": "1",
                           "is_root_volume": True}]}


def _runbook(api, name, steps, **extra):
    resp = api.post("/v1/runbooks", dict(extra, name=name, steps=steps))
    assert resp.status_int == 201, resp.body
    return resp.json["uuid"]


def _manageable(env, traits=()):
    api = env[0]
    uuid = _node(api)
    if traits:
        resp = api.put(f"/v1/nodes/{uuid}/traits", {"traits": list(traits)})
        assert resp.status_int == 204, resp.body
    resp = api.put(f"/v1/nodes/{uuid}/states/raid", RAID)
    assert resp.status_int == 204, resp.body
    _provision(env, uuid, "manage")
    return uuid


def test_clean_runs_runbook_steps_in_order(env_newest):
    env = env_newest
    api = env[0]
    _runbook(api, "CUSTOM_REBUILD_RAID", [
        {"interface": "raid", "step": "create_configuration", "args": {},
         "order": 2},
        {"interface": "raid", "step": "delete_configuration", "args": {},
         "order": 1},
        {"interface": "deploy", "step": "hold", "args": {}, "order": 0}])
    uuid = _manageable(env, ["CUSTOM_REBUILD_RAID"])
    _provision(env, uuid, "clean", runbook="CUSTOM_REBUILD_RAID")
    assert _state(env, uuid)[0] == states.CLEANHOLD
    info = api.get(f"/v1/nodes/{uuid}").json["driver_internal_info"]
    assert [s["step"] for s in info["clean_steps"]] == [
        "hold", "delete_configuration", "create_configuration"]
    _provision(env, uuid, "unhold")
    assert _state(env, uuid) == (states.MANAGEABLE, None, None)
    node = api.get(f"/v1/nodes/{uuid}").json
    assert node["raid_config"]["logical_disks"][0]["size_gb"] == 10


def test_runbook_by_uuid_for_service(env_newest):
    env = env_newest
    api = env[0]
    book = _runbook(api, "CUSTOM_FW", [
        {"interface": "bios", "step": "factory_reset", "args": {},
         "order": 0}])
    uuid = _manageable(env, ["CUSTOM_FW"])
    _provision(env, uuid, "provide")
    _provision(env, uuid, "active")
    _provision(env, uuid, "service", runbook=book)
    assert _state(env, uuid) == (states.ACTIVE, None, None)


def test_runbook_needs_matching_node_trait(env_newest):
    env = env_newest
    _runbook(env[0], "CUSTOM_OTHER", [
        {"interface": "bios", "step": "factory_reset", "args": {},
         "order": 0}])
    uuid = _manageable(env, ["CUSTOM_SOMETHING"])
    resp = _provision(env, uuid, "clean", status=400,
                      runbook="CUSTOM_OTHER")
    assert "not been approved" in resp.json["error_message"]
    assert _state(env, uuid)[0] == states.MANAGEABLE


def test_runbook_own_traits_also_match(env_newest):
    env = env_newest
    api = env[0]
    _runbook(api, "CUSTOM_BOOK", [
        {"interface": "bios", "step": "factory_reset", "args": {},
         "order": 0}])
    resp = api.put("/v1/runbooks/CUSTOM_BOOK/traits",
                   {"traits": ["CUSTOM_GPU"]})
    assert resp.status_int == 204, resp.body
    uuid = _manageable(env, ["CUSTOM_GPU"])
    _provision(env, uuid, "clean", runbook="CUSTOM_BOOK")
    assert _state(env, uuid) == (states.MANAGEABLE, None, None)


@pytest.mark.parametrize("body,fragment", [
    ({"runbook": "CUSTOM_NONE"}, "not found"),
    ({"runbook": "CUSTOM_X", "clean_steps": []}, "mutually exclusive"),
])
def test_bad_runbook_requests_are_400(env_newest, body, fragment):
    env = env_newest
    _runbook(env[0], "CUSTOM_X", [
        {"interface": "bios", "step": "factory_reset", "args": {},
         "order": 0}])
    uuid = _manageable(env, ["CUSTOM_X"])
    resp = _provision(env, uuid, "clean", status=400, **body)
    assert fragment in resp.json["error_message"]


def test_runbook_needs_1_92(env_newest):
    env = env_newest
    uuid = _manageable(env, ["CUSTOM_X"])
    env[0].version = "1.91"
    resp = _provision(env, uuid, "clean", status=406, runbook="CUSTOM_X")
    assert "1.92" in resp.json["error_message"]


def test_runbook_with_missing_step_fails_cleaning_check(env_newest):
    env = env_newest
    _runbook(env[0], "CUSTOM_BAD", [
        {"interface": "bios", "step": "no_such_step", "args": {},
         "order": 0}])
    uuid = _manageable(env, ["CUSTOM_BAD"])
    resp = _provision(env, uuid, "clean", status=400, runbook="CUSTOM_BAD")
    assert "no_such_step" in resp.json["error_message"]


def test_project_runbook_only_on_its_projects_nodes(env_newest):
    env = env_newest
    _runbook(env[0], "CUSTOM_P", [
        {"interface": "bios", "step": "factory_reset", "args": {},
         "order": 0}], owner="project-a")
    uuid = _manageable(env, ["CUSTOM_P"])
    resp = _provision(env, uuid, "clean", status=400, runbook="CUSTOM_P")
    assert "project-a" in resp.json["error_message"]
    resp = env[0].patch(f"/v1/nodes/{uuid}", [
        {"op": "add", "path": "/lessee", "value": "project-a"}])
    assert resp.status_int == 200
    _provision(env, uuid, "clean", runbook="CUSTOM_P")
    assert _state(env, uuid) == (states.MANAGEABLE, None, None)
