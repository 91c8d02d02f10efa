"""What deploy templates and runbooks share: named lists of steps kept as
plain rows (``objects.records``), found by UUID or name, shown as they are
stored, and changed by a JSON patch of their editable fields."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterable

from ironic.api import features, method, schemas
from ironic.api.controllers.v1 import collection
from ironic.api.controllers.v1 import utils as api_utils
from ironic.common import exception, utils


@dataclasses.dataclass(frozen=True)
class Kind:
    """One resource of step rows."""

    #: As policy rules name it (``baremetal:<name>:get``).
    name: str
    #: ``objects.records.Records`` of its rows.
    store: Any
    #: How a GET of one item names it in its refusal of parameters.
    article: str


def get(store: Any, ident: str) -> Any:
    """The row a UUID or name identifies."""
    if utils.is_uuid_like(ident):
        return store.get(utils.normalize_uuid(ident))
    return store.get(ident, by_name=True)


def values_of(doc: dict) -> dict:
    """A validated document as column values: the UUID normalized (or
    left to the database), ``extra`` an object."""
    values = dict(doc)
    if values.get("uuid") is None:
        values.pop("uuid", None)
    elif not utils.is_uuid_like(values["uuid"]):
        raise exception.InvalidUUID(uuid=values["uuid"])
    else:
        values["uuid"] = utils.normalize_uuid(values["uuid"])
    values.setdefault("extra", {})
    return values


def check_unique(keys: Iterable[Any], message: Callable[[Any], str]
                 ) -> None:
    """400 with ``message(key)`` for the first key seen twice."""
    seen: set = set()
    for key in keys:
        if key in seen:
            raise exception.InvalidParameterValue(err=message(key))
        seen.add(key)


def render(collection_path: str, rows: list, fields: list[str],
           computed: dict[str, dict[int, Any]] | None = None) -> list[dict]:
    """Documents of rows; ``computed``: field -> {row id: value} for
    fields not stored in the row."""
    links = api_utils.linker(collection_path, method.public_url())
    computed = computed or {}
    out = []
    for row in rows:
        doc: dict[str, Any] = {}
        for name in fields:
            if name == "links":
                doc[name] = links(row.uuid)
            elif name in computed:
                doc[name] = computed[name].get(row.id, [])
            elif name in ("created_at", "updated_at"):
                doc[name] = api_utils.iso(getattr(row, name))
            else:
                doc[name] = getattr(row, name)
        out.append(doc)
    return out


def patched(obj: Any, patch: list, editable: Iterable[str]) -> dict:
    """The row's editable fields (and uuid) after ``patch``."""
    editable = list(editable)
    current = {f: getattr(obj, f) for f in ("uuid", *editable)}
    return api_utils.apply_patch(
        current, patch, read_only={"uuid"}, required=("name", "steps"),
        allowed_roots=set(editable),
        listed=schemas.listed(editable, late=("description",)))


def save_changes(store: Any, obj: Any, values: dict) -> Any:
    """Save the values that differ from the row's; the row saved."""
    changed = {k: v for k, v in values.items()
               if k != "uuid" and getattr(obj, k) != v}
    return store.save(changed, obj.id)


def spec_hooks(kind: Kind) -> dict[str, Any]:
    """The Spec hooks every step-row resource shares: authorization with
    the resource's rules (listing is ``get``), lookup, paging, deletion,
    and the answer to a GET of one item with other parameters."""
    def refuse_show_params(unknown: list[str]) -> Exception:
        return exception.InvalidParameterValue(
            err=f"Only 'fields' may be given when showing {kind.article}.")

    return {**collection.rule_hooks(kind.name, list_rule="get"),
            "item": lambda ident, verb: get(kind.store, ident),
            "fetch": collection.records_fetch(kind.store),
            "delete": lambda obj: kind.store.destroy(obj.id),
            "refuse_show_params": refuse_show_params,
            "obj_cls": None, "strict_fields": False,
            # A marker that is no UUID names no row: 404, as Ironic 39.
            "uuid_marker": False,
            "detail_param": features.ALWAYS, "detail_action": False}
