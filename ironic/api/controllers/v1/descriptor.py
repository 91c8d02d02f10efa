"""What the API knows about one resource, declared as data.

A ``Spec`` names a resource's fields (an object's declared fields plus the
API-only ones such as ``node_uuid`` or ``links``, or all of them for rows
without an object) with the feature that introduced each, its default
fields, the query parameters that filter its list and what each becomes in
the object layer's criteria, its sort keys, sub-resources, and the hooks
that find, render, create, change and delete its items.
``ironic.api.controllers.v1.collection`` serves every resource from its
Spec; queries are parsed there only, so a field never appears, filters or
sorts before its version: a field a client names too early is 406, a field
that never existed is 400.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Any, Callable, Iterable, Mapping

from oslo_utils import strutils

from ironic.api import features, query
from ironic.common import exception, utils

Criteria = list[tuple[str, Any]]
#: Refuses (400) a filter's value that is not of the filter's form:
#: ``check(name, value)``.
ValueCheck = Callable[[str, str], None]

#: The query parameters lists share: what a list shows and its page.
COMMON_PARAMS = ("fields", "detail", "limit", "marker", "sort_key",
                 "sort_dir")


@dataclasses.dataclass(frozen=True)
class Query:
    """One request to a collection: its query parameters, version, and the
    items of the parent resources it is nested under (``{"node": ident}``
    for ``/v1/nodes/{ident}/ports``)."""

    params: dict[str, Any]
    ver: int
    scope: dict[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Filter:
    """A query parameter narrowing a list: from ``feature`` on (406
    before), its value turned into object-layer criteria."""

    criteria: Callable[[str, Query], Criteria]
    feature: features.Since = features.ALWAYS
    #: Ignored in a list nested under this parent (the URL names it).
    scoped_by: str | None = None
    #: The form every given value must have, an empty one too, checked
    #: with the page's parameters: before the marker or anything the value
    #: names is looked up.
    check: ValueCheck | None = None
    #: The value read when the parameter is not given, at any version
    #: (the node list leaves child nodes out unless asked).
    default: str | None = None
    #: Fields whose columns the list reads when the filter is given: one
    #: the rows read are narrowed by (``Spec.narrow``), not the database.
    needs: tuple[str, ...] = ()


# --- the forms of filter values ----------------------------------------------
# Ironic 39 checks a query parameter's form in one of two ways, each with
# its own message: its argument checks ("Expected UUID for node_uuid: x")
# and, for some resources, a JSON schema ("Schema error: 'x' is not a
# 'uuid'"). A Filter names the one its resource answers with.

#: A MAC address as a query takes it: six colon-separated octets (no
#: dashes, no InfiniBand GUID).
_QUERY_MAC = re.compile(r"([0-9a-f]{2}:){5}[0-9a-f]{2}", re.IGNORECASE)


def is_query_mac(value: str) -> bool:
    return bool(_QUERY_MAC.fullmatch(value))


def is_uuid_or_name(value: str) -> bool:
    return utils.is_uuid_like(value) or utils.is_valid_logical_name(value)


def expected(what: str, valid: Callable[[str], bool]) -> ValueCheck:
    """A value ``valid`` accepts, or 400 "Expected <what> for <name>:
    <value>"."""
    def check(name: str, value: str) -> None:
        if query.is_repeated(value) or not valid(value):
            raise query.expected(what, name, value)
    return check


def uuid_or_logical_name(_name: str, value: str) -> None:
    """An identifier refused as Ironic 39's older resources refuse one
    ("Expected a logical name or UUID but received ...")."""
    if not is_uuid_or_name(value):
        raise exception.InvalidUuidOrName(name=value)


def boolean(name: str, value: str) -> None:
    """A boolean filter's value (its criteria read it again)."""
    if query.is_repeated(value) or \
            strutils.bool_from_string(value, default=None) is None:
        raise query.not_boolean(name, value)


def schema_format(fmt: str, valid: Callable[[str], bool], *,
                  alternatives: bool = False) -> ValueCheck:
    """A value ``valid`` accepts, or 400 as a schema's ``format`` refuses
    it; ``alternatives``: the schema offers others beside ``fmt`` (a UUID
    or a name), and the message says none fits."""
    def check(name: str, value: str) -> None:
        if query.is_repeated(value):
            raise query.not_a_string(value, alternatives=alternatives)
        if valid(value):
            return
        reason = f"{value!r} is not a {fmt!r}"
        if alternatives:
            reason = (f"{value!r} is not valid under any of the given "
                      f"schemas. Possible root cause: {reason}")
        raise exception.InvalidParameterValue(err=f"Schema error: {reason}")
    return check


#: The checks most identifiers take, made once: a UUID or a name, a UUID,
#: and a UUID refused in a JSON schema's words.
UUID_OR_NAME = expected("UUID or name", is_uuid_or_name)
IS_UUID = expected("UUID", utils.is_uuid_like)
SCHEMA_UUID = schema_format("uuid", utils.is_uuid_like)


@dataclasses.dataclass(frozen=True)
class Bounds:
    """The versions the handlers answer (``api_method``): reads from
    ``feature`` on, writes too unless ``write`` differs; ``patch`` when
    updates came later. Before the feature reads answer 404, writes
    ``write_too_old``."""

    feature: features.Since = features.ALWAYS
    too_old_message: str | None = None
    write_too_old: int = 404
    patch: features.Since | None = None
    patch_too_old_message: str | None = None
    #: The version refusals come in a plain HTTP error body, as Ironic 39
    #: answers for some resources (``method.PlainRefusal``).
    plain_refusal: bool = False


@dataclasses.dataclass(frozen=True)
class SubResource:
    """``/<collection>/{ident}/<name>``: a controller built for the item
    (and the parents it is under), routed from ``feature`` on."""

    factory: Callable[[str, dict[str, str]], Any]
    feature: features.Since = features.ALWAYS


def _unknown_show_params(unknown: list[str]) -> Exception:
    return query.unexpected_arguments(unknown)


def _nothing(*args: Any) -> Any:
    return []


def _allowed(verb: str) -> None:
    """No rule of the resource's own: its items' hooks authorize."""


def _not_served(*args: Any) -> Any:
    raise exception.OperationNotPermitted()


def _identity(obj: Any) -> Any:
    return obj


def _no_parent_refusal(verb: str) -> Exception | None:
    return None


def _any_filters(q: Query) -> None:
    """Every filter may be combined with every other."""


@dataclasses.dataclass(frozen=True)
class Spec:
    """One API resource: fields, filters, sort keys, sub-resources,
    renderer and item hooks."""

    singular: str
    #: Path under /v1 (``volume/connectors``).
    collection: str
    #: The object class whose declared fields (with ``since``) and columns
    #: the resource shows; None for rows without one (all in api_fields).
    obj_cls: Any
    #: API-only fields (not object fields) -> the feature that added each.
    api_fields: dict[str, features.Since]
    #: Shown by a list without ``fields``/``detail``; None: every field.
    default_fields: tuple[str, ...] | None
    #: API field -> column holding the data it is rendered from.
    sources: dict[str, str] = dataclasses.field(default_factory=dict)
    #: API field -> the resource (db table name) whose UUID it shows, the
    #: row's id in the field's source column (``node_uuid``: ``node``).
    related: dict[str, str] = dataclasses.field(default_factory=dict)
    #: JSON key of the list (default: the last segment of the path).
    key: str = ""
    bounds: Bounds = Bounds()
    filters: dict[str, Filter] = dataclasses.field(default_factory=dict)
    #: None: the object's plain (non-JSON) columns, or for rows without an
    #: object whatever the database sorts by.
    sort_keys: frozenset[str] | None = None
    #: ``?detail=`` from this feature on (400 before, as an unknown
    #: parameter); None: never a parameter of this list.
    detail_param: features.Since | None = features.DETAIL_PARAM
    #: ``/<collection>/detail`` is served.
    detail_action: bool = True
    #: Names checked field by field (unknown 400 naming the resource, too
    #: new 406) and links always shown; False: the older answer (any name
    #: not shown at this version is 400 "Field(s) ... are not valid").
    strict_fields: bool = True
    #: Fields every item shows, whatever ``fields`` names (Ironic 39 links
    #: every item; BIOS settings and firmware components also come with
    #: their timestamps); None: ``links`` when the resource has them.
    always_shown: tuple[str, ...] | None = None
    #: What a field named before its version answers: 406, or 400 (as the
    #: reference answers for firmware components).
    too_new_status: int = 406
    #: The common parameters the list takes (``COMMON_PARAMS``; a list
    #: served whole takes no paging ones); ``detail`` only with
    #: ``detail_param``.
    params: tuple[str, ...] = COMMON_PARAMS
    #: Parameters taken from a later version than the resource itself:
    #: before it they answer ``early_param_status``, 406 naming the
    #: version or 400 as an unknown parameter.
    param_since: dict[str, features.Since] = dataclasses.field(
        default_factory=dict)
    early_param_status: int = 406
    #: Markers are UUIDs (400 otherwise); False: the list's own key (a
    #: conductor's hostname), which only the lookup can refuse.
    uuid_marker: bool = True
    #: The list's string parameters (marker, sort key and direction,
    #: filters without a check of their own) are checked by a JSON schema,
    #: as Ironic 39 checks some resources' queries: one given twice is a
    #: "Schema error", not "Expected string".
    schema_query: bool = False
    #: The form an item's identifier must have, by verb ("get", "update",
    #: "delete"): the name Ironic 39 gives the path argument and the
    #: check that refuses it in its words, before the item is looked up.
    ident_forms: Mapping[str, tuple[str, ValueCheck]] = \
        dataclasses.field(default_factory=dict)
    #: A GET of one item finds it before it checks ``fields`` (an unknown
    #: item is 404 whatever ``fields`` names), as the reference does for
    #: some resources; parameters other than ``fields`` are refused first.
    lookup_before_fields: bool = False
    #: The query parameters a GET of one item takes; the OpenAPI document
    #: lists them.
    item_params: tuple[str, ...] = ("fields",)
    subresources: dict[str, SubResource] = dataclasses.field(
        default_factory=dict)
    #: Sub-resources also reached by a legacy form with the item last:
    #: ``/v1/nodes/states/console/{node}`` is
    #: ``/v1/nodes/{node}/states/console``.
    item_last: frozenset[str] = frozenset()
    #: Unknown list parameters are refused before ``list_scope`` asks for
    #: the caller's rights (as the node list answers).
    params_first: bool = False
    #: The marker and sort direction reach ``fetch`` as given, to be read
    #: once the filters are (the node list's order of answers).
    page_read_late: bool = False

    # --- hooks ----------------------------------------------------------
    #: Called on a list once the form of its query is checked:
    #: authorization; criteria limiting it to what the caller may see and
    #: to the parents in the URL.
    list_scope: Callable[[Query], Criteria] = _nothing
    #: A page of rows: (criteria, columns or None, limit, marker,
    #: sort_key, sort_dir).
    fetch: Callable[..., list] = _nothing
    #: Documents of rows (dicts or objects) with only ``fields``; None:
    #: rows of columns shown as they are (``collection.row_documents``).
    render: Callable[[list, list[str]], list[dict]] | None = None
    #: The row ``render`` takes for one loaded item.
    row: Callable[[Any], Any] = _identity
    #: Authorization asked before anything else for a verb (get, create,
    #: update, delete); resources whose rules target a node do it in
    #: ``item``.
    authorize: Callable[[str], None] = _allowed
    #: The item ``ident`` names, once the caller may ``verb`` it.
    item: Callable[[str, str], Any] = _not_served
    #: A new item from a POST body (validated, authorized, created).
    #: The name the reference gives a create body it refuses ("Schema
    #: error for <name>: ..."): "" for the singular, None for no name.
    body_title: str | None = ""
    create: Callable[[dict, int], Any] = _not_served
    #: The item after a JSON patch (validated and saved).
    update: Callable[[Any, list, int], Any] = _not_served
    delete: Callable[[Any], None] = _not_served
    #: What a nested view (a parent in the URL) answers to anything but a
    #: list; None: the nested view serves it too.
    refuse_nested: Callable[[str], Exception | None] = _no_parent_refusal
    #: Whether a nested view looks an item up (404 when missing) before
    #: ``refuse_nested`` refuses it, as Ironic 39 does for port groups and
    #: volume connectors and targets, not for ports.
    nested_item_lookup: bool = False
    #: Refuses filters the list does not take together (each was checked
    #: on its own by then; the URL's parents count as given).
    check_filters: Callable[[Query], None] = _any_filters
    #: What a GET of one item answers to query parameters it does not take
    #: (``item_params``), named in the order given.
    refuse_show_params: Callable[[list[str]], Exception] = \
        _unknown_show_params
    #: ``fields`` read the resource's own way, shared with its own GET
    #: handler (None: as ``strict_fields`` says).
    read_fields: Callable[[str, int], list[str] | None] | None = None
    #: What a sort key named before its version answers (None: 400, as
    #: one that cannot sort).
    sort_too_new: Callable[[str, features.Since], Exception] | None = None
    #: The columns the list reads for these fields (None:
    #: ``columns_for``).
    columns: Callable[[list[str]], list[str] | None] | None = None
    #: The rows of a page kept by filters the database cannot apply; a
    #: page left short still links to the next.
    narrow: Callable[[list, Query], list] | None = None
    #: The answer of a create: the item as its GET shows it (None: its
    #: document with every field of the version).
    shown: Callable[[Any], Any] | None = None
    #: Handlers the resource answers its own way, bounded like the
    #: generic ones: name (``get_one``, ``patch``...) -> a function of the
    #: controller and the handler's arguments.
    handlers: dict[str, Callable] = dataclasses.field(default_factory=dict)

    def check_ident(self, ident: str, verb: str) -> None:
        """400 for an item identifier not of the verb's form."""
        form = self.ident_forms.get(verb)
        if form is not None:
            name, check = form
            check(name, ident)

    def check_marker(self, value: str | None) -> str | None:
        """A marker of the list's form (400 otherwise)."""
        if value is None:
            return None
        if self.uuid_marker:
            (SCHEMA_UUID if self.schema_query else IS_UUID)("marker", value)
        elif query.is_repeated(value):
            raise query.not_a_string(value) if self.schema_query \
                else query.expected("string", "marker", value)
        return value

    @property
    def list_key(self) -> str:
        return self.key or self.collection.rsplit("/", 1)[-1]

    def feature(self, name: str) -> features.Since | None:
        """The feature that introduced field ``name`` (None: no such
        field)."""
        if name in self.api_fields:
            return self.api_fields[name]
        field = self.obj_cls.fields.get(name) if self.obj_cls else None
        if field is None or field.since is None:
            return None
        return features.of_field(field.since)

    def since(self, name: str) -> int | None:
        """Minor version that introduced field ``name``."""
        feature = self.feature(name)
        return feature.minor if feature else None

    @functools.cached_property
    def _known(self) -> tuple[str, ...]:
        # Fixed, as the fields per version: worked out once, not on every
        # request.
        names = list(self.obj_cls.fields) if self.obj_cls else []
        names += [n for n in self.api_fields if n not in names]
        return tuple(n for n in names if self.feature(n) is not None)

    def body_name(self) -> str | None:
        """The name a refused create body is given (``body_title``)."""
        return self.singular if self.body_title == "" else self.body_title

    def known(self) -> list[str]:
        return list(self._known)

    @functools.cached_property
    def _visible(self) -> dict[int, tuple[str, ...]]:
        return {}

    @functools.cached_property
    def _defaults(self) -> dict[int, tuple[str, ...]]:
        return {}

    def visible(self, ver: int) -> list[str]:
        names = self._visible.get(ver)
        if names is None:
            names = self._visible[ver] = tuple(
                n for n in self._known
                if (f := self.feature(n)) is not None and f.available(ver))
        return list(names)

    def defaults(self, ver: int) -> list[str]:
        """The fields a list shows without ``fields`` or ``detail``."""
        if self.default_fields is None:
            return self.visible(ver)
        names = self._defaults.get(ver)
        if names is None:
            names = self._defaults[ver] = tuple(
                f for f in self.default_fields
                if (feature := self.feature(f)) is not None
                and feature.available(ver))
        return list(names)

    def columns_for(self, fields: Iterable[str]) -> list[str] | None:
        """Database columns needed to render ``fields`` (None: rows
        without an object come whole)."""
        if self.columns is not None:
            return self.columns(list(fields))
        if self.obj_cls is None:
            return None
        cols = {"id", "uuid"}
        for name in fields:
            if name in self.sources:
                cols.add(self.sources[name])
            elif name in self.obj_cls.fields:
                cols.add(name)
        return [c for c in self.obj_cls.table_columns() if c in cols]

    def always(self) -> tuple[str, ...]:
        """The fields every item shows, whatever ``fields`` names."""
        if self.always_shown is not None:
            return self.always_shown
        return ("links",) if "links" in self._known else ()

    def list_params(self) -> tuple[str, ...]:
        """The query parameters the list takes, the common ones first."""
        common = [p for p in self.params
                  if p != "detail" or self.detail_param is not None]
        return (*common, *self.filters)


def check_names(spec: Spec, names: Iterable[str], ver: int,
                what: str = "field") -> None:
    """400 for names the resource never had, 406 for ones too new."""
    known = set(spec.known())
    unknown = [n for n in names if n not in known]
    if unknown:
        raise exception.InvalidParameterValue(
            err=f"Unknown {what}(s) for {spec.singular}: "
                f"{', '.join(sorted(unknown))}")
    for name in names:
        since = spec.feature(name)
        if since is not None and not since.available(ver):
            message = (f"The {what} '{name}' of {spec.singular} needs API "
                       f"version {since.version} or newer.")
            if spec.too_new_status == 400:
                raise exception.InvalidParameterValue(err=message)
            raise exception.NotAcceptable(message)


def need_version(ver: int, feature: features.Since, what: str) -> None:
    """406 naming ``what`` when ``ver`` predates ``feature``."""
    if not feature.available(ver):
        raise exception.NotAcceptable(
            f"{what} needs API version {feature.version} or newer.")
