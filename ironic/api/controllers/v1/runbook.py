"""/v1/runbooks (1.92): named, ordered steps projects may run on nodes.

A runbook replaces explicit steps when cleaning or servicing a node whose
traits include the runbook's name; the conductor runs it. Here runbooks are
stored, validated and served. From 1.112 a runbook has a description and
its own traits (``/v1/runbooks/{runbook}/traits``).
"""

from __future__ import annotations

import re
from typing import Any

from pecan import rest

from ironic.api import features, method, schemas
from ironic.api.controllers.v1 import (
    collection,
    descriptor,
    node_sub,
    step_records,
)
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, policy
from ironic.objects import records

_FIELDS = {"uuid": features.RUNBOOKS, "name": features.RUNBOOKS,
           "steps": features.RUNBOOKS, "disable_ramdisk": features.RUNBOOKS,
           "public": features.RUNBOOKS, "owner": features.RUNBOOKS,
           "extra": features.RUNBOOKS,
           "description": features.RUNBOOK_TRAITS,
           "traits": features.RUNBOOK_TRAITS,
           "created_at": features.RUNBOOKS, "updated_at": features.RUNBOOKS,
           "links": features.RUNBOOKS}
SCHEMA = schemas.body(records.RUNBOOK_FIELDS, required=["name", "steps"])
_EDITABLE = tuple(name for name in records.RUNBOOK_FIELDS
                  if name in schemas.patchable(records.RUNBOOK_FIELDS))


#: From 1.112 a runbook name may be any RFC 3986 unreserved string: the
#: runbook's own traits say which nodes may run it.
_UNRESERVED = re.compile(r"[A-Za-z0-9._~-]+")


def _check_name(name: str, ver: int, what: str) -> None:
    if features.RUNBOOK_TRAITS.available(ver) and _UNRESERVED.fullmatch(name):
        return
    node_sub.validate_trait(name, what)


def _validate(doc: dict, ver: int, what: str = "runbook") -> dict:
    if "description" in doc and not features.RUNBOOK_TRAITS.available(ver):
        raise exception.NotAcceptable(
            f"'description' needs API version "
            f"{features.RUNBOOK_TRAITS.version} or newer.")
    api_utils.validate(SCHEMA, doc, what)
    _check_name(doc["name"], ver, what)
    step_records.check_unique(
        (s["order"] for s in doc["steps"]),
        lambda key: "Each step of a runbook needs its own 'order'.")
    return step_records.values_of(doc)


def _render(rows: list, fields: list[str]) -> list[dict]:
    computed = {}
    if "traits" in fields:
        computed["traits"] = records.runbook_traits(r.id for r in rows)
    return step_records.render("runbooks", rows, fields, computed)


def traits_of(book: Any) -> list[str]:
    """The traits of the runbook row ``book``."""
    return records.runbook_traits([book.id]).get(book.id, [])


def _get(ident: str) -> Any:
    return step_records.get(records.RUNBOOKS, ident)


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
            records.set_runbook_traits(rb.id, node_sub.traits_body())
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


def _update(obj: Any, patch: list, ver: int) -> Any:
    editable = [f for f in _EDITABLE if _FIELDS[f].available(ver)]
    patched = step_records.patched(obj, patch, editable)
    patched = {k: v for k, v in patched.items()
               if not (k == "description" and v is None
                       and not features.RUNBOOK_TRAITS.available(ver))}
    values = _validate(patched, ver, "patch")
    return step_records.save_changes(records.RUNBOOKS, obj, values)


_IDENT = ("runbook_ident", descriptor.UUID_OR_NAME)

SPEC = descriptor.Spec(
    # Ironic 39 checks the path argument's form first, in these words.
    ident_forms=dict.fromkeys(("get", "update", "delete"), _IDENT),
    singular="runbook", collection="runbooks", api_fields=_FIELDS,
    lookup_before_fields=True,
    default_fields=("uuid", "name", "links"),
    bounds=descriptor.Bounds(
        features.RUNBOOKS, write_too_old=405, plain_refusal=True,
        too_old_message="The API version does not allow runbooks"),
    sort_keys=frozenset({"id", "uuid", "name", "owner", "created_at",
                         "updated_at"}),
    filters={
        "public": descriptor.Filter(lambda value, q: [
            ("public", api_utils.parse_bool(value, "public"))]),
        "project": descriptor.Filter(lambda value, q: [("owner", value)]),
    },
    subresources={"traits": descriptor.SubResource(
        lambda ident, scope: RunbookTraitsController(ident))},
    render=_render,
    create=lambda body, ver: records.RUNBOOKS.save(_validate(body, ver)),
    update=_update,
    **step_records.spec_hooks(step_records.Kind(
        "runbook", records.RUNBOOKS, "a runbook")))

RunbooksController = collection.controller(SPEC, "RunbooksController")
