"""Inspection rules applied by the conductor when the ramdisk's data is
processed: after the hooks, before the data is stored."""

from __future__ import annotations

from ironic.common import states
from ironic.db import api as db_api
from ironic.objects.node import Node
from ironic.tests import data
from ironic.tests.unit.conductor import test_inband_inspection as inband

# The in-band inspection environment: API, in-process RPC, a conductor.
env = inband.env
_get, _inspect_wait, _post_data = inband._get, inband._inspect_wait, \
    inband._post_data

V = "1.96"


def _rule(env, body):
    resp = env[0].post("/v1/inspection_rules", body, version=V)
    assert resp.status_int == 201, resp.body
    return resp.json


def _inspect(env, uuid):
    resp = _post_data(env, data.ipa_inspection_data(), f"?node_uuid={uuid}",
                      version="1.84")
    assert resp.status_int == 202, resp.body
    return _get(env, uuid)


def test_matching_rules_change_node_and_plugin_data(env):
    _rule(env, {
        "description": "big AMD machines",
        "conditions": [
            {"op": "contains", "args": {
                "value": "{inventory[cpu][model_name]}", "regex": "EPYC"}},
            # The cpu_arch property the architecture hook just set.
            {"op": "eq", "args": {
                "values": ["{node.properties[cpu_arch]}", "x86_64"]}},
            {"op": "is-true", "args": {"value": "{item}"},
             "loop": ["no", "yes"], "multiple": "any"}],
        "actions": [
            {"op": "set-attribute", "args": {
                "path": "/extra/memory",
                "value": "{inventory[memory][physical_mb]}"}},
            {"op": "add-trait", "args": {"name": "CUSTOM_EPYC"}},
            {"op": "set-capability", "args": {"name": "epyc",
                                              "value": "true"}},
            {"op": "set-plugin-data", "args": {"path": "rules.epyc",
                                               "value": True}}]})
    _rule(env, {"conditions": [{"op": "gt", "args": {"values": [1, 2]}}],
                "actions": [{"op": "fail", "args": {"msg": "never"}}]})
    uuid = _inspect_wait(env)
    node = _inspect(env, uuid)
    assert node["provision_state"] == states.MANAGEABLE, node["last_error"]
    assert node["extra"]["memory"] == "24576"
    assert "epyc:true" in node["properties"]["capabilities"]
    assert db_api.get_instance().get_node_traits(Node.get(uuid).id) == [
        "CUSTOM_EPYC"]
    inv = env[0].get(f"/v1/nodes/{uuid}/inventory", version=V).json
    assert inv["plugin_data"]["rules"] == {"epyc": True}


def test_fail_action_fails_inspection(env):
    _rule(env, {"conditions": [{"op": "lt", "args": {
        "values": ["{inventory[memory][physical_mb]}", "32768"]}}],
        "actions": [{"op": "fail", "args": {
            "msg": "Not enough memory for this cloud"}}]})
    uuid = _inspect_wait(env)
    node = _inspect(env, uuid)
    assert node["provision_state"] == states.INSPECTFAIL
    assert "Not enough memory for this cloud" in node["last_error"]
    assert node["power_state"] == states.POWER_OFF
    assert env[0].get(f"/v1/nodes/{uuid}/inventory",
                      version=V).status_int == 404


def test_broken_built_in_rules_fail_inspection(env, config, tmp_path):
    path = tmp_path / "rules.yaml"
    path.write_text("- actions: [{op: no-such-action, args: {}}]\n")
    config("inspection_rules", built_in_rules=str(path))
    uuid = _inspect_wait(env)
    node = _inspect(env, uuid)
    assert node["provision_state"] == states.INSPECTFAIL
    assert "Built-in rule 0" in node["last_error"]
