"""Deploy templates (1.55) join a deployment through instance traits."""

from __future__ import annotations

from ironic.common import states
from ironic.tests.unit.conductor.test_lifecycle import (
    _node,
    _provision,
    _state,
)

RAID = {"logical_disks": [{"size_gb": 10, "raid_level": "1",
                           "is_root_volume": True}]}


def _template(api, name, steps):
    resp = api.post("/v1/deploy_templates", {"name": name, "steps": steps})
    assert resp.status_int == 201, resp.body


def _available(env, traits=(), instance_traits=None):
    api = env[0]
    uuid = _node(api)
    if traits:
        resp = api.put(f"/v1/nodes/{uuid}/traits", {"traits": list(traits)})
        assert resp.status_int == 204, resp.body
    if instance_traits is not None:
        resp = api.patch(f"/v1/nodes/{uuid}", [
            {"op": "add", "path": "/instance_info/traits",
             "value": instance_traits}])
        assert resp.status_int == 200, resp.body
    _provision(env, uuid, "manage")
    _provision(env, uuid, "provide")
    return uuid


def _steps(env, uuid):
    doc = env[0].get(f"/v1/nodes/{uuid}").json
    return doc["driver_internal_info"].get("deploy_steps")


def test_template_steps_run_when_instance_asks_for_trait(env_newest):
    env = env_newest
    api = env[0]
    _template(api, "CUSTOM_RAID1", [
        {"interface": "raid", "step": "apply_configuration",
         "args": {"raid_config": RAID}, "priority": 90}])
    uuid = _available(env, ["CUSTOM_RAID1"], ["CUSTOM_RAID1"])
    _provision(env, uuid, "active")
    assert _state(env, uuid) == (states.ACTIVE, None, None)
    node = api.get(f"/v1/nodes/{uuid}").json
    assert node["raid_config"]["logical_disks"][0]["raid_level"] == "1"
    assert "user_deploy_steps" not in node["driver_internal_info"]


def test_template_ignored_without_instance_trait(env_newest):
    env = env_newest
    api = env[0]
    _template(api, "CUSTOM_RAID1", [
        {"interface": "raid", "step": "apply_configuration",
         "args": {"raid_config": RAID}, "priority": 90}])
    uuid = _available(env, ["CUSTOM_RAID1"])
    _provision(env, uuid, "active")
    assert _state(env, uuid)[0] == states.ACTIVE
    assert api.get(f"/v1/nodes/{uuid}").json["raid_config"] == {}


def test_plan_orders_and_overrides_priorities(env_newest):
    """A hold step stops the deploy so the stored plan can be read."""
    env = env_newest
    api = env[0]
    _template(api, "CUSTOM_A", [
        {"interface": "deploy", "step": "hold", "args": {}, "priority": 99},
        {"interface": "bios", "step": "factory_reset", "args": {},
         "priority": 95},
        {"interface": "deploy", "step": "deploy", "args": {},
         "priority": 50}])
    _template(api, "CUSTOM_B", [
        {"interface": "raid", "step": "apply_configuration",
         "args": {"raid_config": RAID}, "priority": 70}])
    uuid = _available(env, ["CUSTOM_A", "CUSTOM_B", "CUSTOM_C"],
                      ["CUSTOM_A", "CUSTOM_B"])
    _provision(env, uuid, "active", deploy_steps=[
        {"interface": "bios", "step": "factory_reset", "args": {},
         "priority": 97}])
    assert _state(env, uuid)[0] == states.DEPLOYHOLD
    plan = [(s["interface"], s["step"], s["priority"])
            for s in _steps(env, uuid)]
    assert plan == [("deploy", "hold", 99), ("bios", "factory_reset", 97),
                    ("raid", "apply_configuration", 70),
                    ("deploy", "deploy", 50)]
    _provision(env, uuid, "unhold")
    assert _state(env, uuid) == (states.ACTIVE, None, None)


def test_priority_zero_turns_a_driver_step_off(env_newest):
    env = env_newest
    api = env[0]
    _template(api, "CUSTOM_NOOP", [
        {"interface": "deploy", "step": "hold", "args": {}, "priority": 99},
        {"interface": "deploy", "step": "deploy", "args": {},
         "priority": 0}])
    uuid = _available(env, ["CUSTOM_NOOP"], ["CUSTOM_NOOP"])
    _provision(env, uuid, "active")
    assert [s["step"] for s in _steps(env, uuid)] == ["hold"]


def test_missing_step_fails_deploy_with_clear_error(env_newest):
    env = env_newest
    api = env[0]
    _template(api, "CUSTOM_BAD", [
        {"interface": "bios", "step": "no_such_step", "args": {},
         "priority": 10}])
    uuid = _available(env, ["CUSTOM_BAD"], ["CUSTOM_BAD"])
    _provision(env, uuid, "active")
    state, _, error = _state(env, uuid)
    assert state == states.DEPLOYFAIL
    assert "no_such_step" in error and "bios" in error
    info = api.get(f"/v1/nodes/{uuid}").json["driver_internal_info"]
    assert "deploy_steps" not in info and "user_deploy_steps" not in info


def test_bad_template_arguments_fail_deploy(env_newest):
    env = env_newest
    api = env[0]
    _template(api, "CUSTOM_ARGS", [
        {"interface": "raid", "step": "apply_configuration",
         "args": {"bogus": 1}, "priority": 10}])
    uuid = _available(env, ["CUSTOM_ARGS"], ["CUSTOM_ARGS"])
    _provision(env, uuid, "active")
    state, _, error = _state(env, uuid)
    assert state == states.DEPLOYFAIL
    assert "raid_config" in error


def test_same_step_in_two_templates_fails_deploy(env_newest):
    env = env_newest
    api = env[0]
    for name in ("CUSTOM_X", "CUSTOM_Y"):
        _template(api, name, [{"interface": "bios", "step": "factory_reset",
                               "args": {}, "priority": 10}])
    uuid = _available(env, ["CUSTOM_X", "CUSTOM_Y"],
                      ["CUSTOM_X", "CUSTOM_Y"])
    _provision(env, uuid, "active")
    state, _, error = _state(env, uuid)
    assert state == states.DEPLOYFAIL
    assert "CUSTOM_X" in error and "CUSTOM_Y" in error


def test_instance_trait_the_node_lacks_is_a_400(env_newest):
    env = env_newest
    uuid = _available(env, ["CUSTOM_A"], ["CUSTOM_A", "CUSTOM_MISSING"])
    resp = _provision(env, uuid, "active", status=400)
    assert "CUSTOM_MISSING" in resp.json["error_message"]
    assert _state(env, uuid)[0] == states.AVAILABLE


def test_malformed_instance_traits_is_a_400(env_newest):
    env = env_newest
    uuid = _available(env, ["CUSTOM_A"], "CUSTOM_A")
    resp = _provision(env, uuid, "active", status=400)
    assert "list of strings" in resp.json["error_message"]


def test_equal_priorities_follow_interface_order(env_newest):
    env = env_newest
    api = env[0]
    _template(api, "CUSTOM_TIE", [
        {"interface": "deploy", "step": "hold", "args": {}, "priority": 99},
        {"interface": "raid", "step": "apply_configuration",
         "args": {"raid_config": RAID}, "priority": 60},
        {"interface": "bios", "step": "factory_reset", "args": {},
         "priority": 60},
        {"interface": "power", "step": "reboot", "args": {},
         "priority": 60}])
    uuid = _available(env, ["CUSTOM_TIE"], ["CUSTOM_TIE"])
    _provision(env, uuid, "active")
    assert [(s["interface"], s["step"]) for s in _steps(env, uuid)
            if s["priority"] == 60] == [
        ("power", "reboot"), ("bios", "factory_reset"),
        ("raid", "apply_configuration")]
