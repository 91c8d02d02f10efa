"""The OpenAPI 3.1 document of the ``/v1`` API, built from the routes.

The pecan controller tree under ``/v1`` is walked the way pecan routes it:

* an attribute holding a controller is a path segment (``nodes`` of the
  ``/v1`` controller, ``connectors`` of the volume controller, or a segment
  routed with ``pecan.route`` such as ``openapi.json``);
* a ``RestController``'s handlers are its operations: ``get_all`` the
  collection, ``get_one`` an item, ``post``/``put``/``patch``/``delete``
  with one path segment per positional argument (an optional one gives the
  path with and without it), and its ``_custom_actions`` (``detail``,
  ``states/provision``...);
* ``_subcontrollers`` are the sub-resources of an item
  (``/nodes/{node_ident}/ports``), ``_children`` those of the controller
  itself (``/management/boot_device``); both map a segment to a factory
  taking the identifier in the URL, and ``_sub_since`` gives the version a
  sub-resource appeared in.

Every handler carries what ``ironic.api.method.api_method`` declares: the
versions it answers (``api_since``, ``api_until``) and the status of a
success (``api_status``). A document is made for one microversion and holds
only the operations that version routes.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
from typing import Any, Callable, Iterator, Mapping

from pecan import rest

from ironic.api import features, method, openapi_resources
from ironic.api.controllers.v1 import (
    allocation,
    chassis,
    collection,
    deploy_template,
    descriptor,
    event,
    inspection_rule,
    node,
    node_actions,
    node_edit,
    node_indicators,
    node_sub,
    node_vifs,
    node_vmedia,
    port,
    portgroup,
    ramdisk,
    runbook,
    versions,
)
from ironic.api.method import api_method, expose
from ironic.api.middleware import auth
from ironic.common import raid
from ironic.inspection_rules import validation
from ironic.objects.base import Body, Field

#: Handlers of a RestController and the HTTP method each answers.
_REST_HANDLERS = (("get_all", "get"), ("get", "get"), ("get_one", "get"),
                  ("post", "post"), ("put", "put"), ("patch", "patch"),
                  ("delete", "delete"))
#: Positional names that say nothing of what they identify.
_GENERIC = frozenset({"ident", "name"})

# The common query parameters of the lists: name -> (first version, schema).
_QUERY: dict[str, tuple[features.Since, dict]] = {
    "fields": (features.FIELDS_SELECTION, {"type": "string", "description":
                   "Comma-separated names of the fields to show."}),
    "limit": (features.ALWAYS, {"type": "integer", "minimum": 1}),
    "marker": (features.ALWAYS, {"type": "string", "description":
                   "The last item of the previous page."}),
    "sort_key": (features.ALWAYS, {"type": "string"}),
    "sort_dir": (features.ALWAYS, {"type": "string", "enum": ["asc", "desc"]}),
    "detail": (features.DETAIL_PARAM, {"type": "boolean"}),
}
_PAGED = ("limit", "marker", "sort_key", "sort_dir")
#: The query parameters of handlers that are no list, as they declare them.
_HANDLER_QUERY: dict[Callable, Mapping[str, Field]] = {
    ramdisk.LookupController.get_all: ramdisk.LOOKUP_QUERY,
    node_sub.MaintenanceController.put: node_sub.MAINTENANCE_QUERY,
}
#: Path parameters a handler checks as a typed value, by handler and name.
_PATH_PARAMS: dict[Callable, Mapping[str, Field]] = {
    node_sub.TraitsController.put: {"trait": node_sub.TRAIT},
    runbook.RunbookTraitsController.put: {"trait": node_sub.TRAIT},
}
#: Which of them each list takes, by the controller serving the list (the
#: lists parsed from a descriptor say it themselves).
_LIST_QUERY: dict[type, tuple[str, ...]] = {
    allocation.NodeAllocationController: ("fields",),
}

#: The JSON schemas handlers check their bodies with, where one schema
#: checks the body as sent (others build the document they check); a
#: ``Body`` gives at each version the members that version takes.
_BODIES: dict[Callable, dict | Body] = {
    node.NodesController.post: node_edit.NODE_SCHEMA,
    port.PortsController.post: port._PORT_SCHEMA,
    portgroup.PortgroupsController.post: portgroup._PORTGROUP_SCHEMA,
    chassis.ChassisController.post: chassis._CHASSIS_SCHEMA,
    allocation.AllocationsController.post: allocation.SCHEMA,
    deploy_template.DeployTemplatesController.post: deploy_template.SCHEMA,
    runbook.RunbooksController.post: runbook.SCHEMA,
    event.EventsController.post: event.EVENTS,
    inspection_rule.InspectionRulesController.post: validation.SCHEMA,
    node_actions.StatesController.provision: node_actions._PROVISION,
    node_actions.StatesController.power: node_actions._POWER,
    node_actions.StatesController.put_console: node_actions._CONSOLE,
    node_actions.StatesController.put_boot_mode: node_actions._BOOT_MODE,
    node_actions.StatesController.put_secure_boot:
        node_actions._SECURE_BOOT,
    node_actions.StatesController.put_raid: raid.RAID_CONFIG_SCHEMA,
    node_actions.BootDeviceController.put: node_actions._BOOT_DEVICE,
    node_indicators.IndicatorsController.put: node_indicators.STATE,
    node_vifs.VIFsController.post: node_vifs.VIF,
    node_vmedia.VmediaController.post: node_vmedia.ATTACH,
    ramdisk.HeartbeatController.post: ramdisk.HEARTBEAT,
    ramdisk.ContinueInspectionController.post: ramdisk.DATA,
    node_sub.MaintenanceController.put: node_sub.MAINTENANCE,
}
#: Bodies a handler takes only at its collection's own path (the path that
#: names an item, ``PUT .../traits/{trait}``, takes none).
_COLLECTION_BODIES: dict[Callable, Body] = {
    node_sub.TraitsController.put: node_sub.TRAITS,
    runbook.RunbookTraitsController.put: node_sub.TRAITS,
}

_VERSION_HEADER = "X-OpenStack-Ironic-API-Version"
_JSON_PATCH = {
    "type": "array",
    "description": "A JSON Patch document (RFC 6902).",
    "items": {
        "type": "object",
        "required": ["op", "path"],
        "properties": {
            "op": {"enum": ["add", "remove", "replace", "move", "copy",
                            "test"]},
            "path": {"type": "string"},
            "from": {"type": "string"},
            "value": {},
        },
    },
}
#: What ``ironic.api.middleware.errors.error_body`` writes.
_ERROR = {
    "type": "object",
    "required": ["error_message"],
    "properties": {
        "error_message": {
            "type": "string",
            "description": "A JSON document, encoded as a string.",
            "contentMediaType": "application/json",
            "contentSchema": {
                "type": "object",
                "required": ["faultstring", "faultcode"],
                "properties": {
                    "faultstring": {"type": "string"},
                    "faultcode": {"enum": ["Client", "Server"]},
                    "debuginfo": {"type": ["string", "null"]},
                },
            },
        },
    },
}


@dataclasses.dataclass(frozen=True)
class Route:
    """One operation the tree routes."""

    path: str
    http_method: str
    #: A function ``api_method`` decorated (its ``api_*`` attributes).
    handler: Any
    controller: type
    since: int
    until: int | None
    path_params: tuple[str, ...]
    query: tuple[str, ...]
    #: The list's filter parameters, with the feature that brought each.
    filters: tuple[tuple[str, features.Since], ...] = ()

    def routed_at(self, ver: int) -> bool:
        return features.Since(self.since, self.until).available(ver)


def routes(v1: object) -> list[Route]:
    """Every operation routed under ``/v1`` by the controller ``v1``."""
    return list(_walk(v1, "/v1", (), 1))


def _walk(ctrl: object, path: str, params: tuple[str, ...],
          since: int) -> Iterator[Route]:
    if isinstance(ctrl, rest.RestController):
        yield from _rest_routes(ctrl, path, params, since)
    else:
        handler = getattr(type(ctrl), "index", None)
        if _is_handler(handler):
            yield _route(ctrl, handler, "get", path + "/", params, since)
    for name, child in _attribute_children(ctrl):
        yield from _walk(child, f"{path}/{name}", params, since)
    subs = getattr(ctrl, "_subcontrollers", {})
    if subs:
        item = _item_param(ctrl, path)
        for name, factory in sorted(subs.items()):
            added = getattr(ctrl, "_sub_since", {}).get(name)
            gate = max(since, added.minor if added is not None else 1)
            yield from _walk(factory(f"{{{item}}}"),
                             f"{path}/{{{item}}}/{name}", (*params, item),
                             gate)
    for name, factory in sorted(getattr(ctrl, "_children", {}).items()):
        yield from _walk(factory(path), f"{path}/{name}", params, since)


def _rest_routes(ctrl: rest.RestController, path: str,
                 params: tuple[str, ...], since: int) -> Iterator[Route]:
    cls = type(ctrl)
    item = _item_param(ctrl, path)
    for name, verb in _REST_HANDLERS:
        handler = getattr(cls, name, None)
        if not _is_handler(handler):
            continue
        for extra in _segments(handler, item):
            sub = "".join(f"/{{{p}}}" for p in extra)
            yield _route(ctrl, handler, verb, path + sub, (*params, *extra),
                         since)
    for action, verbs in sorted(getattr(cls, "_custom_actions", {}).items()):
        for verb in verbs:
            handler = getattr(cls, f"{verb.lower()}_{action}", None) or \
                getattr(cls, action, None)
            if _is_handler(handler):
                yield _route(ctrl, handler, verb.lower(), f"{path}/{action}",
                             params, since)


def _segments(handler: Any, item: str) -> list[tuple[str, ...]]:
    """The path parameters after the controller's path, one tuple per path
    the handler answers (optional arguments: with and without)."""
    positional = _positional(handler)
    names = [item if i == 0 else p.name for i, p in enumerate(positional)]
    required = sum(1 for p in positional if p.default is p.empty)
    return [tuple(names[:n]) for n in range(required, len(names) + 1)]


def _positional(handler: Callable) -> list[inspect.Parameter]:
    sig = inspect.signature(handler)
    return [p for p in list(sig.parameters.values())[1:]
            if p.kind is p.POSITIONAL_OR_KEYWORD]


def _item_param(ctrl: object, path: str) -> str:
    """The name of the path parameter naming an item of ``ctrl``: the
    handlers' own name for it, qualified by the collection when generic
    (``node_ident``, ``driver_name``)."""
    cls = type(ctrl)
    for name in ("get_one", "patch", "delete", "put", "post", "_lookup"):
        handler = getattr(cls, name, None)
        positional = _positional(handler) if callable(handler) else []
        if positional:
            first = positional[0].name
            if first in _GENERIC:
                return f"{_singular(path.rsplit('/', 1)[-1])}_{first}"
            return first
    return f"{_singular(path.rsplit('/', 1)[-1])}_ident"


def _singular(segment: str) -> str:
    if segment.endswith("s") and not segment.endswith(("ss", "is", "os")):
        return segment[:-1]
    return segment


def _is_handler(obj: Any) -> bool:
    return callable(obj) and hasattr(obj, "api_since")


def _exposed(obj: Any) -> bool:
    return bool(getattr(obj, "exposed", False))


def _attribute_children(ctrl: object) -> Iterator[tuple[str, object]]:
    for name in sorted(dir(ctrl)):
        if name.startswith("_"):
            continue
        value = getattr(ctrl, name, None)
        if inspect.isroutine(value) or inspect.isclass(value):
            continue
        if any(_exposed(getattr(type(value), n, None))
               for n in dir(type(value))):
            yield name, value


def _route(ctrl: object, handler: Any, verb: str, path: str,
           params: tuple[str, ...], since: int) -> Route:
    cls = type(ctrl)
    query: tuple[str, ...] = ()
    takes_query = any(p.kind is p.VAR_KEYWORD for p in
                      inspect.signature(handler).parameters.values())
    filters: tuple[tuple[str, features.Since], ...] = ()
    listed = _list_query(cls)
    if takes_query and verb == "get":
        if handler.__name__ in ("get_all", "detail"):
            query = tuple(q for q in listed
                          if q != "detail" or handler.__name__ == "get_all")
            filters = _list_filters(ctrl)
        elif handler.__name__ == "get_one" and "fields" in listed:
            query = _item_query(cls)
    return Route(path=path, http_method=verb, handler=handler,
                 controller=cls, since=max(since, handler.api_since),
                 until=handler.api_until, path_params=params, query=query,
                 filters=filters)


def _list_filters(ctrl: object) -> tuple[tuple[str, features.Since], ...]:
    """The filters of a list, as its descriptor declares them (less those
    a nested view takes from its URL)."""
    if isinstance(ctrl, collection.CollectionController):
        return tuple((name, f.feature)
                     for name, f in ctrl.spec.filters.items()
                     if f.scoped_by not in ctrl.scope)
    if isinstance(ctrl, chassis.ChassisNodesController):
        return tuple((name, f.feature)
                     for name, f in ctrl.spec.filters.items())
    return ()


def _item_query(cls: type) -> tuple[str, ...]:
    """The query parameters a GET of one item takes, where its list takes
    ``fields``: those its descriptor names, else ``fields``."""
    spec = getattr(cls, "spec", None)
    if isinstance(spec, descriptor.Spec):
        return spec.item_params
    return ("fields",)


def _list_query(cls: type) -> tuple[str, ...]:
    """The common list parameters the controller ``cls`` takes."""
    spec = getattr(cls, "spec", None)
    if isinstance(spec, descriptor.Spec):
        # Collections and the other lists parsed from a descriptor.
        return tuple(p for p in spec.list_params() if p in _QUERY)
    return next((q for c, q in _LIST_QUERY.items() if issubclass(cls, c)),
                ())


# --- the document ---------------------------------------------------------

def document(v1: object, ver: int) -> dict:
    """The OpenAPI document of the API as version 1.``ver`` routes it."""
    paths: dict[str, dict] = {}
    for r in routes(v1):
        if r.routed_at(ver):
            paths.setdefault(r.path, {})[r.http_method] = _operation(r, ver)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "OpenStack Bare Metal API",
            "version": f"1.{ver}",
            "description": f"The Bare Metal API at microversion 1.{ver} "
                           f"(this service answers "
                           f"{versions.MIN_VERSION_STRING} to "
                           f"{versions.MAX_VERSION_STRING}).",
        },
        # noauth deployments take no credentials at all.
        "security": [{"token": []}, {"basic": []}, {}],
        "paths": dict(sorted(paths.items())),
        "components": _components(ver),
    }


def _operation(r: Route, ver: int) -> dict:
    op: dict[str, Any] = {
        "operationId": re.sub(r"[^A-Za-z0-9]+", "_",
                              f"{r.http_method}{r.path}").strip("_"),
        "summary": _summary(r),
        "tags": [r.path.split("/")[2] if r.path.count("/") > 1 else "v1"],
        "parameters": _parameters(r, ver),
        "responses": _responses(r, ver),
        "x-openstack-microversions": {
            "min": f"1.{r.since}",
            **({"max": f"1.{r.until}"} if r.until is not None else {})},
    }
    body = _request_body(r, ver)
    if body:
        op["requestBody"] = body
    concrete = re.sub(r"\{[^}]+\}", "x", r.path)
    if auth.is_public_path(concrete):
        op["security"] = []
    return op


def _summary(r: Route) -> str:
    doc = inspect.getdoc(r.handler)
    return doc.splitlines()[0] if doc else \
        f"{r.http_method.upper()} {r.path}"


def _parameters(r: Route, ver: int) -> list[dict]:
    out: list[dict] = [{"$ref": "#/components/parameters/Version"}]
    typed = _PATH_PARAMS.get(r.handler, {})
    out += [{"name": p, "in": "path", "required": True,
             "schema": typed[p].body_schema() if p in typed else
             {"type": "string", "minLength": 1}}
            for p in r.path_params]
    for name in r.query:
        since, schema = _QUERY[name]
        if since.available(ver):
            out.append({"name": name, "in": "query", "required": False,
                        "schema": schema})
    out += [{"name": name, "in": "query", "required": False,
             "schema": {"type": "string"}}
            for name, since in r.filters if since.available(ver)]
    # (a query string holds strings: the kind is the field's description)
    out += [{"name": name, "in": "query", "required": False,
             "description": field.doc, "schema": {"type": "string"}}
            for name, field in _HANDLER_QUERY.get(r.handler, {}).items()]
    return out


def _request_body(r: Route, ver: int) -> dict | None:
    if r.http_method in ("get", "delete"):
        return None
    if r.http_method == "patch" and _positional(r.handler) and \
            _positional(r.handler)[0].default is inspect.Parameter.empty:
        return {"required": True, "content": {
            "application/json": {"schema": _JSON_PATCH}}}
    declared = _BODIES.get(r.handler)
    if declared is None and not r.path.endswith("}"):
        declared = _COLLECTION_BODIES.get(r.handler)
    known = declared.at(ver) if isinstance(declared, Body) else declared
    if known is None and r.http_method == "post":
        known = openapi_resources.create_body(r.controller)
    if known is not None:
        known = openapi_resources.request(r.controller, known, ver)
    optional = isinstance(declared, Body) and declared.optional
    return {"required": known is not None and not optional, "content": {
        "application/json": {"schema": known or {"type": "object"}}}}


def _responses(r: Route, ver: int) -> dict:
    status = r.handler.api_status
    schema = openapi_resources.response(r.controller, r.handler, ver)
    if status in (202, 204) and not schema:
        success: dict = {"description": "Accepted" if status == 202
                         else "No content"}
    else:
        # (An accepted inspection answers what the agent is to do.)
        success = {"description": "Accepted" if status == 202 else
                   "Success", "content": {
                       "application/json": {"schema": schema}}}
    return {str(status): success,
            "4XX": {"$ref": "#/components/responses/Error"},
            "5XX": {"$ref": "#/components/responses/Error"}}


def _components(ver: int) -> dict:
    return {
        "parameters": {"Version": {
            "name": _VERSION_HEADER, "in": "header", "required": True,
            "description": "The microversion this document describes.",
            "schema": {"type": "string", "enum": [f"1.{ver}"]}}},
        "responses": {"Error": {
            "description": "The request failed; the body says why.",
            "content": {"application/json": {"schema": _ERROR}}}},
        "schemas": {"Error": _ERROR},
        "securitySchemes": {
            "token": {"type": "apiKey", "in": "header",
                      "name": "X-Auth-Token",
                      "description": "A Keystone token "
                                     "(auth_strategy = keystone)."},
            "basic": {"type": "http", "scheme": "basic",
                      "description": "auth_strategy = http_basic."}},
    }


@functools.lru_cache(maxsize=None)
def encoded(v1_cls: type, ver: int) -> bytes:
    """The document for 1.``ver`` as JSON, made once per version."""
    return method.dumps(document(v1_cls(), ver))


class DocumentController(rest.RestController):
    """``/v1/openapi.json``: the document for the negotiated version."""

    def __init__(self, v1_cls: type):
        self._v1_cls = v1_cls

    @expose()
    @api_method()
    def get_all(self):
        """The OpenAPI document of this API at the requested version."""
        return encoded(self._v1_cls, method.version())
