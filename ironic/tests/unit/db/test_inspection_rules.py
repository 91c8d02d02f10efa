"""Inspection rule rows: create, conflicts, paging, phase order, updates."""

import pytest

from ironic.common import exception
from ironic.db import api as db_api
from ironic.objects.inspection_rule import InspectionRule

ACTIONS = [{"op": "log", "args": {"msg": "hi"}}]


@pytest.fixture
def db(database):
    return db_api.get_instance()


def test_create_defaults_and_json_round_trip(db):
    cond = [{"op": "!eq", "args": {"values": [1, "{inventory[x]}"]},
             "loop": [1, 2], "multiple": "all"}]
    row = db.create_inspection_rule({"actions": ACTIONS, "conditions": cond})
    back = db.get_inspection_rule(row.uuid)
    assert back.actions == ACTIONS and back.conditions == cond
    assert back.priority == 0 and back.phase == "main"
    assert back.sensitive is False and back.description is None
    assert back.created_at is not None and back.updated_at is None


def test_duplicate_uuid_is_a_conflict(db):
    row = db.create_inspection_rule({"actions": ACTIONS})
    with pytest.raises(exception.InspectionRuleAlreadyExists) as e:
        db.create_inspection_rule({"uuid": row.uuid, "actions": ACTIONS})
    assert row.uuid in str(e.value) and e.value.code == 409


def test_missing_rules_are_not_found(db):
    with pytest.raises(exception.InspectionRuleNotFound):
        db.get_inspection_rule("11111111-2222-3333-4444-555555555555")
    with pytest.raises(exception.InspectionRuleNotFound):
        db.update_inspection_rule(12345, {"priority": 1})
    with pytest.raises(exception.InspectionRuleNotFound):
        db.destroy_inspection_rule(12345)
    with pytest.raises(exception.InspectionRuleNotFound):
        db.get_inspection_rule_list(marker="nope")


def test_phase_order_is_priority_then_age(db):
    low = db.create_inspection_rule({"actions": ACTIONS, "priority": 1})
    high = db.create_inspection_rule({"actions": ACTIONS, "priority": 50})
    tie = db.create_inspection_rule({"actions": ACTIONS, "priority": 1})
    rows = db.get_inspection_rules_for_phase("main")
    assert [r.uuid for r in rows] == [high.uuid, low.uuid, tie.uuid]
    assert db.get_inspection_rules_for_phase("other") == []


def test_list_pages_and_updates(db):
    rows = [db.create_inspection_rule({"actions": ACTIONS, "priority": p})
            for p in (3, 1, 2)]
    page = db.get_inspection_rule_list(limit=2, sort_key="priority")
    assert [r.priority for r in page] == [1, 2]
    rest = db.get_inspection_rule_list(marker=page[-1].uuid,
                                       sort_key="priority")
    assert [r.priority for r in rest] == [3]
    updated = db.update_inspection_rule(rows[0].id, {"priority": 9})
    assert updated.priority == 9 and updated.updated_at is not None
    db.destroy_inspection_rule(rows[0].id)
    assert len(db.get_inspection_rule_list()) == 2


def test_object_round_trip(database):
    rule = InspectionRule(actions=ACTIONS, description="d", sensitive=True)
    rule.create()
    again = InspectionRule.get(rule.uuid.upper())
    assert again.id == rule.id and again.sensitive is True
    again.priority = 7
    again.save()
    assert InspectionRule.get(rule.id).priority == 7
    assert InspectionRule.list_for_phase("main")[0].as_rule() == {
        "uuid": rule.uuid, "priority": 7, "description": "d",
        "sensitive": True, "phase": "main", "conditions": [],
        "actions": ACTIONS, "built_in": False}
    with pytest.raises(exception.InspectionRuleNotFound):
        InspectionRule.get("not-a-uuid")
    again.destroy()
    assert InspectionRule.list_for_phase("main") == []
