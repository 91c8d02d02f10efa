"""Inspection rules as a whole: validation, the built-in rules file, the
order rules run in, failures and what sensitive rules keep to themselves."""

from __future__ import annotations

import logging

import pytest

from ironic.common import exception
from ironic.inspection_rules import engine, validation
from ironic.objects.inspection_rule import InspectionRule
from ironic.objects.node import Node
from ironic.tests import builders

INVENTORY = {"cpu": {"count": 4}, "bmc_password": "s3cret"}


class _Task:
    def __init__(self, node):
        self.node = node


def _store(**rule):
    obj = InspectionRule(**validation.validate_rule(rule))
    obj.create()
    return obj


def _tag(value, **extra):
    """A rule appending ``value`` to the node's extra/order list."""
    return {"actions": [{"op": "extend-attribute",
                         "args": {"path": "extra/order", "value": value}}],
            **extra}


@pytest.fixture
def task(database):
    return _Task(builders.make_node())


def _order(task):
    return Node.get(task.node.id).extra.get("order")


# -- validation --------------------------------------------------------------

def test_validation_normalizes_for_storage():
    rule = validation.validate_rule({
        "uuid": "11111111-2222-3333-4444-55555555555A",
        "sensitive": None, "phase": None, "description": None,
        "conditions": [{"op": "eq", "args": [[1, 1]], "note": "dropped",
                        "loop": [], "multiple": "all"}],
        "actions": [{"op": "log", "args": {"msg": "x"}, "extra": 1}]})
    assert rule == {
        "uuid": "11111111-2222-3333-4444-55555555555a",
        "description": None, "priority": 0, "sensitive": False,
        "phase": "main",
        "conditions": [{"op": "eq", "args": [[1, 1]], "loop": [],
                        "multiple": "all"}],
        "actions": [{"op": "log", "args": {"msg": "x"}}]}


@pytest.mark.parametrize("doc, match", [
    ({}, "'actions' is a required property"),
    ({"actions": []}, "should be non-empty"),
    ({"actions": [{"op": "nope", "args": {}}]}, "'nope' is not one of"),
    ({"actions": [{"op": "fail"}]}, "'args' is a required property"),
    ({"actions": [{"op": "fail", "args": "x"}]}, "not of type"),
    ({"actions": [{"op": "fail", "args": {"msg": 1}}], "scope": "x"},
     "Additional properties"),
    ({"actions": [{"op": "fail", "args": {"msg": 1}}], "priority": -1},
     "less than the minimum"),
    ({"actions": [{"op": "fail", "args": {"msg": 1}}], "priority": 10000},
     "between 0 and 9999"),
    ({"actions": [{"op": "fail", "args": {"msg": 1}}], "priority": "1"},
     "not of type 'integer'"),
    ({"actions": [{"op": "fail", "args": {"msg": 1}}], "phase": "early"},
     "Invalid phase: early"),
    ({"actions": [{"op": "fail", "args": {"msg": 1}}], "uuid": "bad"},
     "Expected UUID for uuid: "),
    ({"actions": [{"op": "fail", "args": {"msg": 1}}],
      "description": "x" * 256}, "too long"),
    ({"actions": [{"op": "fail", "args": {"msg": 1}}],
      "conditions": [{"op": "!!eq", "args": {"values": []}}]},
     "is not one of"),
    ({"actions": [{"op": "fail", "args": {"msg": 1}}],
      "conditions": [{"op": "eq", "args": {"values": [1]},
                      "multiple": "some"}]}, "is not one of"),
    ({"actions": [{"op": "fail", "args": {"msg": 1}}],
      "conditions": [{"op": "matches", "args": {"value": "a",
                                                "regex": "("}}]},
     "condition 0 \\(matches\\): matches: invalid regular expression"),
    ({"actions": [{"op": "fail", "args": {}}],
      "conditions": [{"op": "eq", "args": {}}]},
     "Multiple validation errors occurred: condition 0 \\(eq\\): missing "
     "required argument\\(s\\): values; action 0 \\(fail\\)"),
])
def test_invalid_rules(doc, match):
    with pytest.raises(exception.InvalidInspectionRule, match=match) as e:
        validation.validate_rule(doc)
    assert e.value.code == 400


def test_built_in_rules_may_use_any_priority():
    doc = {"actions": [{"op": "log", "args": ["x"]}], "priority": -5}
    assert validation.validate_rule(doc, built_in=True)["priority"] == -5
    doc["priority"] = 20000
    assert validation.validate_rule(doc, built_in=True)["priority"] == 20000


# -- the built-in rules file -------------------------------------------------

def _rules_file(tmp_path, config, text):
    path = tmp_path / "rules.yaml"
    path.write_text(text)
    config("inspection_rules", built_in_rules=str(path))
    return path


def test_built_in_rules_file(tmp_path, config, database):
    path = _rules_file(tmp_path, config, """
- description: first
  actions: [{op: log, args: {msg: one}}]
- uuid: 11111111-2222-3333-4444-555555555555
  priority: 10
  actions: [{op: log, args: {msg: two}}]
- sensitive: true
  actions: [{op: log, args: {msg: three}}]
""")
    rules = engine.built_in_rules()
    assert [r["uuid"] for r in rules] == [
        "00000000-0000-0000-0000-000000000000",
        "11111111-2222-3333-4444-555555555555",
        "00000000-0000-0000-0000-000000000001"]
    assert all(r["built_in"] and r["phase"] == "main" for r in rules)
    assert rules[2]["sensitive"] is True
    assert engine.built_in_rules() is rules  # cached while unchanged
    path.write_text("- actions: [{op: log, args: {msg: changed}}]\n")
    assert len(engine.built_in_rules()) == 1


@pytest.mark.parametrize("text, match", [
    ("a: 1", "must hold a list of rules"),
    ("- [unclosed", "not valid YAML"),
    ("- actions: [{op: explode, args: {}}]", "Built-in rule 0 in"),
])
def test_broken_built_in_rules_file(tmp_path, config, database, text,
                                    match):
    _rules_file(tmp_path, config, text)
    with pytest.raises(exception.InvalidInspectionRule, match=match):
        engine.built_in_rules()


def test_missing_built_in_rules_file(tmp_path, config, database):
    config("inspection_rules", built_in_rules=str(tmp_path / "none.yaml"))
    with pytest.raises(exception.InvalidInspectionRule, match="Cannot read"):
        engine.built_in_rules()


# -- applying rules ----------------------------------------------------------

def test_rules_run_by_priority_built_in_first(tmp_path, config, task):
    _rules_file(tmp_path, config, """
- priority: 5
  actions: [{op: extend-attribute, args: {path: extra/order, value: b5}}]
- priority: -1
  actions: [{op: extend-attribute, args: {path: extra/order, value: b-1}}]
""")
    _store(**_tag("s5", priority=5))
    _store(**_tag("s9", priority=9))
    _store(**_tag("s0"))
    engine.apply_rules(task, INVENTORY, {})
    assert _order(task) == ["s9", "b5", "s5", "s0", "b-1"]


def test_only_rules_whose_conditions_all_hold_run(task):
    yes = {"op": "eq", "args": {"values": ["{inventory[cpu][count]}", "4"]}}
    no = {"op": "gt", "args": {"values": [1, 2]}}
    _store(**_tag("none"))
    _store(**_tag("yes", conditions=[yes]))
    _store(**_tag("yes-no", conditions=[yes, no]))
    _store(**_tag("not-no", conditions=[dict(no, op="!gt")]))
    engine.apply_rules(task, INVENTORY, {})
    assert _order(task) == ["none", "yes", "not-no"]


def test_actions_change_plugin_data_seen_by_later_rules(task):
    _store(priority=2, actions=[{"op": "set-plugin-data",
                                 "args": {"path": "seen", "value": "yes"}}])
    _store(priority=1, conditions=[{"op": "eq", "args": {
        "values": ["{plugin_data[seen]}", "yes"]}}], **_tag("later"))
    data = {}
    engine.apply_rules(task, INVENTORY, data)
    assert data == {"seen": "yes"} and _order(task) == ["later"]


def test_fail_action_stops_and_fails(task):
    _store(priority=2, actions=[{"op": "fail", "args": {
        "msg": "only {inventory[cpu][count]} CPUs"}}])
    _store(priority=1, **_tag("never"))
    with pytest.raises(exception.HardwareInspectionFailure,
                       match="only {inventory"):
        engine.apply_rules(task, INVENTORY, {})
    assert _order(task) is None


def test_a_rule_that_cannot_run_fails_inspection(task):
    rule = _store(actions=[{"op": "set-attribute", "args": {
        "path": "provision_state", "value": "active"}}])
    with pytest.raises(exception.InspectionRuleExecutionFailure) as e:
        engine.apply_rules(task, INVENTORY, {})
    assert f"rule {rule.uuid}" in str(e.value)
    assert "managed by the service" in str(e.value)


def test_sensitive_rules_hide_their_details(task, caplog):
    caplog.set_level(logging.DEBUG)
    secret = "{inventory[bmc_password]}"
    _store(sensitive=True, conditions=[{"op": "lt", "args": {
        "values": [secret, 1]}}], actions=[{"op": "log",
                                            "args": ["x"]}])
    with pytest.raises(exception.InspectionRuleExecutionFailure) as e:
        engine.apply_rules(task, INVENTORY, {})
    assert "hidden because the rule is sensitive" in str(e.value)
    assert secret not in caplog.text and "***" not in caplog.text
    assert "s3cret" not in caplog.text


@pytest.mark.parametrize("mode, sensitive, seen", [
    ("always", False, "***"), ("always", True, "***"),
    ("never", False, "s3cret"), ("sensitive", False, "***"),
    ("sensitive", True, "s3cret"),
])
def test_mask_secrets_modes(config, task, mode, sensitive, seen):
    config("inspection_rules", mask_secrets=mode)
    _store(sensitive=sensitive, actions=[{"op": "set-plugin-data", "args": {
        "path": "copy", "value": "{inventory[bmc_password]}"}}])
    data = {}
    engine.apply_rules(task, INVENTORY, data)
    assert data["copy"] == seen


def test_no_rules_is_nothing_to_do(task):
    engine.apply_rules(task, INVENTORY, {})
    assert _order(task) is None
