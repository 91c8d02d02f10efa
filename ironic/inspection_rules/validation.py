"""What a valid inspection rule looks like.

Used for rules created or patched through the API and for the built-in
rules file, so both are held to the same checks: the JSON schema, then the
arguments of every condition and action against its plugin.
"""

from __future__ import annotations

import copy
from typing import Any

import jsonschema

from ironic.common import exception, utils
from ironic.inspection_rules import actions, operators
from ironic.inspection_rules.plugin import ArgumentError
from ironic.objects.base import ANY, ARRAY, Body, Field
from ironic.objects.inspection_rule import InspectionRule

PHASES = ("main",)
MAX_USER_PRIORITY = 9999

# A condition and an action, declared once (the API's OpenAPI document
# shows the rule schema below). What their arguments must be is each
# plugin's to check.


def _args(doc: str) -> Field:
    return Field(type=ARRAY, nullable=False, body_also=("object",), doc=doc)


CONDITION = Body({
    "op": Field(type=ANY, schema={"enum": list(operators.OPERATORS) + [
        f"!{op}" for op in operators.OPERATORS]},
        doc="The operator (! negates it)."),
    "args": _args("Its arguments, by position or name."),
    "multiple": Field(type=ANY, schema={
        "enum": list(operators.MULTIPLE)},
        doc="How a list of values is judged."),
    "loop": _args("Values to check the condition for, one by one."),
}, required=("op", "args"), extra=None)
ACTION = Body({
    "op": Field(type=ANY, schema={"enum": list(actions.ACTIONS)},
                doc="The action."),
    "args": _args("Its arguments, by position or name."),
    "loop": _args("Values to run the action for, one by one."),
}, required=("op", "args"), extra=None)
_TYPED = InspectionRule.fields
#: A rule as a client writes it: the typed fields of the object, with
#: what a condition and an action are (the plugins this engine knows).
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        **{name: _TYPED[name].body_schema()
           for name in ("uuid", "description", "priority", "sensitive",
                        "phase")},
        "conditions": {**_TYPED["conditions"].body_schema(),
                       "items": CONDITION.schema},
        "actions": {**_TYPED["actions"].body_schema(), "minItems": 1,
                    "items": ACTION.schema},
    },
    "required": ["actions"],
    "additionalProperties": False,
}
# Built-in rules may run before (priority above 9999) or after (below 0)
# every rule an API user can write.
_BUILT_IN_SCHEMA = copy.deepcopy(SCHEMA)
del _BUILT_IN_SCHEMA["properties"]["priority"]["minimum"]
_VALIDATORS = {False: jsonschema.Draft202012Validator(SCHEMA),
               True: jsonschema.Draft202012Validator(_BUILT_IN_SCHEMA)}


def _schema_errors(doc: Any, built_in: bool) -> None:
    error = jsonschema.exceptions.best_match(
        _VALIDATORS[built_in].iter_errors(doc))
    if error is not None:
        raise exception.InvalidInspectionRule(
            reason=f"Schema error: {utils.schema_refusal(error)}")


def _step(step: dict, kind: str, index: int, errors: list[str]) -> dict:
    """The stored form of one condition or action (unknown keys dropped)."""
    out = {"op": step["op"], "args": step["args"]}
    for key in ("loop", "multiple"):
        if key in step:
            out[key] = step[key]
    try:
        plugin = operators.get(step["op"])[0] if kind == "condition" \
            else actions.get(step["op"])
        plugin.validate(step["args"], in_loop=bool(step.get("loop")))
    except (ArgumentError, ValueError) as e:
        errors.append(f"{kind} {index} ({step['op']}): {e}")
    return out


def _priority(value: int, built_in: bool) -> list[str]:
    if not built_in and value > MAX_USER_PRIORITY:
        return [f"Priority must be between 0 and {MAX_USER_PRIORITY} for "
                f"user-defined rules."]
    return []


def validate_rule(doc: Any, built_in: bool = False) -> dict[str, Any]:
    """The rule ``doc`` normalized for storage; ``InvalidInspectionRule``
    (400) listing every problem found otherwise."""
    _schema_errors(doc, built_in)
    rule: dict[str, Any] = {
        "description": doc.get("description"),
        "priority": doc.get("priority", 0),
        "sensitive": bool(doc.get("sensitive")),
        "phase": doc.get("phase") or "main",
    }
    if doc.get("uuid") is not None:
        if not utils.is_uuid_like(doc["uuid"]):
            raise exception.InvalidInspectionRule(
                reason=f"Expected UUID for uuid: {doc['uuid']}")
        rule["uuid"] = utils.normalize_uuid(doc["uuid"])
    errors = _priority(rule["priority"], built_in)
    if rule["phase"] not in PHASES:
        errors.append(f"Invalid phase: {rule['phase']}. Valid phases are: "
                      f"{', '.join(PHASES)}")
    rule["conditions"] = [_step(c, "condition", i, errors)
                          for i, c in enumerate(doc.get("conditions") or [])]
    rule["actions"] = [_step(a, "action", i, errors)
                       for i, a in enumerate(doc["actions"])]
    if len(errors) == 1:
        raise exception.InvalidInspectionRule(reason=errors[0])
    if errors:
        raise exception.InvalidInspectionRule(
            reason=f"Multiple validation errors occurred: "
                   f"{'; '.join(errors)}")
    return rule
