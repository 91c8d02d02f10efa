"""One collection controller for every resource, driven by its Spec.

``controller(spec)`` builds the pecan controller of a resource
(``descriptor.Spec``): the list with limit, marker, sort, fields, detail
and next links, the item, and the writes, each handler bounded with
``api_method`` by the features the Spec names. Query parameters of lists
and items are parsed here and nowhere else (``parse_list``,
``show_fields``), so every resource answers a bad value, a field too new
for the version or an unknown parameter alike; a repeated parameter is
refused before routing (``ironic.api.app``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterable

import pecan
from pecan import rest

from ironic.api import features, method, rest_routes
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.controllers.v1.descriptor import (
    Criteria,
    Filter,
    Query,
    Spec,
    check_names,
    need_version,
)
from ironic.api.method import api_method, expose
from ironic.common import exception, policy
from ironic.objects.base import uuids_for_ids


@dataclasses.dataclass
class ListArgs:
    """A list request's parsed paging, sorting and fields."""

    fields: list[str]
    limit: int
    marker: str | None
    sort_key: str
    sort_dir: str
    #: Every field was asked for (``/detail`` or ``?detail=true``).
    detail: bool = False


def parse_fields(spec: Spec, raw: str | None, ver: int) -> list[str] | None:
    """The fields a client asked for (None: it did not say)."""
    if raw is None:
        return None
    if spec.read_fields is not None:
        return spec.read_fields(raw, ver)
    if not spec.strict_fields:
        return api_utils.parse_fields(raw, spec.visible(ver))
    need_version(ver, features.FIELDS_SELECTION, "The 'fields' parameter")
    wanted = [f.strip() for f in raw.split(",") if f.strip()]
    check_names(spec, wanted, ver)
    return wanted


def _with_links(spec: Spec, fields: list[str]) -> list[str]:
    """``fields`` and those every item shows: timestamps first, links last,
    as Ironic 39 orders them."""
    always = spec.always()
    front = [f for f in always if f != "links" and f not in fields]
    back = ["links"] if "links" in always and "links" not in fields else []
    return front + fields + back if front or back else fields


def parse_sort_key(spec: Spec, raw: str | None, ver: int) -> str:
    key = raw or "id"
    if key == "id":
        return key
    if spec.sort_keys is not None:
        feature = spec.feature(key) or features.ALWAYS
        if key in spec.sort_keys and feature.available(ver):
            return key
        if spec.sort_too_new is not None and not feature.available(ver):
            raise spec.sort_too_new(key, feature)
        raise _unsortable(key)
    if spec.obj_cls is None:
        # Plain rows: the database refuses what it cannot sort by.
        return key
    # JSON documents have no meaningful order.
    cls = spec.obj_cls
    if key not in cls.fields or key not in cls.table_columns() or \
            key in cls.json_columns():
        raise _unsortable(key)
    check_names(spec, [key], ver, "sort key")
    return key


def _unsortable(key: str) -> exception.InvalidParameterValue:
    return exception.InvalidParameterValue(
        err=f"The sort_key value \"{key}\" is an invalid field for sorting")


def check_params(params: dict[str, Any], accepted: Any) -> None:
    unknown = set(params) - set(accepted)
    if unknown:
        raise exception.InvalidParameterValue(
            err=f"Unknown query parameter(s): {', '.join(sorted(unknown))}")


def _too_early(spec: Spec, params: dict[str, Any], ver: int) -> list[str]:
    return [p for p in params if (since := spec.param_since.get(p))
            is not None and not since.available(ver)]


def check_param_versions(spec: Spec, params: dict[str, Any], ver: int,
                         accepted: Any) -> None:
    """400 for parameters the request may not give (those taken from a
    later version among them when the Spec says so), then 406 for the
    others given before their version."""
    early = _too_early(spec, params, ver)
    if spec.early_param_status == 400:
        accepted = set(accepted) - set(early)
    check_params(params, accepted)
    if early:
        name = early[0]
        raise exception.NotAcceptable(
            f"The '{name}' parameter of {spec.singular} needs API version "
            f"{spec.param_since[name].version} or newer.")


def parse_detail(params: dict[str, Any], detail: bool, ver: int,
                 since: features.Since | None = features.DETAIL_PARAM
                 ) -> bool:
    """Whether a list shows every field: ``/detail`` or ``?detail=``
    (a parameter from ``since`` on, before it unknown: 400)."""
    if params.get("detail") is None:
        return detail
    if since is not None and not since.available(ver):
        raise exception.InvalidParameterValue(
            err="Invalid query parameter ?detail=True received.")
    return detail or api_utils.parse_bool(params["detail"], "detail")


def refuse_detail_param(params: dict[str, Any]) -> None:
    """``/detail`` shows every field already: ``?detail=`` is refused."""
    if "detail" in params:
        raise exception.InvalidParameterValue(
            err="The 'detail' parameter can not be used with /detail.")


def check_not_both(fields: list[str] | None, detail: bool) -> None:
    if fields is not None and detail:
        raise exception.InvalidParameterValue(
            err="Can not specify ?detail=True and fields in the same "
                "request.")


def parse_page(spec: Spec, params: dict[str, Any], ver: int
               ) -> tuple[int, str | None, str, str]:
    """limit, marker, sort key and direction of a list request."""
    marker, sort_dir = params.get("marker"), params.get("sort_dir", "")
    late = spec.page_read_late
    return (api_utils.parse_limit(params.get("limit")),
            api_utils.check_marker(marker) if spec.uuid_marker and not late
            else marker,
            parse_sort_key(spec, params.get("sort_key"), ver),
            sort_dir if late else api_utils.parse_sort_dir(sort_dir))


def _accepted(spec: Spec, q: Query) -> list[str]:
    """The parameters the list takes (less the filters its URL gives)."""
    return [p for p in spec.list_params()
            if not (q.scope and p in spec.filters
                    and spec.filters[p].scoped_by in q.scope)]


def parse_list(spec: Spec, q: Query, *, detail: bool = False) -> ListArgs:
    """Validate the query of a list request."""
    check_param_versions(spec, q.params, q.ver, _accepted(spec, q))
    fields = parse_fields(spec, q.params.get("fields"), q.ver)
    detail = parse_detail(q.params, detail, q.ver, spec.detail_param)
    check_not_both(fields, detail)
    if fields is None:
        fields = spec.visible(q.ver) if detail else spec.defaults(q.ver)
    limit, marker, sort_key, sort_dir = parse_page(spec, q.params, q.ver)
    spec.check_filters(q)
    return ListArgs(_with_links(spec, fields), limit, marker, sort_key,
                    sort_dir, detail)


def given(q: Query, *names: str) -> bool:
    """Whether any of the filters ``names`` is given, as a parameter with
    a value or as a parent in the URL."""
    return any(q.params.get(name) or name in q.scope for name in names)


def filter_criteria(filters: dict[str, Filter], q: Query) -> Criteria:
    """The criteria the list's filter parameters ask for."""
    conds: Criteria = []
    for name, flt in filters.items():
        value = q.params.get(name)
        if value is not None:
            need_version(q.ver, flt.feature, f"The '{name}' filter")
        elif flt.default is not None:
            value = flt.default
        else:
            continue
        conds += flt.criteria(value, q)
    return conds


def show_fields(spec: Spec, params: dict[str, Any], ver: int) -> list[str]:
    """The fields to show for a GET of one item."""
    unknown = set(params) - {"fields"}
    if unknown:
        raise spec.refuse_show_params(unknown)
    check_param_versions(spec, params, ver, params)
    fields = parse_fields(spec, params.get("fields"), ver)
    if fields is None:
        return spec.visible(ver)
    return _with_links(spec, fields)


def uuid_of(row: Any) -> str:
    return row["uuid"] if isinstance(row, dict) else row.uuid


def render(spec: Spec, rows: list, fields: list[str]) -> list[dict]:
    """The documents of rows, with only ``fields``."""
    if spec.render is not None:
        return spec.render(rows, fields)
    return row_documents(spec, rows, fields)


def row_documents(spec: Spec, rows: list[dict], fields: list[str]
                  ) -> list[dict]:
    """Documents of rows of columns: the UUIDs of related rows (looked up
    for the page at once), links to the item and its sub-resources, and
    timestamps with their offset."""
    links = api_utils.linker(spec.collection, method.public_url())
    # {id: UUID}, looked up with a row's id, which may be None; a row that
    # carries the UUID already (an item its request just wrote) is not
    # looked up again.
    related: dict[str, dict[Any, str]] = {}
    for name, table in spec.related.items():
        if name in fields:
            ids = [r.get(spec.sources[name]) for r in rows if name not in r]
            related[name] = uuids_for_ids(table, ids) if ids else {}
    out = []
    for row in rows:
        doc: dict[str, Any] = {}
        uuid = row["uuid"]
        for name in fields:
            if name in related:
                doc[name] = row[name] if name in row else \
                    related[name].get(row.get(spec.sources[name]))
            elif name == "links":
                doc[name] = links(uuid)
            elif name in spec.subresources:
                doc[name] = links(f"{uuid}/{name}")
            elif name in ("created_at", "updated_at"):
                doc[name] = api_utils.iso(row.get(name))
            else:
                doc[name] = row.get(name)
        out.append(doc)
    return out


def show(spec: Spec, obj: Any, fields: list[str] | None = None) -> dict:
    """The document of one item (every field of this version)."""
    fields = fields or spec.visible(method.version())
    return render(spec, [spec.row(obj)], fields)[0]


def list_items(spec: Spec, q: Query, *, detail: bool, url: str,
               within: Iterable[tuple[str, Any]] = ()) -> dict:
    """A page of the collection, with a ``next`` link when full;
    ``within``: criteria of a parent the caller found already."""
    if spec.params_first:
        check_param_versions(spec, q.params, q.ver, _accepted(spec, q))
    visible = spec.list_scope(q)
    args = parse_list(spec, q, detail=detail)
    criteria = filter_criteria(spec.filters, q) + list(within) + visible
    rows = spec.fetch(criteria, args, spec.columns_for(args.fields + [
        n for name, f in spec.filters.items() if q.params.get(name)
        for n in f.needs]))
    last, full = uuid_of(rows[-1]) if rows else None, len(rows) >= args.limit
    if spec.narrow is not None:
        rows = spec.narrow(rows, q)
    items = render(spec, rows, args.fields)
    return api_utils.collection(spec.list_key, items, args.limit, url,
                                q.params, last, full)


def object_fetch(spec_cls: Any, marker_not_found: Callable[[str], Exception]
                 | None = None, *, objects: bool = False
                 ) -> Callable[..., list]:
    """``Spec.fetch`` for an object class with ``list_rows``: rows of the
    columns the fields need, or whole objects."""
    def fetch(criteria: Criteria, args: ListArgs,
              columns: list[str] | None) -> list:
        page: dict[str, Any] = {}
        if columns is not None and not objects:
            page["columns"] = columns
        if marker_not_found is not None and args.marker is not None:
            page["marker_not_found"] = marker_not_found(args.marker)
        return spec_cls.list_rows(
            criteria, limit=args.limit, marker=args.marker,
            sort_key=args.sort_key, sort_dir=args.sort_dir, **page)
    return fetch


def records_fetch(store: Any) -> Callable[..., list]:
    """``Spec.fetch`` for a store of plain rows (``objects.records``)."""
    def fetch(criteria: Criteria, args: ListArgs,
              columns: list[str] | None) -> list:
        return store.list(criteria, limit=args.limit, marker=args.marker,
                          sort_key=args.sort_key, sort_dir=args.sort_dir)
    return fetch


def rule_hooks(kind: str, list_rule: str = "list") -> dict[str, Any]:
    """``authorize`` and ``list_scope`` of a resource whose policy rules
    target no node: ``baremetal:<kind>:<verb>``, listing with
    ``list_rule``."""
    def authorize(verb: str) -> None:
        rule = list_rule if verb == "list" else verb
        policy.authorize(f"baremetal:{kind}:{rule}", method.context())

    def list_scope(q: Query) -> Criteria:
        authorize("list")
        return []

    return {"authorize": authorize, "list_scope": list_scope}


def list_only(verb: str) -> Exception:
    """``Spec.refuse_nested`` of a resource whose nested views only list:
    items are managed at the top-level collection."""
    return exception.OperationNotPermitted()


class CollectionController(rest.RestController):
    """The controller of one Spec; ``controller()`` makes one per
    resource, bounded by the Spec's features."""

    spec: Spec

    def __init__(self, parent: str | None = None, **scope: str):
        #: The path of the parent item it is nested under (``nodes/X``).
        self.parent = parent
        self.scope = scope

    @pecan.expose()
    def _route(self, args, request):
        # GET of the collection or of one item, and POST of the
        # collection, skip pecan's signature walk (see rest_routes); every
        # other request is pecan's to route.
        return rest_routes.direct(self, args, request) or \
            super()._route(args, request)

    _lookup_child = rest_routes.handler_child

    def _query(self, params: dict[str, Any]) -> Query:
        return Query(params, method.version(), self.scope)

    def _url(self, detail: bool) -> str:
        url = f"{self.parent}/{self.spec.collection}" if self.parent \
            else self.spec.collection
        return url + ("/detail" if detail else "")

    def _refuse_nested(self, verb: str) -> None:
        refusal = self.spec.refuse_nested(verb) if self.scope else None
        if refusal is not None:
            raise refusal

    def _check_verb(self, verb: str) -> None:
        """Refusal of a nested view, then the Spec's authorization."""
        self._refuse_nested(verb)
        self.spec.authorize(verb)

    @expose()
    def _lookup(self, ident, sub=None, *remainder):
        if sub is None:
            return api_utils.item_without_handler(self, ident)
        if ident in self.spec.item_last:
            *middle, item = (sub, *remainder)
            return self.spec.subresources[ident].factory(
                item, self.scope), middle
        found = self.spec.subresources.get(sub)
        if found is None or not found.feature.available(method.version()):
            pecan.abort(404)
        return found.factory(ident, self.scope), remainder

    def _get_all(self, **params):
        return list_items(self.spec, self._query(params), detail=False,
                          url=self._url(False))

    def _detail(self, **params):
        refuse_detail_param(params)
        return list_items(self.spec, self._query(params), detail=True,
                          url=self._url(True))

    def _get_one(self, ident, **params):
        self._refuse_nested("get")
        spec = self.spec
        if spec.lookup_before_fields:
            show_fields(spec, {k: v for k, v in params.items()
                               if k != "fields"}, method.version())
            spec.authorize("get")
            obj = spec.item(ident, "get")
            return show(spec, obj,
                        show_fields(spec, params, method.version()))
        fields = show_fields(spec, params, method.version())
        spec.authorize("get")
        return show(spec, spec.item(ident, "get"), fields)

    def _post(self):
        self._check_verb("create")
        obj = self.spec.create(method.json_body(), method.version())
        pecan.response.location = (f"{method.public_url()}/v1/"
                                   f"{self.spec.collection}/{obj.uuid}")
        if self.spec.shown is not None:
            return self.spec.shown(obj)
        return show(self.spec, obj)

    def _patch(self, ident):
        self._check_verb("update")
        patch = method.json_body(list)
        obj = self.spec.item(ident, "update")
        return show(self.spec, self.spec.update(obj, patch,
                                                method.version()))

    def _delete(self, ident):
        self._check_verb("delete")
        self.spec.delete(self.spec.item(ident, "delete"))


def _handlers(spec: Spec) -> dict[str, Any]:
    """The pecan handlers of ``spec``'s controller, each bounded by
    ``api_method`` with the Spec's features."""
    b = spec.bounds
    base = CollectionController

    def read(**kw: Any) -> Callable:
        return api_method(b.feature, too_old_message=b.too_old_message,
                          **kw)

    def write(feature: features.Since | None = None,
              message: str | None = None, **kw: Any) -> Callable:
        return api_method(feature or b.feature, too_old=b.write_too_old,
                          too_old_message=message or b.too_old_message,
                          **kw)

    def get_all(self, **params):
        return base._get_all(self, **params)

    def get_one(self, ident, **params):
        return base._get_one(self, ident, **params)

    def post(self):
        return base._post(self)

    def patch(self, ident):
        return base._patch(self, ident)

    def delete(self, ident):
        return base._delete(self, ident)

    own = spec.handlers
    handlers = {
        "get_all": expose()(read()(own.get("get_all", get_all))),
        "get_one": expose()(read()(own.get("get_one", get_one))),
        "post": expose()(write(status=201)(own.get("post", post))),
        "patch": expose()(write(b.patch, b.patch_too_old_message)(
            own.get("patch", patch))),
        "delete": expose()(write(status=204)(own.get("delete", delete))),
    }
    if spec.detail_action:
        def detail(self, **params):
            return base._detail(self, **params)
        handlers["detail"] = expose()(read()(detail))
        handlers["_custom_actions"] = {"detail": ["GET"]}
    return handlers


def controller(spec: Spec, name: str) -> type[CollectionController]:
    """The controller class serving ``spec`` (``name``: its class name,
    as metrics and the OpenAPI document show it)."""
    namespace: dict[str, Any] = {"spec": spec, **_handlers(spec)}
    if spec.subresources:
        # Read by ironic.api.openapi: what hangs below an item.
        namespace["_subcontrollers"] = {
            sub: _bound_factory(found.factory)
            for sub, found in spec.subresources.items()}
        namespace["_sub_since"] = {
            sub: found.feature for sub, found in spec.subresources.items()}
    return type(name, (CollectionController,), namespace)


def _bound_factory(factory: Callable) -> Callable[[str], Any]:
    return lambda ident: factory(ident, {})
