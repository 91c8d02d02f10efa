"""One collection controller for every resource, driven by its Spec.

``controller(spec)`` builds the pecan controller of a resource
(``descriptor.Spec``): the list with limit, marker, sort, fields, detail
and next links, the item, and the writes, each handler bounded with
``api_method`` by the features the Spec names. Query parameters of lists
and items are parsed in one place (``list_query``), so every resource
answers a bad value, a field too new for the version or an unknown
parameter alike; a repeated parameter is refused before routing
(``ironic.api.app``).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import pecan
from pecan import rest

from ironic.api import features, method, rest_routes
from ironic.api.controllers.v1 import list_query
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.controllers.v1.descriptor import Criteria, Query, Spec
from ironic.api.method import api_method, expose
from ironic.common import exception, policy
from ironic.objects.base import uuids_for_ids


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
        list_query.check_param_versions(
            spec, q.params, q.ver, list_query.accepted_params(spec, q))
        visible = spec.list_scope(q)
        args = list_query.check_form(spec, q, detail=detail)
    else:
        args = list_query.check_form(spec, q, detail=detail)
        visible = spec.list_scope(q)
    args = list_query.check_meaning(spec, q, args)
    with list_query.marker_first(spec, args.marker):
        # What the filters name is looked up here, and the database may
        # refuse the sort key of rows without an object.
        criteria = list_query.filter_criteria(spec.filters, q) + \
            list(within) + visible
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
    def fetch(criteria: Criteria, args: list_query.ListArgs,
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
    def fetch(criteria: Criteria, args: list_query.ListArgs,
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
    items are managed at the top-level collection (Ironic 39 answers 400
    to an item or a create under a parent)."""
    return exception.MalformedRequestURI()


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

    def _refuse_nested_item(self, ident: str, verb: str) -> None:
        """Refusal of an item under a parent; where Ironic 39 looks the
        item up first, one it cannot find answers its 404 instead."""
        if self.scope and self.spec.nested_item_lookup:
            self.spec.authorize(verb)
            self.spec.item(ident, verb)
        self._refuse_nested(verb)

    @expose()
    def _lookup(self, ident, sub=None, *remainder):
        if sub is None:
            return api_utils.item_without_handler(self, ident)
        if ident in self.spec.item_last:
            *middle, item = (sub, *remainder)
            return self.spec.subresources[ident].factory(
                item, self.scope), middle
        found = self.spec.subresources.get(sub)
        if found is None and not remainder and hasattr(self, "get_one"):
            # Ironic 39 reads the segment after an item as the ``fields``
            # of its GET (/v1/nodes/X/name shows the name).
            return ItemFieldsView(self, ident, sub), []
        if found is None or not found.feature.available(method.version()):
            pecan.abort(404)
        return found.factory(ident, self.scope), remainder

    def _get_all(self, **params):
        return list_items(self.spec, self._query(params), detail=False,
                          url=self._url(False))

    def _detail(self, **params):
        list_query.refuse_detail_param(params)
        return list_items(self.spec, self._query(params), detail=True,
                          url=self._url(True))

    def _get_one(self, ident, **params):
        self._refuse_nested_item(ident, "get")
        spec = self.spec
        if spec.lookup_before_fields:
            list_query.show_fields(spec, {k: v for k, v in params.items()
                               if k != "fields"}, method.version())
            spec.authorize("get")
            spec.check_ident(ident, "get")
            obj = spec.item(ident, "get")
            return show(spec, obj,
                        list_query.show_fields(spec, params, method.version()))
        fields = list_query.show_fields(spec, params, method.version())
        spec.authorize("get")
        spec.check_ident(ident, "get")
        return show(spec, spec.item(ident, "get"), fields)

    def _post(self):
        self._check_verb("create")
        obj = self.spec.create(method.json_body(what=self.spec.body_name()),
                               method.version())
        pecan.response.location = (f"{method.public_url()}/v1/"
                                   f"{self.spec.collection}/{obj.uuid}")
        if self.spec.shown is not None:
            return self.spec.shown(obj)
        return show(self.spec, obj)

    def _patch(self, ident):
        self._refuse_nested_item(ident, "update")
        self._check_verb("update")
        patch = method.json_body(list, what="patch")
        self.spec.check_ident(ident, "update")
        obj = self.spec.item(ident, "update")
        return show(self.spec, self.spec.update(obj, patch,
                                                method.version()))

    def _delete(self, ident):
        self._refuse_nested_item(ident, "delete")
        self._check_verb("delete")
        self.spec.check_ident(ident, "delete")
        self.spec.delete(self.spec.item(ident, "delete"))


def invalid_path_fields(spec: Spec, unknown: list[str]) -> str:
    """Ironic 39's message for fields named in the path it does not know:
    nodes name the first, the other resources all of them."""
    if spec.singular == "node":
        return f"Field {unknown[0]} is not a valid field."
    return f'Field(s) "{", ".join(unknown)}" are not valid'


class ItemFieldsView(rest.RestController):
    """``/<collection>/<ident>/<fields>``: the item's GET with those
    fields; nothing else is served there."""

    def __init__(self, items: CollectionController, ident: str,
                 fields: str):
        self.items = items
        self.ident = ident
        self.fields = fields

    @expose()
    def get_all(self, **params):
        if "fields" in params:
            raise exception.InvalidParameterValue(
                err="The fields to show are given twice: in the path "
                    "and in the query.")
        # As Ironic 39 checks them: the version, then the item (404), then
        # each field, with the messages of its item handlers (not those
        # of its query validation).
        ver = method.version()
        if not features.FIELDS_SELECTION.available(ver):
            raise exception.NotAcceptable()
        spec = self.items.spec
        spec.authorize("get")
        spec.item(self.ident, "get")
        names = [f.strip() for f in self.fields.split(",") if f.strip()]
        bounds = [spec.feature(n) for n in names]
        if any(b is not None and not b.available(ver) for b in bounds):
            raise exception.NotAcceptable()
        unknown = [n for n in names if spec.feature(n) is None]
        if unknown:
            raise exception.InvalidParameterValue(
                err=invalid_path_fields(spec, unknown))
        return self.items.get_one(self.ident, fields=self.fields, **params)

    @expose()
    def _default(self, *args, **kwargs):
        raise exception.NotFound()


def _handlers(spec: Spec) -> dict[str, Any]:
    """The pecan handlers of ``spec``'s controller, each bounded by
    ``api_method`` with the Spec's features."""
    b = spec.bounds
    base = CollectionController

    def read(**kw: Any) -> Callable:
        return api_method(b.feature, too_old_message=b.too_old_message,
                          too_old_plain=b.plain_refusal, **kw)

    def write(feature: features.Since | None = None,
              message: str | None = None, **kw: Any) -> Callable:
        return api_method(feature or b.feature, too_old=b.write_too_old,
                          too_old_message=message or b.too_old_message,
                          too_old_plain=b.plain_refusal, **kw)

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
