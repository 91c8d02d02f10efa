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

import pecan
from pecan import rest

from ironic.api import features, method, schemas
from ironic.api.controllers.v1 import resource
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, policy, utils
from ironic.inspection_rules import validation
from ironic.objects.inspection_rule import InspectionRule

# The order of a rule's fields in responses.
_ORDER = ("uuid", "created_at", "updated_at", "description", "priority",
          "sensitive", "phase", "conditions", "actions", "links")
_EDITABLE = tuple(name for name in InspectionRule.fields
                  if name in schemas.patchable(InspectionRule.fields))
SPEC = resource.Spec(
    singular="inspection rule", collection="inspection_rules",
    obj_cls=InspectionRule,
    api_fields={"links": features.INSPECTION_RULES},
    default_fields=("uuid", "description", "priority", "phase", "links"))


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
            out[name] = resource.iso(getattr(rule, name))
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


def _list(params: dict[str, Any], ver: int) -> dict:
    args = resource.list_args(SPEC, params, detail=False, ver=ver,
                              filters=("phase",))
    criteria = []
    if params.get("phase") is not None:
        criteria.append(("phase", params["phase"]))
    rows = InspectionRule.list_rows(
        criteria, limit=args.limit, marker=args.marker,
        sort_key=args.sort_key, sort_dir=args.sort_dir)
    return api_utils.collection(
        "inspection_rules", [_view(r, args.fields) for r in rows],
        args.limit, "inspection_rules", params,
        rows[-1].uuid if rows else None)


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
    current = {"uuid": rule.uuid,
               **{name: getattr(rule, name) for name in _EDITABLE}}
    patched = api_utils.apply_patch(
        current, patch, read_only={"uuid", "created_at", "updated_at",
                                   "links"},
        required=("actions",), allowed_roots=set(_EDITABLE))
    values = validation.validate_rule(patched)
    if rule.sensitive and not values["sensitive"]:
        raise exception.PatchError(
            patch=patch,
            reason="Inspection rules cannot have the sensitive flag unset.")
    return values


class InspectionRulesController(rest.RestController):
    @expose()
    def _lookup(self, ident, *remainder):
        if not remainder:
            # No handler of this controller takes the method on an item.
            raise method.MethodNotAllowed()
        pecan.abort(404)

    @expose()
    @api_method(features.INSPECTION_RULES, too_old_message=_TOO_OLD)
    def get_all(self, **params):
        policy.authorize("baremetal:inspection_rule:get", method.context())
        return _list(params, method.version())

    @expose()
    @api_method(features.INSPECTION_RULES, too_old_message=_TOO_OLD)
    def get_one(self, ident, **params):
        policy.authorize("baremetal:inspection_rule:get", method.context())
        fields = resource.one_args(SPEC, params, method.version())
        return _view(_get(ident), fields)

    @expose()
    @api_method(features.INSPECTION_RULES, status=201, too_old=405,
                too_old_message=_TOO_OLD)
    def post(self):
        policy.authorize("baremetal:inspection_rule:create",
                         method.context())
        body = _from_cli(method.json_body())
        rule = InspectionRule(**validation.validate_rule(body))
        rule.create()
        pecan.response.location = (f"{method.public_url()}/v1/"
                                   f"inspection_rules/{rule.uuid}")
        return _view(rule, _ORDER)

    @expose()
    @api_method(features.INSPECTION_RULES, too_old=405,
                too_old_message=_TOO_OLD)
    def patch(self, ident):
        policy.authorize("baremetal:inspection_rule:update",
                         method.context())
        patch = method.json_body(list)
        rule = _get(ident)
        for name, value in _patched(rule, patch).items():
            if name != "uuid" and getattr(rule, name) != value:
                setattr(rule, name, value)
        rule.save()
        return _view(rule, _ORDER)

    @expose()
    @api_method(features.INSPECTION_RULES, status=204, too_old=405,
                too_old_message=_TOO_OLD)
    def delete(self, ident):
        policy.authorize("baremetal:inspection_rule:delete",
                         method.context())
        _get(ident).destroy()
