"""Helpers shared by the v1 resource controllers."""

from __future__ import annotations

import datetime
from typing import Any, Iterable, Sequence, overload
from urllib.parse import urlencode

import jsonpatch
import jsonschema
import pecan
from oslo_utils import strutils

from ironic.api import body, features, method, query
from ironic.common import exception, utils
from ironic.conf import CONF
from ironic.objects.base import (
    BOOLEAN,
    INTEGER,
    STRING,
    UUID,
    Body,
    Field,
)

MASK = "******"
_SECRET_KEY_HINTS = ("password", "secret", "token", "credential", "key",
                     "auth")


def linker(resource: str, url: str):
    """``link`` for many identifiers of one resource: the URL prefixes are
    built once, which counts when a page renders a thousand rows."""
    self_prefix = f"{url}/v1/{resource}/"
    bookmark_prefix = f"{url}/{resource}/"

    def links(ident: str) -> list[dict[str, str]]:
        return [{"href": self_prefix + ident, "rel": "self"},
                {"href": bookmark_prefix + ident, "rel": "bookmark"}]
    return links


def link(resource: str, ident: str, url: str | None = None,
         bookmark_only: bool = False) -> list[dict[str, str]]:
    links = linker(resource, url or method.public_url())(ident)
    return links[1:] if bookmark_only else links


def mask_secrets(info: dict | None) -> dict:
    """A copy of ``info`` with every credential-like value masked."""
    if not info:
        return {} if info is None else info
    masked = strutils.mask_dict_password(info, MASK)
    # Key names oslo.utils does not recognize as secrets (the BMC K_g key,
    # SNMPv3 keys).
    return {k: MASK if k in _MORE_SECRETS and v else v
            for k, v in masked.items()}


_MORE_SECRETS = frozenset({"ipmi_hex_kg_key", "snmp_auth_key",
                           "snmp_priv_key"})


@overload
def parse_bool(value: str | bool, name: str) -> bool: ...
@overload
def parse_bool(value: None, name: str) -> None: ...
@overload
def parse_bool(value: str | bool | None, name: str) -> bool | None: ...
def parse_bool(value: str | bool | None, name: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError as e:
        raise query.not_boolean(name, value) from e


def parse_limit(limit: str | int | None) -> int:
    max_limit = CONF.api.max_limit
    if limit is None:
        return max_limit
    try:
        value = int(limit)
    except (TypeError, ValueError) as e:
        raise query.expected("an integer", "limit", limit) from e
    if value <= 0:
        raise exception.InvalidParameterValue(
            err="Limit must be positive")
    return min(value, max_limit)


def parse_sort_dir(sort_dir: str | None) -> str:
    # Exactly "asc" or "desc": Ironic 39 refuses "DESC" too.
    sort_dir = query.single("sort_dir", sort_dir) or "asc"
    if sort_dir not in ("asc", "desc"):
        raise exception.InvalidParameterValue(
            err=f"Invalid sort direction: {sort_dir}. Acceptable values are "
                f"'asc' or 'desc'")
    return sort_dir


def iso(value: datetime.datetime | None) -> str | None:
    """A stored timestamp (UTC) as the API shows it, with its offset."""
    if value is None:
        return None
    if value.tzinfo is None:
        # What replace(tzinfo=utc).isoformat() gives, at half the cost:
        # every node document shows five timestamps.
        return value.isoformat() + "+00:00"
    return value.replace(tzinfo=datetime.timezone.utc).isoformat()


@overload
def parse_fields(fields: str, allowed: Iterable[str]) -> list[str]: ...
@overload
def parse_fields(fields: None, allowed: Iterable[str]) -> None: ...
@overload
def parse_fields(fields: str | None, allowed: Iterable[str]
                 ) -> list[str] | None: ...
def parse_fields(fields: str | None, allowed: Iterable[str]
                 ) -> list[str] | None:
    """The list of fields a client asked for, all validated."""
    if fields is None:
        return None
    if not features.FIELDS_SELECTION.available(method.version()):
        raise exception.NotAcceptable(
            "The 'fields' parameter needs API version 1.8 or newer.")
    wanted = [f.strip() for f in fields.split(",") if f.strip()]
    allowed = set(allowed)
    bad = [f for f in wanted if f not in allowed]
    if bad:
        raise exception.InvalidParameterValue(
            err=f"Field(s) \"{', '.join(bad)}\" are not valid")
    return wanted


def item_without_handler(controller: Any, ident: str) -> tuple:
    """What a collection's ``_lookup`` answers for ``/<collection>/<ident>``
    with no sub-resource after it.

    pecan only gets there when no handler of the controller takes the
    request's method (PUT, POST, HEAD on an item), so the answer is 405 with
    the methods the item does take; a GET-only custom action such as
    ``detail`` is routed to its handler.
    """
    actions = getattr(controller, "_custom_actions", {})
    if ident in actions:
        if pecan.request.method in actions[ident]:
            return getattr(controller, ident), []
        raise method.MethodNotAllowed(allow=sorted(actions[ident]))
    handlers = {"GET": "get_one", "PATCH": "patch", "DELETE": "delete"}
    allow = sorted(m for m, name in handlers.items()
                   if hasattr(controller, name))
    raise method.MethodNotAllowed(allow=allow)


def check_marker(marker: str | None) -> str | None:
    if marker is not None and not _is_uuid(marker):
        raise query.expected("UUID", "marker", marker)
    return marker


def _is_uuid(value: str) -> bool:
    return utils.is_uuid_like(value)


def collection(key: str, items: list[dict], limit: int, resource_url: str,
               query: dict[str, Any], last_uuid: str | None,
               full: bool | None = None) -> dict:
    """A collection document with a ``next`` link when a page is full
    (``full``: the page read was, though fewer items are shown)."""
    doc: dict[str, Any] = {key: items}
    if full is None:
        full = len(items) >= limit
    if limit and full and last_uuid:
        params = {k: v for k, v in query.items()
                  if v is not None and k not in ("marker", "limit")}
        params["limit"] = limit
        params["marker"] = last_uuid
        doc["next"] = (f"{method.public_url()}/v1/{resource_url}?"
                       f"{urlencode(params)}")
    return doc


# Compiled validators by schema identity: building one (and checking the
# schema against the metaschema, as jsonschema.validate does on every call)
# costs more than most requests.
_VALIDATORS: dict[int, Any] = {}


def _validator(schema: dict) -> Any:
    validator = _VALIDATORS.get(id(schema))
    if validator is None or validator.schema is not schema:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validator = _VALIDATORS[id(schema)] = cls(schema)
    return validator


def validate(schema: dict | Body, doc: Any, what: str | None) -> None:
    """400 unless ``doc`` fits ``schema``; a declared ``Body`` also says
    what its declaration says of a refusal and runs its fields' checks.
    ``what``: the name the refusal gives the document ("Schema error for
    node: ..."), None for none ("Schema error: ...")."""
    if isinstance(schema, Body):
        _validate_body(schema, doc, what)
        return
    e = _first_error(schema, doc)
    if e is not None:
        raise _refused(e, what)


def _first_error(schema: dict, doc: Any) -> Any:
    return jsonschema.exceptions.best_match(
        _validator(schema).iter_errors(doc))


def schema_error(e: Any, what: str | None) -> exception.InvalidParameterValue:
    """The 400 of the schema error ``e`` in the reference's words: the
    refusal, and when it only says no alternative fitted, the refusal
    deepest under it that jsonschema ranks first."""
    prefix = f"Schema error for {what}" if what else "Schema error"
    return exception.InvalidParameterValue(
        err=f"{prefix}: {utils.schema_refusal(e)}")


def _refused(e: Any, what: str | None, message: str | None = None
             ) -> exception.InvalidParameterValue:
    """The 400 of the schema error ``e``: the declared ``message`` of the
    value refused, else the validator's words."""
    if message is not None:
        return exception.InvalidParameterValue(
            err=message.format(value=e.instance))
    return schema_error(e, what)


def _argument_refused(name: str, field: Field, schema: dict, value: Any,
                      optional: bool
                      ) -> exception.InvalidParameterValue | None:
    """The reference's words for an argument of the wrong type, else None
    (the value's own schema then speaks); ``optional``: it may be left
    out (so the reference takes None too)."""
    if field.type == BOOLEAN:
        return None if isinstance(value, bool) else \
            query.not_boolean(name, value)
    if field.type in (STRING, UUID, INTEGER):
        if _first_error({"type": schema.get("type", "string")},
                        value) is None:
            return None
        kind = {STRING: "string", UUID: "UUID",
                INTEGER: "an integer"}[field.type]
        return query.expected(kind, name, value)
    types = schema.get("type")
    if types is None:
        types = sorted({t for alt in schema.get("anyOf", ())
                        for t in _as_list(alt.get("type", ()))})
    if not types or _first_error({"type": types}, value) is None:
        return None
    shown = sorted({_PY_TYPES[t] for t in _as_list(types)}
                   | ({_PY_TYPES["null"]} if optional else set()))
    return exception.InvalidParameterValue(
        err=f"Expected types {', '.join(shown)} for {name}: {value}")


def _as_list(value: Any) -> list:
    return value if isinstance(value, list) else [value]


_PY_TYPES = {"null": "<class 'NoneType'>", "object": "<class 'dict'>",
             "string": "<class 'str'>", "array": "<class 'list'>",
             "integer": "<class 'int'>", "number": "<class 'float'>",
             "boolean": "<class 'bool'>"}


def _check_arguments(body: Body, doc: Any) -> None:
    """Refuse an action's body as the reference refuses a call's
    arguments: unexpected ones first, then each declared one in order,
    missing or of the wrong type. A body that is no object gives none."""
    given = doc if isinstance(doc, dict) else {}
    if body.extra is False:
        unexpected = [k for k in given if k not in body.fields]
        if unexpected:
            raise query.unexpected_arguments(unexpected)
    properties = body.schema["properties"]
    for name, field in body.fields.items():
        if name not in given:
            if name in body.required:
                raise exception.MissingParameterValue(
                    err=f"Missing mandatory parameter: {name}")
            continue
        if given[name] is None and name not in body.required:
            continue
        if field.type == BOOLEAN and isinstance(given[name], str):
            # "true", "off"...: words the reference reads as booleans.
            try:
                given[name] = strutils.bool_from_string(given[name],
                                                        strict=True)
            except ValueError:
                pass
        refused = _argument_refused(name, field, properties[name],
                                    given[name], name not in body.required)
        if refused is not None:
            raise refused


def _validate_body(body: Body, doc: Any, what: str | None) -> None:
    if body.arguments:
        _check_arguments(body, doc)
    # Of several faults the one jsonschema ranks first is named (of sibling
    # items, the last), as the reference names it; the checks no schema
    # says run on a body the schema took.
    e = _first_error(body.schema, doc)
    if e is not None:
        path = list(e.absolute_path)
        if not path:
            message = body.invalid
        else:
            field = body.fields.get(path[0]) if len(path) == 1 else None
            message = field.invalid if field is not None else None
        raise _refused(e, what, message)
    for name, field in body.fields.items():
        if name in doc and (field.items or field.check):
            _check(field, body.schema["properties"][name], doc[name],
                   what)


def _check(field: Field, schema: dict, value: Any, what: str | None
           ) -> None:
    if field.items is not None and isinstance(value, list):
        for item in value:
            check_value(field.items, item, what, schema["items"])
    if field.check is not None:
        field.check(value)


def check_value(field: Field, value: Any, what: str | None,
                schema: dict | None = None) -> None:
    """400 unless ``value`` fits ``field``'s schema (``schema``: that
    schema, made once) and check, as a request gives it."""
    if schema is None:
        schema = _field_schema(field)
    e = _first_error(schema, value)
    if e is not None:
        raise _refused(e, what, field.invalid)
    _check(field, schema, value, what)


_FIELD_SCHEMAS: dict[int, tuple[Field, dict]] = {}


def _field_schema(field: Field) -> dict:
    """The body schema of ``field``, made once (validators are cached by
    the schema's identity)."""
    known = _FIELD_SCHEMAS.get(id(field))
    if known is None or known[0] is not field:
        known = _FIELD_SCHEMAS[id(field)] = (field, field.body_schema())
    return known[1]


# An empty patch is a valid no-op (RFC 6902); the resource is answered as
# it is, like the reference service does.
PATCH_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "op": {"type": "string",
                   "enum": ["add", "replace", "remove"]},
            # The reference's form of a path (a refusal quotes it).
            "path": {"type": "string", "pattern": r"^(/[\w-]+)+$"},
            "value": {},
        },
        "required": ["op", "path"],
        "additionalProperties": False,
    },
}


def apply_patch(doc: dict, patch: Sequence[dict], *,
                read_only: Iterable[str], required: Iterable[str] = (),
                allowed_roots: Iterable[str] | None,
                listed: Sequence[str] | None = None) -> dict:
    """Apply an RFC 6902 patch to ``doc`` as one unit.

    Only add/replace/remove, only on ``allowed_roots`` (None: any path
    jsonpatch can apply); ``required`` fields
    may not be removed. A refused path is answered with the names a patch
    may change, ``listed`` in the reference's order (sorted if not given);
    a refused operation is quoted alone. The result is returned for
    whole-document validation by the caller.
    """
    validate(PATCH_SCHEMA, patch, "patch")
    required = set(required)
    roots = None if allowed_roots is None else \
        set(allowed_roots) - set(read_only)
    shown = ", ".join(listed if listed is not None else sorted(roots or ()))
    for op in patch:
        root = op["path"].split("/")[1]
        if roots is not None and root not in roots:
            raise exception.InvalidParameterValue(
                err=f"Cannot patch {op['path']}. Only the following can be "
                    f"updated: {shown}")
    result = doc
    for op in patch:
        try:
            result = jsonpatch.apply_patch(result, [op])
        except (jsonpatch.JsonPatchException,
                jsonpatch.JsonPointerException, KeyError, IndexError,
                TypeError) as e:
            raise exception.PatchError(patch=op, reason=str(e)) from e
    for name in required:
        # A null is left to the document's schema ("None is not of type").
        if name not in result:
            raise exception.InvalidParameterValue(
                err=f"Schema error for patch: '{name}' is a required "
                    f"property")
    limit = CONF.api.max_json_body_depth
    if body.depth_exceeds(result, limit):
        # Patches adding under ever deeper paths would otherwise grow a
        # document without bound, past what can be encoded again.
        raise exception.PatchError(
            patch=patch, reason=f"the patched document would nest deeper "
                                f"than {limit} levels")
    return result
