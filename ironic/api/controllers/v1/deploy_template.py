"""/v1/deploy_templates (1.55): named sets of deploy steps.

A template whose name matches one of a node's traits adds its steps to
that node's deployment; the conductor applies them. Here they are stored,
validated and served.
"""

from __future__ import annotations

from typing import Any

import pecan
from pecan import rest

from ironic.api import features, method, schemas
from ironic.api.controllers.v1 import node_sub
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, policy, utils
from ironic.objects import records
from ironic.objects.records import DEPLOY_TEMPLATES

_FIELDS = ("uuid", "name", "steps", "extra", "created_at", "updated_at",
           "links")
_DEFAULT_FIELDS = ("uuid", "name", "links")
_SORT_KEYS = {"id", "uuid", "name", "created_at", "updated_at"}
SCHEMA = schemas.body(records.DEPLOY_TEMPLATE_FIELDS,
                      required=["name", "steps"])

def _validate(doc: dict) -> dict:
    api_utils.validate(SCHEMA, doc, "deploy template")
    node_sub.validate_trait(doc["name"])
    seen = set()
    for step in doc["steps"]:
        key = (step["interface"], step["step"])
        if key in seen:
            raise exception.InvalidParameterValue(
                err=f"Duplicate deploy step {key[0]}.{key[1]} in template "
                    f"{doc['name']}.")
        seen.add(key)
    values = dict(doc)
    if values.get("uuid") is None:
        values.pop("uuid", None)
    elif not utils.is_uuid_like(values["uuid"]):
        raise exception.InvalidUUID(uuid=values["uuid"])
    else:
        values["uuid"] = utils.normalize_uuid(values["uuid"])
    values.setdefault("extra", {})
    return values


def _view(obj: Any, fields: list[str] | tuple) -> dict:
    out: dict[str, Any] = {}
    for name in fields:
        if name == "links":
            out[name] = api_utils.link("deploy_templates", obj.uuid)
        elif name in ("created_at", "updated_at"):
            out[name] = api_utils.iso(getattr(obj, name))
        else:
            out[name] = getattr(obj, name)
    return out


def _get(ident: str):
    if utils.is_uuid_like(ident):
        return DEPLOY_TEMPLATES.get(utils.normalize_uuid(ident))
    return DEPLOY_TEMPLATES.get(ident, by_name=True)


def _list(params: dict) -> dict:
    unknown = set(params) - {"limit", "marker", "sort_key", "sort_dir",
                             "fields", "detail"}
    if unknown:
        raise exception.InvalidParameterValue(
            err=f"Unknown query parameter(s): {', '.join(sorted(unknown))}")
    fields = api_utils.parse_fields(params.get("fields"), _FIELDS)
    detail = api_utils.parse_bool(params.get("detail"), "detail")
    if fields and detail:
        raise exception.InvalidParameterValue(
            err="Can not specify ?detail=True and fields in the same "
                "request.")
    fields = fields or list(_FIELDS if detail else _DEFAULT_FIELDS)
    sort_key = params.get("sort_key") or "id"
    if sort_key not in _SORT_KEYS:
        raise exception.InvalidParameterValue(
            err=f"The sort_key value \"{sort_key}\" is an invalid field for "
                f"sorting")
    limit = api_utils.parse_limit(params.get("limit"))
    rows = DEPLOY_TEMPLATES.list(
        limit=limit, marker=api_utils.check_marker(params.get("marker")),
        sort_key=sort_key,
        sort_dir=api_utils.parse_sort_dir(params.get("sort_dir")))
    return api_utils.collection(
        "deploy_templates", [_view(r, fields) for r in rows], limit,
        "deploy_templates", params, rows[-1].uuid if rows else None)


class DeployTemplatesController(api_utils.ItemLookup, rest.RestController):
    @expose()
    @api_method(features.DEPLOY_TEMPLATES)
    def get_all(self, **params):
        policy.authorize("baremetal:deploy_template:get", method.context())
        return _list(params)

    @expose()
    @api_method(features.DEPLOY_TEMPLATES)
    def get_one(self, ident, **params):
        policy.authorize("baremetal:deploy_template:get", method.context())
        if set(params) - {"fields"}:
            raise exception.InvalidParameterValue(
                err="Only 'fields' may be given when showing a template.")
        fields = api_utils.parse_fields(params.get("fields"), _FIELDS)
        return _view(_get(ident), fields or _FIELDS)

    @expose()
    @api_method(features.DEPLOY_TEMPLATES, status=201, too_old=405)
    def post(self):
        policy.authorize("baremetal:deploy_template:create",
                         method.context())
        values = _validate(method.json_body())
        obj = DEPLOY_TEMPLATES.save(values)
        pecan.response.location = (f"{method.public_url()}/v1/"
                                   f"deploy_templates/{obj.uuid}")
        return _view(obj, _FIELDS)

    @expose()
    @api_method(features.DEPLOY_TEMPLATES, too_old=405)
    def patch(self, ident):
        policy.authorize("baremetal:deploy_template:update",
                         method.context())
        patch = method.json_body(list)
        obj = _get(ident)
        current = _view(obj, ("uuid", "name", "steps", "extra"))
        patched = api_utils.apply_patch(
            current, patch, read_only={"uuid"}, required=("name", "steps"),
            allowed_roots={"name", "steps", "extra"})
        values = _validate(patched)
        changed = {k: v for k, v in values.items()
                   if k != "uuid" and getattr(obj, k) != v}
        obj = DEPLOY_TEMPLATES.save(changed, obj.id)
        return _view(obj, _FIELDS)

    @expose()
    @api_method(features.DEPLOY_TEMPLATES, status=204, too_old=405)
    def delete(self, ident):
        policy.authorize("baremetal:deploy_template:delete",
                         method.context())
        DEPLOY_TEMPLATES.destroy(_get(ident).id)
