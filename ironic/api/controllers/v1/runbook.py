"""/v1/runbooks (1.92): named, ordered steps projects may run on nodes.

A runbook replaces explicit steps when cleaning or servicing a node whose
traits include the runbook's name; the conductor runs it. Here runbooks are
stored, validated and served. From 1.112 a runbook has a description and
its own traits (``/v1/runbooks/{runbook}/traits``).
"""

from __future__ import annotations

import re
from typing import Any

import pecan
from pecan import rest

from ironic.api import features, method, schemas
from ironic.api.controllers.v1 import node_sub
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, policy, utils
from ironic.objects import records

_FIELDS = {"uuid": features.RUNBOOKS, "name": features.RUNBOOKS,
           "steps": features.RUNBOOKS, "disable_ramdisk": features.RUNBOOKS,
           "public": features.RUNBOOKS, "owner": features.RUNBOOKS,
           "extra": features.RUNBOOKS,
           "description": features.RUNBOOK_TRAITS,
           "traits": features.RUNBOOK_TRAITS,
           "created_at": features.RUNBOOKS, "updated_at": features.RUNBOOKS,
           "links": features.RUNBOOKS}
_DEFAULT_FIELDS = ("uuid", "name", "links")
_SORT_KEYS = {"id", "uuid", "name", "owner", "created_at", "updated_at"}
SCHEMA = schemas.body(records.RUNBOOK_FIELDS, required=["name", "steps"])
_EDITABLE = tuple(name for name in records.RUNBOOK_FIELDS
                  if name in schemas.patchable(records.RUNBOOK_FIELDS))


def _visible(ver: int) -> list[str]:
    return [f for f, since in _FIELDS.items() if since.available(ver)]


#: From 1.112 a runbook name may be any RFC 3986 unreserved string: the
#: runbook's own traits say which nodes may run it.
_UNRESERVED = re.compile(r"[A-Za-z0-9._~-]+")


def _check_name(name: str, ver: int) -> None:
    if features.RUNBOOK_TRAITS.available(ver) and _UNRESERVED.fullmatch(name):
        return
    node_sub.validate_trait(name)


def _validate(doc: dict, ver: int) -> dict:
    if "description" in doc and not features.RUNBOOK_TRAITS.available(ver):
        raise exception.NotAcceptable(
            f"'description' needs API version "
            f"{features.RUNBOOK_TRAITS.version} or newer.")
    api_utils.validate(SCHEMA, doc, "runbook")
    _check_name(doc["name"], ver)
    orders = [s["order"] for s in doc["steps"]]
    if len(set(orders)) != len(orders):
        raise exception.InvalidParameterValue(
            err="Each step of a runbook needs its own 'order'.")
    values = dict(doc)
    if values.get("uuid") is None:
        values.pop("uuid", None)
    elif not utils.is_uuid_like(values["uuid"]):
        raise exception.InvalidUUID(uuid=values["uuid"])
    else:
        values["uuid"] = utils.normalize_uuid(values["uuid"])
    values.setdefault("extra", {})
    return values


def _views(rows: list, fields: list[str]) -> list[dict]:
    traits = {}
    if "traits" in fields:
        traits = records.runbook_traits(r.id for r in rows)
    out = []
    for row in rows:
        doc: dict[str, Any] = {}
        for name in fields:
            if name == "links":
                doc[name] = api_utils.link("runbooks", row.uuid)
            elif name == "traits":
                doc[name] = traits.get(row.id, [])
            elif name in ("created_at", "updated_at"):
                doc[name] = api_utils.iso(getattr(row, name))
            else:
                doc[name] = getattr(row, name)
        out.append(doc)
    return out


def traits_of(book: Any) -> list[str]:
    """The traits of the runbook row ``book``."""
    return records.runbook_traits([book.id]).get(book.id, [])


def _get(ident: str):
    if utils.is_uuid_like(ident):
        return records.RUNBOOKS.get(utils.normalize_uuid(ident))
    return records.RUNBOOKS.get(ident, by_name=True)


def _list(params: dict, ver: int) -> dict:
    unknown = set(params) - {"limit", "marker", "sort_key", "sort_dir",
                             "fields", "detail", "public", "project"}
    if unknown:
        raise exception.InvalidParameterValue(
            err=f"Unknown query parameter(s): {', '.join(sorted(unknown))}")
    fields = api_utils.parse_fields(params.get("fields"), _visible(ver))
    detail = api_utils.parse_bool(params.get("detail"), "detail")
    if fields and detail:
        raise exception.InvalidParameterValue(
            err="Can not specify ?detail=True and fields in the same "
                "request.")
    fields = fields or (_visible(ver) if detail else list(_DEFAULT_FIELDS))
    sort_key = params.get("sort_key") or "id"
    if sort_key not in _SORT_KEYS:
        raise exception.InvalidParameterValue(
            err=f"The sort_key value \"{sort_key}\" is an invalid field for "
                f"sorting")
    criteria = []
    if params.get("public") is not None:
        criteria.append(("public", api_utils.parse_bool(params["public"],
                                                        "public")))
    if params.get("project") is not None:
        criteria.append(("owner", params["project"]))
    limit = api_utils.parse_limit(params.get("limit"))
    rows = records.RUNBOOKS.list(
        criteria, limit=limit,
        marker=api_utils.check_marker(params.get("marker")),
        sort_key=sort_key,
        sort_dir=api_utils.parse_sort_dir(params.get("sort_dir")))
    return api_utils.collection("runbooks", _views(rows, fields), limit,
                                "runbooks", params,
                                rows[-1].uuid if rows else None)


class RunbookTraitsController(rest.RestController):
    def __init__(self, ident: str):
        self.ident = ident

    @expose()
    @api_method(features.RUNBOOK_TRAITS)
    def get_all(self):
        policy.authorize("baremetal:runbook:get", method.context())
        rb = _get(self.ident)
        return {"traits": records.runbook_traits(
            [rb.id])[rb.id]}

    @expose()
    @api_method(features.RUNBOOK_TRAITS, status=204)
    def put(self, trait: str | None = None):
        policy.authorize("baremetal:runbook:update", method.context())
        rb = _get(self.ident)
        if trait is None:
            records.set_runbook_traits(rb.id, node_sub._traits_body())
            return
        node_sub.validate_trait(trait)
        current = records.runbook_traits([rb.id])[rb.id]
        if trait not in current and len(current) >= node_sub.TRAIT_LIMIT:
            raise exception.InvalidParameterValue(
                err=f"A runbook can have at most {node_sub.TRAIT_LIMIT} "
                    f"traits.")
        records.set_runbook_traits(rb.id, [trait], replace=False)

    @expose()
    @api_method(features.RUNBOOK_TRAITS, status=204)
    def delete(self, trait: str | None = None):
        policy.authorize("baremetal:runbook:update", method.context())
        rb = _get(self.ident)
        if trait is None:
            records.set_runbook_traits(rb.id, [])
        else:
            records.delete_runbook_trait(rb.id, trait)


class RunbooksController(rest.RestController):
    _subcontrollers = {"traits": RunbookTraitsController}

    @expose()
    def _lookup(self, ident, sub=None, *remainder):
        if sub is None:
            return api_utils.item_without_handler(self, ident)
        if sub in self._subcontrollers:
            return self._subcontrollers[sub](ident), remainder
        pecan.abort(404)

    @expose()
    @api_method(features.RUNBOOKS)
    def get_all(self, **params):
        policy.authorize("baremetal:runbook:get", method.context())
        return _list(params, method.version())

    @expose()
    @api_method(features.RUNBOOKS)
    def get_one(self, ident, **params):
        policy.authorize("baremetal:runbook:get", method.context())
        if set(params) - {"fields"}:
            raise exception.InvalidParameterValue(
                err="Only 'fields' may be given when showing a runbook.")
        ver = method.version()
        fields = api_utils.parse_fields(params.get("fields"), _visible(ver))
        return _views([_get(ident)], fields or _visible(ver))[0]

    @expose()
    @api_method(features.RUNBOOKS, status=201, too_old=405)
    def post(self):
        policy.authorize("baremetal:runbook:create", method.context())
        ver = method.version()
        values = _validate(method.json_body(), ver)
        obj = records.RUNBOOKS.save(values)
        pecan.response.location = (f"{method.public_url()}/v1/runbooks/"
                                   f"{obj.uuid}")
        return _views([obj], _visible(ver))[0]

    @expose()
    @api_method(features.RUNBOOKS, too_old=405)
    def patch(self, ident):
        policy.authorize("baremetal:runbook:update", method.context())
        ver = method.version()
        patch = method.json_body(list)
        obj = _get(ident)
        editable = [f for f in _EDITABLE if _FIELDS[f].available(ver)]
        current = {f: getattr(obj, f) for f in ("uuid", *editable)}
        patched = api_utils.apply_patch(
            current, patch, read_only={"uuid"}, required=("name", "steps"),
            allowed_roots=set(editable))
        patched = {k: v for k, v in patched.items()
                   if not (k == "description" and v is None
                           and not features.RUNBOOK_TRAITS.available(ver))}
        values = _validate(patched, ver)
        changed = {k: v for k, v in values.items()
                   if k != "uuid" and getattr(obj, k) != v}
        obj = records.RUNBOOKS.save(changed, obj.id)
        return _views([obj], _visible(ver))[0]

    @expose()
    @api_method(features.RUNBOOKS, status=204, too_old=405)
    def delete(self, ident):
        policy.authorize("baremetal:runbook:delete", method.context())
        records.RUNBOOKS.destroy(_get(ident).id)
