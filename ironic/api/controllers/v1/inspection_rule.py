"""/v1/inspection_rules (1.96): rules applied to inspection data.

A rule's conditions are checked against the data in-band inspection
collects; when they all hold its actions change the node, its ports or the
plugin data (``ironic.inspection_rules``). Here rules are stored,
validated and served. The conditions and actions of a sensitive rule are
never shown (``null``), and a rule cannot stop being sensitive. Built-in
rules come from the configuration, not from this API.

Below 1.96 reading answers 404 and writing 405, as the reference does.
"""

from __future__ import annotations

import re
from typing import Any

from ironic.api import features, query, schemas
from ironic.api.controllers.v1 import collection, descriptor, resource
from ironic.api.controllers.v1 import utils as api_utils
from ironic.common import exception, utils
from ironic.inspection_rules import validation
from ironic.objects.inspection_rule import InspectionRule

# The order of a rule's fields in responses.
_ORDER = ("uuid", "created_at", "updated_at", "description", "priority",
          "sensitive", "phase", "conditions", "actions", "links")
_EDITABLE = tuple(name for name in InspectionRule.fields
                  if name in schemas.patchable(InspectionRule.fields))
_TOO_OLD = "The API version does not allow inspection rules"


def _steps(steps: list[dict], conditions: bool) -> list[dict]:
    """Conditions or actions as the API shows them."""
    out = []
    for step in steps or []:
        shown = {"op": step["op"], "args": step["args"]}
        if step.get("loop"):
            shown["loop"] = step["loop"]
            if conditions:
                shown["multiple"] = step.get("multiple") or "any"
        out.append(shown)
    return out


def _view(rule: Any, fields: list[str] | tuple) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in _ORDER:
        if name not in fields:
            continue
        if name == "links":
            out[name] = api_utils.link("inspection_rules", rule.uuid)
        elif name in ("created_at", "updated_at"):
            out[name] = api_utils.iso(getattr(rule, name))
        elif name in ("conditions", "actions"):
            out[name] = None if rule.sensitive else _steps(
                getattr(rule, name), name == "conditions")
        else:
            out[name] = getattr(rule, name)
    return out


def _get(ident: str) -> InspectionRule:
    if not utils.is_uuid_like(ident):
        raise exception.InvalidUUID(uuid=ident)
    return InspectionRule.get(ident)


def _from_cli(body: Any) -> Any:
    """``openstack baremetal inspection rule create`` sends ``--priority``
    and ``--sensitive`` as the strings typed; take them for what they
    mean (anything else still fails validation)."""
    if not isinstance(body, dict):
        return body
    body = dict(body)
    priority = body.get("priority")
    if isinstance(priority, str) and re.fullmatch(r"\s*-?\d+\s*", priority):
        body["priority"] = int(priority)
    if isinstance(body.get("sensitive"), str):
        body["sensitive"] = resource.as_bool(body["sensitive"], "sensitive")
    return body


def _patched(rule: InspectionRule, patch: list) -> dict[str, Any]:
    """The rule's editable fields after ``patch``, validated."""
    # The reference patches the rule's whole document: a path it does not
    # hold is refused as jsonpatch refuses it (or, to add, as a new
    # attribute), the timestamps are taken and ignored, the uuid checked.
    current = {"uuid": rule.uuid, "created_at": rule.created_at,
               "updated_at": rule.updated_at,
               **{name: getattr(rule, name) for name in _EDITABLE}}
    api_utils.validate(api_utils.PATCH_SCHEMA, patch, "patch")
    for op in patch:
        root = op["path"].split("/")[1]
        if op["op"] == "add" and root not in current:
            raise exception.InvalidParameterValue(
                err=f"Adding a new attribute ({op['path']}) to the root of "
                    f"the resource is not allowed")
    patched = api_utils.apply_patch(
        current, patch, read_only=(), required=("actions",),
        allowed_roots=None)
    uuid = patched.pop("uuid", None)
    if uuid != rule.uuid:
        if not isinstance(uuid, str) or not utils.is_uuid_like(uuid):
            raise query.expected("UUID", "uuid", uuid)
        if utils.normalize_uuid(uuid) != rule.uuid:
            raise exception.InvalidParameterValue(
                err="Cannot overwrite the UUID of an inspection rule.")
    for name in ("created_at", "updated_at"):
        patched.pop(name, None)
    values = validation.validate_rule(patched)
    if rule.sensitive and not values["sensitive"]:
        raise exception.PatchError(
            patch=patch,
            reason="Inspection rules cannot have the sensitive flag unset.")
    return values


def _create(body: dict, ver: int) -> InspectionRule:
    rule = InspectionRule(**validation.validate_rule(_from_cli(body)))
    rule.create()
    return rule


def _update(rule: InspectionRule, patch: list, ver: int) -> InspectionRule:
    for name, value in _patched(rule, patch).items():
        if name != "uuid" and getattr(rule, name) != value:
            setattr(rule, name, value)
    rule.save()
    return rule


_SCHEMA_UUID = ("inspection_rule_uuid", descriptor.SCHEMA_UUID)

SPEC = descriptor.Spec(
    # Ironic 39 checks the path argument's form first, in these words.
    ident_forms={"get": _SCHEMA_UUID, "delete": _SCHEMA_UUID,
                 "update": ("inspection_rule_uuid", descriptor.IS_UUID)},
    # Ironic 39 checks these queries with a JSON schema, and words its
    # refusals after it.
    schema_query=True,
    singular="inspection rule", collection="inspection_rules",
    body_title=None,
    obj_cls=InspectionRule, lookup_before_fields=True, uuid_marker=False,
    api_fields={"links": features.INSPECTION_RULES},
    default_fields=("uuid", "description", "priority", "phase", "links"),
    bounds=descriptor.Bounds(features.INSPECTION_RULES,
                             too_old_message=_TOO_OLD, write_too_old=405),
    filters={"phase": descriptor.Filter(
        lambda phase, q: [("phase", phase)])},
    detail_action=False,
    fetch=collection.object_fetch(InspectionRule, objects=True),
    render=lambda rows, fields: [_view(r, fields) for r in rows],
    item=lambda ident, verb: _get(ident), create=_create, update=_update,
    delete=lambda rule: rule.destroy(),
    # Listing and showing are both "get".
    **collection.rule_hooks("inspection_rule", list_rule="get"))

InspectionRulesController = collection.controller(
    SPEC, "InspectionRulesController")
