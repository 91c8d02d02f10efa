"""Inspection rules (1.96) over real HTTP: managed with openstacksdk and
``openstack baremetal inspection rule``, then applied by an in-band
inspection whose data is posted as the ramdisk posts it.

The service runs in this process on a real port with every microversion
enabled (the ``live`` fixture of the in-band inspection tests).
"""

from __future__ import annotations

import json

import pytest
from openstack import exceptions as sdk_exc

from ironic.tests import data
from ironic.tests.functional import service as svc
from ironic.tests.functional import test_inband_inspection as inband

live = inband.live

LOG_ACTION = {"op": "log", "args": {"msg": "seen {node.uuid}"}}


def test_sdk_manages_rules(live):
    _endpoint, _cli, conn = live
    bm = conn.baremetal
    rule = bm.create_inspection_rule(
        description="tag big machines", priority=10,
        conditions=[{"op": "gt", "args": {
            "values": ["{inventory[memory][physical_mb]}", "16384"]}}],
        actions=[LOG_ACTION])
    assert rule.id and rule.priority == 10 and rule.phase == "main"
    assert rule.sensitive is False
    secret = bm.create_inspection_rule(sensitive=True, actions=[LOG_ACTION])
    assert secret.actions is None and secret.conditions is None

    # openstacksdk's details=True sends a parameter the rule resource does
    # not map; its own query parameter is detail.
    listed = {r.id: r for r in bm.inspection_rules(detail=True)}
    assert listed[rule.id].conditions == rule.conditions
    assert listed[secret.id].actions is None
    assert bm.get_inspection_rule(rule.id).description == "tag big machines"

    updated = bm.update_inspection_rule(rule.id, priority=20,
                                        description="changed")
    assert (updated.priority, updated.description) == (20, "changed")
    patched = bm.patch_inspection_rule(
        rule.id, [{"op": "add", "path": "/actions/-", "value": LOG_ACTION}])
    assert len(patched.actions) == 2

    with pytest.raises(sdk_exc.BadRequestException, match="sensitive"):
        bm.update_inspection_rule(secret.id, sensitive=False)
    with pytest.raises(sdk_exc.BadRequestException, match="msg"):
        bm.create_inspection_rule(actions=[{"op": "fail", "args": {}}])
    bm.delete_inspection_rule(rule.id)
    bm.delete_inspection_rule(secret.id)
    with pytest.raises(sdk_exc.NotFoundException):
        bm.get_inspection_rule(rule.id)
    assert list(bm.inspection_rules()) == []


def test_cli_manages_rules(live):
    _endpoint, cli, _conn = live
    created = cli.json(
        "inspection", "rule", "create", "--description", "from the cli",
        "--priority", "5", "--actions", json.dumps([LOG_ACTION]),
        "--conditions", json.dumps([{"op": "is-true",
                                     "args": {"value": True}}]))
    uuid = created["uuid"]
    assert created["priority"] == 5 and created["phase"] == "main"
    listed = cli.json("inspection", "rule", "list")
    assert [r["uuid"] for r in listed] == [uuid]
    cli.run("inspection", "rule", "set", uuid, "--priority", "7",
            "--description", "renamed")
    shown = cli.json("inspection", "rule", "show", uuid)
    assert (shown["priority"], shown["description"]) == (7, "renamed")
    assert shown["actions"] == [LOG_ACTION]
    cli.run("inspection", "rule", "unset", uuid, "--description")
    assert cli.json("inspection", "rule", "show", uuid)["description"] \
        is None
    bad = cli.run("inspection", "rule", "create", "--actions",
                  json.dumps([{"op": "explode", "args": {}}]), check=False)
    assert bad.returncode != 0 and "explode" in bad.stderr
    cli.run("inspection", "rule", "delete", uuid)
    assert cli.json("inspection", "rule", "list") == []
    gone = cli.run("inspection", "rule", "show", uuid, check=False)
    assert gone.returncode != 0 and "could not be found" in gone.stderr


def test_inspection_applies_rules(live):
    endpoint, cli, conn = live
    bm = conn.baremetal
    bm.create_inspection_rule(
        priority=50,
        conditions=[{"op": "eq", "args": {
            "values": ["{inventory[cpu][architecture]}", "x86_64"]}}],
        actions=[
            {"op": "add-trait", "args": {"name": "CUSTOM_X86"}},
            {"op": "set-attribute", "args": {
                "path": "/extra/cpus", "value": "{inventory[cpu][count]}"}},
            {"op": "set-plugin-data", "args": {"path": "rules.tagged",
                                               "value": True}}])
    bm.create_inspection_rule(
        priority=1,
        conditions=[{"op": "contains", "args": {
            "value": "{node.traits}", "regex": "nothing-like-this"}}],
        actions=[{"op": "fail", "args": {"msg": "never happens"}}])
    uuid = inband._enroll_and_inspect(cli, conn, "ruled")
    status, body = inband._post_inspection(
        endpoint, data.ipa_inspection_data(), f"?node_uuid={uuid}",
        version="1.84")
    assert status == 202, body
    node = inband._until_state(conn, uuid, "manageable")
    assert node.last_error is None
    assert node.traits == ["CUSTOM_X86"]
    assert node.extra["cpus"] == "2"
    inventory = bm.get_node_inventory(uuid)
    assert inventory["plugin_data"]["rules"] == {"tagged": True}


def test_failing_rule_fails_inspection(live):
    endpoint, cli, conn = live
    cli.run("inspection", "rule", "create", "--actions", json.dumps([
        {"op": "fail", "args": {"msg": "unsupported vendor"}}]))
    uuid = inband._enroll_and_inspect(cli, conn, "refused")
    status, _body = inband._post_inspection(
        endpoint, data.ipa_inspection_data(), f"?node_uuid={uuid}",
        version="1.84")
    assert status == 202
    node = inband._until_state(conn, uuid, "inspect failed")
    assert "unsupported vendor" in node.last_error
    assert node.power_state == "power off"
    shown = svc.Cli(endpoint).json("node", "show", "refused")
    assert shown["provision_state"] == "inspect failed"
