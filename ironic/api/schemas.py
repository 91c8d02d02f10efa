"""JSON schemas of request and response bodies, made from typed fields.

An object declares each field once (``ironic.objects.base.Field``: its
type, nullability, length, who may write it); the API adds the few fields
it shows beside the columns (``node_uuid`` for a port's ``node_id``,
``links``) with the same ``Field``. From these come the schema a create or
patch body is checked against, the names a client may create or patch,
and the item and collection documents of ``/v1/openapi.json``.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ironic.objects.base import ARRAY, CREATE, UUID, WRITE, Body, Field

__all__ = ["Body", "Field", "LINKS", "body", "collection", "creatable",
           "item", "patchable", "reference"]

Fields = Mapping[str, Field]

_LINK = {"type": "object", "required": ["href", "rel"],
         "properties": {"href": {"type": "string"},
                        "rel": {"type": "string"}}}

# Fields only the API shows. Their versions are the resource's business
# (its Spec or field table), so ``since`` is left unset here.
#: Links to the item itself, or to one of its sub-resources.
LINKS = Field(None, type=ARRAY, nullable=False, schema={"items": _LINK},
              doc="Links to the resource (self and bookmark).")


def reference(doc: str, write: str | None = WRITE,
              nullable: bool = True) -> Field:
    """A related resource shown (and given) by UUID."""
    return Field(None, type=UUID, nullable=nullable, write=write, doc=doc)


def creatable(fields: Fields) -> set[str]:
    """The names a create body may give."""
    return {name for name, f in fields.items() if f.write in (CREATE, WRITE)}


def patchable(fields: Fields) -> set[str]:
    """The names a PATCH may change."""
    return {name for name, f in fields.items() if f.write == WRITE}


def body(fields: Fields, names: Iterable[str] | None = None, *,
         required: Iterable[str] = (), closed: bool = True) -> dict[str, Any]:
    """The schema of a request body giving ``names`` (every field a create
    may give, unless told); ``closed``: no other member allowed."""
    wanted = creatable(fields) if names is None else set(names)
    # The keyword order is behaviour: of two faults of the body itself the
    # first found is reported, a missing member before an unknown one, as
    # the reference reports them.
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {name: f.body_schema() for name, f in fields.items()
                       if name in wanted},
    }
    if required:
        schema["required"] = list(required)
    schema["additionalProperties"] = not closed
    return schema


def item(fields: Fields, names: Iterable[str]) -> dict[str, Any]:
    """The schema of one resource as shown with ``names`` (``fields=``
    may ask for fewer, so none is required; a name without a typed field
    may hold anything)."""
    return {"type": "object", "properties": {
        name: fields[name].value_schema() if name in fields else {}
        for name in names}}


def collection(key: str, item_schema: dict[str, Any]) -> dict[str, Any]:
    """The schema of a page of a collection: the items under ``key`` and
    the link to the next page when there may be one."""
    return {"type": "object", "required": [key], "properties": {
        key: {"type": "array", "items": item_schema},
        "next": {"type": "string"}}}


def listed(names: Iterable[str], late: Iterable[str] = ()) -> list[str]:
    """``names`` in the order the reference lists a resource's patchable
    fields when it refuses a path: sorted, then the ``late`` ones (the
    fields it added since) in the order given."""
    late = [name for name in late if name in set(names)]
    return sorted(set(names) - set(late)) + late
