"""/v1/nodes: create, list, show, update and delete nodes; traits; states."""

from __future__ import annotations

import copy
import functools
import re
from typing import Any, Callable, Container, Sequence

import pecan
from pecan import rest

from ironic import hash_ring
from ironic.api import document_cache, features, method
from ironic.api.controllers.v1 import (
    node_driver,
    node_policy,
    node_sub,
    versions,
)
from ironic.api.controllers.v1 import port as port_api
from ironic.api.controllers.v1 import portgroup as portgroup_api
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, interface_catalog, policy, states, utils
from ironic.conductor import rpcapi
from ironic.objects import node as node_obj
from ironic.objects.base import uuids_for_ids
from ironic.objects.chassis import Chassis
from ironic.objects.node import Node, NodeSnapshot

# Fields the API adds that are not columns of the nodes table, with the
# feature that introduced each.
_RELATION_SINCE = {
    "chassis_uuid": features.ALWAYS, "links": features.ALWAYS,
    "ports": features.ALWAYS, "portgroups": features.PORTGROUP_SUBRESOURCES,
    "states": features.SUBRESOURCE_LINKS, "volume": features.VOLUME,
    "conductor": features.NODE_CONDUCTOR,
    "allocation_uuid": features.NODE_ALLOCATION, "traits": features.TRAITS,
}
HIDDEN_FIELDS = {"chassis_id", "conductor_affinity", "allocation_id"}
#: Fields shown from rows of other tables (see Relations).
_RELATED = frozenset({"allocation_uuid", "chassis_uuid", "traits"})
DEFAULT_LIST_FIELDS = ("instance_uuid", "maintenance", "name",
                       "power_state", "provision_state", "uuid")
# What a client may send on create, beyond the version-gated fields.
_CREATABLE = {
    "uuid", "name", "driver", "driver_info", "properties", "extra",
    "instance_info", "instance_uuid", "chassis_uuid", "resource_class",
    "conductor_group", "owner", "lessee", "description", "network_data",
    "automated_clean", "protected", "protected_reason", "retired",
    "retired_reason", "shard", "parent_node", "disable_power_off",
    "instance_name", "target_raid_config", "maintenance",
    "maintenance_reason",
} | set(interface_catalog.COLUMNS)
_PATCHABLE = _CREATABLE - {"uuid", "target_raid_config"}
_REQUIRED = ("driver",)

_NULLABLE_STRING = {"type": ["string", "null"], "maxLength": 255}
_NODE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "uuid": {"type": ["string", "null"]},
        "name": {"type": ["string", "null"], "maxLength": 255},
        "driver": {"type": "string", "minLength": 1, "maxLength": 255},
        "driver_info": {"type": ["object", "null"]},
        "properties": {"type": ["object", "null"]},
        "extra": {"type": ["object", "null"]},
        "instance_info": {"type": ["object", "null"]},
        "network_data": {"type": ["object", "null"]},
        "target_raid_config": {"type": ["object", "null"]},
        "instance_uuid": {"type": ["string", "null"]},
        "chassis_uuid": {"type": ["string", "null"]},
        "resource_class": {"type": ["string", "null"], "maxLength": 80},
        "conductor_group": {"type": ["string", "null"], "maxLength": 255,
                            "pattern": r"^[a-zA-Z0-9_\-\.:]*$"},
        "owner": _NULLABLE_STRING,
        "lessee": _NULLABLE_STRING,
        "description": {"type": ["string", "null"], "maxLength": 4096},
        "automated_clean": {"type": ["boolean", "null"]},
        "protected": {"type": "boolean"},
        "protected_reason": {"type": ["string", "null"]},
        "retired": {"type": ["boolean", "null"]},
        "retired_reason": {"type": ["string", "null"]},
        "maintenance": {"type": "boolean"},
        "maintenance_reason": {"type": ["string", "null"]},
        "shard": _NULLABLE_STRING,
        "parent_node": {"type": ["string", "null"]},
        "disable_power_off": {"type": "boolean"},
        "instance_name": _NULLABLE_STRING,
        **{name: _NULLABLE_STRING for name in interface_catalog.COLUMNS},
    },
    "required": ["driver"],
    "additionalProperties": False,
}


def field_feature(name: str) -> features.Since | None:
    """The feature that introduced the node field ``name`` (None: no such
    field)."""
    if name in _RELATION_SINCE:
        return _RELATION_SINCE[name]
    field = Node.fields.get(name)
    if field is None or field.since is None:
        return None
    return features.of_field(field.since)


def field_since(name: str) -> int | None:
    """Minor version that introduced the node field ``name`` (None: no
    such field)."""
    feature = field_feature(name)
    return feature.minor if feature else None


def _too_new(name: str, ver: int) -> features.Since | None:
    """The feature a field of a request needs, when ``ver`` predates it."""
    feature = field_feature(name)
    if feature is None or feature.available(ver):
        return None
    return feature


def visible_fields(ver: int) -> list[str]:
    return list(_visible_fields(ver))


@functools.cache
def _visible_fields(ver: int) -> tuple[str, ...]:
    # Fixed per version; computed once instead of on every request.
    # (traits is both an object field and a relation: listed once.)
    return tuple(dict.fromkeys(
        n for n in list(Node.fields) + list(_RELATION_SINCE)
        if n not in HIDDEN_FIELDS and (feature := field_feature(n))
        is not None and feature.available(ver)))


def check_fields_version(fields: str | None, ver: int) -> None:
    """406 when a requested field exists only in a newer version."""
    if not fields:
        return
    for name in (f.strip() for f in fields.split(",")):
        since = _too_new(name, ver)
        if since is not None and name not in HIDDEN_FIELDS:
            raise exception.NotAcceptable(
                f"The field '{name}' needs API version {since.version} or "
                f"newer.")


def parse_node_fields(fields: str | None, ver: int) -> list[str] | None:
    check_fields_version(fields, ver)
    return api_utils.parse_fields(fields, visible_fields(ver))


def with_links(fields: list[str]) -> list[str]:
    """Every node document carries its links, whatever ``fields`` asks."""
    return fields if "links" in fields else fields + ["links"]


iso = api_utils.iso


def state_for_version(state: str | None, ver: int) -> str | None:
    if state == states.AVAILABLE and \
            not features.AVAILABLE_STATE.available(ver):
        return None
    if state == states.INSPECTWAIT and \
            not features.INSPECT_WAIT.available(ver):
        # Asynchronous inspection was shown as "inspecting" before 1.39.
        return states.INSPECTING
    return state


class Relations:
    """UUIDs and traits of related rows for a page of nodes, in bulk."""

    def __init__(self, rows: list[dict], fields: Container[str]):
        # {id: UUID}, looked up with a row's id, which may be None
        self.chassis: dict[Any, str] = {}
        self.traits: dict[int, list[str]] = {}
        self.conductors: dict[Any, str] = {}
        self.allocations: dict[Any, str] = {}
        if "allocation_uuid" in fields:
            self.allocations = _uuids("allocation", rows, "allocation_id")
        if "chassis_uuid" in fields:
            self.chassis = _uuids("chassis", rows, "chassis_id")
        if "traits" in fields:
            self.traits = node_obj.traits_for([r["id"] for r in rows])


def _uuids(model: str, rows: list[dict], column: str) -> dict[int, str]:
    ids = [r[column] for r in rows if r.get(column) is not None]
    # Most nodes have neither chassis nor allocation: no call for them.
    return uuids_for_ids(model, ids) if ids else {}


def _mask_internal(info: dict | None) -> dict:
    """The agent token must never leave the service, even to admins."""
    info = info or {}
    if info.get("agent_secret_token"):
        info = dict(info, agent_secret_token=api_utils.MASK)
    return info


def _mask_instance_info(info: dict | None) -> dict:
    info = api_utils.mask_secrets(info)
    # The config drive, and an image URL that may be a signed temporary
    # one, are secrets too (as the reference's show_instance_secrets
    # default hides them).
    hidden = {k: api_utils.MASK for k in ("configdrive", "image_url")
              if info.get(k)}
    return dict(info, **hidden) if hidden else info


_TIMESTAMPS = frozenset({"created_at", "updated_at", "provision_updated_at",
                         "inspection_started_at", "inspection_finished_at"})
_SUB_LINKS = frozenset({"ports", "portgroups", "states", "volume"})


class _ViewContext:
    """What the renderers of one request share: the public URL's link
    builder and the related rows of the page."""

    __slots__ = ("links", "rel")

    def __init__(self, url: str, rel: Relations):
        self.links = api_utils.linker("nodes", url)
        self.rel = rel


def _renderer(name: str, ver: int) -> Callable[[dict, _ViewContext], Any] | None:
    """How to show field ``name`` of a row at version ``ver``; None for a
    column shown as stored."""
    if name == "driver_info":
        return lambda row, ctx: api_utils.mask_secrets(row.get(name))
    if name == "instance_info":
        return lambda row, ctx: _mask_instance_info(row.get(name))
    if name == "driver_internal_info":
        return lambda row, ctx: _mask_internal(row.get(name))
    if name in ("provision_state", "target_provision_state"):
        return lambda row, ctx: state_for_version(row.get(name), ver)
    if name in _TIMESTAMPS:
        return lambda row, ctx: iso(row.get(name))
    if name == "chassis_uuid":
        return lambda row, ctx: ctx.rel.chassis.get(row.get("chassis_id"))
    if name == "traits":
        return lambda row, ctx: ctx.rel.traits.get(row["id"], [])
    if name == "links":
        return lambda row, ctx: ctx.links(row["uuid"])
    if name in _SUB_LINKS:
        return lambda row, ctx: ctx.links(f"{row['uuid']}/{name}")
    if name == "conductor":
        return lambda row, ctx: hash_ring.conductor_for(row)
    if name == "allocation_uuid":
        return lambda row, ctx: ctx.rel.allocations.get(
            row.get("allocation_id"))
    return None


@functools.lru_cache(maxsize=512)
def _view_plan(fields: tuple[str, ...], ver: int) -> tuple[tuple, ...]:
    # The same few field lists come back on every request; choosing their
    # renderers anew each time cost more than a single node's rendering.
    return tuple((name, _renderer(name, ver)) for name in fields)


def node_views(rows: list[dict], fields: Sequence[str], ver: int, url: str,
               rel: Relations) -> list[dict]:
    """The API documents of ``rows``, with only ``fields``."""
    plan = _view_plan(tuple(fields), ver)
    ctx = _ViewContext(url, rel)
    return [{name: row.get(name) if render is None else render(row, ctx)
             for name, render in plan}
            for row in rows]


def node_view(row: dict, fields: Sequence[str], ver: int, url: str,
              rel: Relations) -> dict:
    """The API document of one node, with only ``fields``."""
    return node_views([row], fields, ver, url, rel)[0]


def columns_for(fields: list[str]) -> list[str]:
    """Database columns needed to render ``fields``."""
    cols = {"id", "uuid"}
    if "conductor" in fields:
        cols.update(("driver", "conductor_group"))
    for name in fields:
        if name == "chassis_uuid":
            cols.add("chassis_id")
        elif name == "allocation_uuid":
            cols.add("allocation_id")
        elif name in Node.fields and name != "traits":
            cols.add(name)
    return [c for c in Node.table_columns() if c in cols]


_HOSTNAME_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


def valid_name_for_version(name: str, ver: int) -> bool:
    """Names are hostnames before 1.10 and RFC 3986 unreserved after."""
    if not utils.is_valid_logical_name(name):
        return False
    if features.RFC3986_NAMES.available(ver):
        return True
    labels = name[:-1].split(".") if name.endswith(".") else name.split(".")
    return all(_HOSTNAME_LABEL.match(label) for label in labels)


def _stored_ident(ident: str) -> str:
    """The node identifier a client of this request's version means, as
    stored: a normalized UUID or a name (404 or 400 when it can name no
    node)."""
    ver = method.version()
    if utils.is_uuid_like(ident):
        return utils.normalize_uuid(ident)
    if features.NODE_NAMES.available(ver):
        if utils.is_valid_logical_name(ident):
            return ident
        # Neither a UUID nor a possible name: the request is malformed.
        raise exception.InvalidUuidOrName(name=ident)
    raise exception.NodeNotFound(node=ident)


def get_node(ident: str, with_traits: bool = False) -> Node:
    """Look a node up by UUID or (from 1.5) logical name."""
    return Node.get(_stored_ident(ident), with_traits=with_traits)


def authorized_node(ident: str, rule: str,
                    with_traits: bool = False) -> Node:
    """The node ``ident`` names, once the caller may do ``rule`` to it
    (404 when it may not even see it, see ``node_policy``)."""
    node = get_node(ident, with_traits)
    node_policy.check(rule, policy.node_target(node), ident)
    return node


def node_document(ident: str, fields: str | None = None) -> bytes:
    """``GET /v1/nodes/{ident}[?fields=...]`` encoded, for the routed
    handler."""
    wanted = parse_node_fields(fields, method.version())
    return _caller_document(_stored_ident(ident),
                            tuple(with_links(wanted)) if wanted else None,
                            shown_as=ident)


_DOCUMENTS = document_cache.DocumentCache()
#: The tag of a document that does not show the node's conductor.
_NO_CONDUCTOR = object()


def rendered_node(snap: NodeSnapshot, fields: tuple[str, ...] | None,
                  hidden: frozenset[str] = node_policy.NOTHING_HIDDEN
                  ) -> bytes:
    """The encoded document of the node read in ``snap``, without the
    ``hidden`` fields' values, rendered anew only when the node, the
    request's version, fields, URL or hidden fields differ from an earlier
    rendering (see ``ironic.api.document_cache``)."""
    ver = method.version()
    url = method.public_url()
    # The caller is in the key through what the policy decided for it on
    # this node (the fields it may not see), not through who it is: two
    # callers allowed the same fields share the document, and a document
    # rendered for one is never served to a caller allowed less.
    key = (snap.column("id"), ver, fields, url, hidden)
    found = _DOCUMENTS.get(key, snap.stamp)
    if found is not None:
        conductor, body = found
        if conductor is _NO_CONDUCTOR or conductor == hash_ring.conductor_for(
                {"uuid": snap.column("uuid"), "driver": snap.column("driver"),
                 "conductor_group": snap.column("conductor_group")}):
            return body
    doc = node_policy.redact(show_node(snap.node(), fields, url), hidden)
    body = method.dumps(doc)
    # The UUIDs of a chassis or an allocation are not in the node's row.
    if snap.column("chassis_id") is None and \
            snap.column("allocation_id") is None:
        _DOCUMENTS.put(key, snap.stamp, doc.get("conductor", _NO_CONDUCTOR),
                       body)
    return body


def _caller_document(ident: str, fields: tuple[str, ...] | None = None,
                     shown_as: str | None = None) -> bytes:
    """The node's document as a GET by this caller shows it (404 when the
    caller may not see the node, named ``shown_as`` in the error)."""
    snap = Node.snapshot(ident)
    target = node_policy.target(snap.column("owner"), snap.column("lessee"))
    node_policy.check("baremetal:node:get", target, shown_as or ident)
    return rendered_node(snap, fields, node_policy.hidden_fields(target))


def reset_documents() -> None:
    """Forget every rendered node document (tests switch databases)."""
    _DOCUMENTS.clear()


def show_node(node: Node, fields: Sequence[str] | None = None,
              url: str | None = None) -> dict:
    ver = method.version()
    names = tuple(fields) if fields else _visible_fields(ver)
    row = node.as_dict()
    row["id"] = node.id
    loaded = node.traits is not None
    # Traits already loaded on the node need no second query.
    rel = Relations([row], _related(names, loaded))
    if loaded and "traits" in names:
        rel.traits = {node.id: node.traits}
    return node_view(row, names, ver, url or method.public_url(), rel)


@functools.lru_cache(maxsize=512)
def _related(names: tuple[str, ...], traits_loaded: bool) -> frozenset[str]:
    """The fields among ``names`` that need rows of other tables."""
    wanted = _RELATED.intersection(names)
    return wanted - {"traits"} if traits_loaded else wanted


def _check_versions(doc: dict, ver: int) -> None:
    for name in doc:
        since = _too_new(name, ver)
        if since is not None:
            raise exception.NotAcceptable(
                f"The field '{name}' needs API version {since.version} or "
                f"newer.")


def _check_driver(values: dict, given: set[str]) -> None:
    node_driver.check_create(values, given)


def node_uuid_of(ident: str, what: str) -> str:
    """UUID of the node named or identified by ``ident`` (400 if none)."""
    try:
        return get_node(ident).uuid
    except exception.NodeNotFound as e:
        raise exception.InvalidParameterValue(
            err=f"{what}: {e}") from e


def _normalize(values: dict, ver: int) -> None:
    name = values.get("name")
    if name is not None and not valid_name_for_version(name, ver):
        raise exception.InvalidName(name=name)
    for key in ("uuid", "instance_uuid"):
        if values.get(key) is not None:
            if not utils.is_uuid_like(values[key]):
                raise exception.InvalidUUID(uuid=values[key])
            values[key] = utils.normalize_uuid(values[key])
    if values.get("parent_node") is not None:
        values["parent_node"] = node_uuid_of(values["parent_node"],
                                              "Invalid parent_node")
    if values.get("conductor_group"):
        values["conductor_group"] = values["conductor_group"].lower()
    elif "conductor_group" in values:
        values["conductor_group"] = ""
    for key in ("driver_info", "properties", "extra", "instance_info",
                "network_data", "target_raid_config"):
        if key in values and values[key] is None:
            values[key] = {}


def _check_reasons(values: dict) -> None:
    for flag in ("protected", "retired"):
        if values.get(f"{flag}_reason") and not values.get(flag):
            raise exception.InvalidParameterValue(
                err=f"Cannot set a {flag}_reason on a node that is not "
                    f"{flag}.")


def _validate_values(doc: dict, ver: int, current_uuid: str | None = None
                     ) -> dict:
    """Check a whole node document and turn it into column values."""
    api_utils.validate(_NODE_SCHEMA, doc, "node")
    values = dict(doc)
    _normalize(values, ver)
    _check_reasons(values)
    chassis_uuid = values.pop("chassis_uuid", None)
    if chassis_uuid is not None:
        try:
            values["chassis_id"] = Chassis.get_by_uuid(chassis_uuid).id
        except exception.ChassisNotFound as e:
            raise exception.InvalidParameterValue(err=str(e)) from e
    else:
        values["chassis_id"] = None
    if values.get("parent_node") and current_uuid and \
            values["parent_node"] == current_uuid:
        raise exception.InvalidParameterValue(
            err="A node can not be its own parent.")
    return values


def check_not_locked(node: Node) -> None:
    if node.reservation:
        raise exception.NodeLocked(node=node.uuid, host=node.reservation)


def _check_patch_params(params: dict, ver: int) -> bool:
    """Query parameters of a PATCH; True when interfaces are reset."""
    unknown = set(params) - {"reset_interfaces"}
    if unknown:
        raise exception.InvalidParameterValue(
            err=f"Unknown query parameter(s): {', '.join(sorted(unknown))}")
    return node_driver.parse_reset(params.get("reset_interfaces"), ver)


def _check_patch_versions(patch: list, ver: int) -> None:
    """406 for a path whose field exists only in a newer version."""
    for op in patch:
        path = op.get("path") if isinstance(op, dict) else None
        if not isinstance(path, str) or not path.startswith("/"):
            continue
        root = path.split("/")[1]
        since = _too_new(root, ver)
        if since is not None and root not in HIDDEN_FIELDS:
            raise exception.NotAcceptable(
                f"The field '{root}' needs API version {since.version} or "
                f"newer.")


def _patched_values(node: Node, patch: list, ver: int
                    ) -> tuple[dict, dict]:
    """Apply ``patch`` to the node's document: (changed, column values)."""
    fields = visible_fields(ver)
    current = show_node(node, fields)
    # Secrets are masked in the API view; patch the real values.
    for key in ("driver_info", "instance_info"):
        current[key] = copy.deepcopy(getattr(node, key))
    patchable = {f for f in _PATCHABLE
                 if (field_feature(f) or features.ALWAYS).available(ver)}
    patched = api_utils.apply_patch(
        current, patch, read_only=set(fields) - _PATCHABLE,
        required=_REQUIRED, allowed_roots=patchable)
    # A removed top-level field is absent from the result: it becomes null.
    for key in patchable - set(patched):
        default = Node.fields[key].default if key in Node.fields else None
        patched[key] = copy.deepcopy(default)
    changed = {k: patched[k] for k in patchable
               if current.get(k) != patched[k]}
    if changed.get("chassis_uuid", "") is None and \
            not features.UNSET_CHASSIS.available(ver):
        raise exception.NotAcceptable(
            "Removing chassis_uuid needs API version 1.25 or newer.")
    for flag in ("protected", "retired"):
        # Turning a flag off forgets its reason unless the patch sets one.
        if flag in changed and not changed[flag] and \
                f"{flag}_reason" not in changed:
            patched[f"{flag}_reason"] = None
    doc = {k: patched[k] for k in patchable
           if patched[k] is not None or k in changed}
    return changed, _validate_values(doc, ver, node.uuid)


def _column_changes(values: dict, changed: dict) -> dict:
    """The column values a patch changes (chassis_uuid is chassis_id)."""
    return {key: value for key, value in values.items()
            if key in changed or (key == "chassis_id"
                                  and "chassis_uuid" in changed)}


def _conductor_api(node: Any) -> rpcapi.ConductorAPI:
    """The RPC client, once a conductor serves ``node`` (a node object or
    document; else 400: the
    client asked for a driver or group nobody serves)."""
    api = rpcapi.get_api()
    try:
        api.host_for(node)
    except exception.NoValidHost as e:
        raise exception.InvalidParameterValue(err=str(e)) from e
    return api


def _node_list():
    # node_list builds on this module's renderers; imported when first
    # used so that each module can import the other.
    from ironic.api.controllers.v1 import node_list
    return node_list


class NodesController(rest.RestController):
    _custom_actions = {"detail": ["GET"]}
    _subcontrollers = {
        **node_sub.SUBCONTROLLERS,
        "ports": lambda ident: port_api.PortsController(node_ident=ident),
        "portgroups": lambda ident: portgroup_api.PortgroupsController(
            node_ident=ident),
    }

    #: Sub-resources added after 1.1, with the feature that added each:
    #: before it they do not exist, whatever the method (404, not 405).
    _sub_since = {
        "vifs": features.VIFS, "portgroups": features.PORTGROUP_SUBRESOURCES,
        "volume": features.VOLUME, "bios": features.BIOS,
        "allocation": features.NODE_ALLOCATION,
        "history": features.NODE_HISTORY, "inventory": features.INVENTORY,
        "children": features.CHILD_NODES, "firmware": features.FIRMWARE,
        "vmedia": features.VMEDIA,
    }

    #: Sub-resources also reached by their legacy form, the node last:
    #: ``/v1/nodes/states/console/{node}`` is
    #: ``/v1/nodes/{node}/states/console``.
    _node_last = frozenset({"states", "management", "maintenance"})

    @expose()
    def _lookup(self, ident, sub=None, *remainder):
        if sub is None:
            return api_utils.item_without_handler(self, ident)
        if ident in self._node_last:
            *middle, node = (sub, *remainder)
            return self._subcontrollers[ident](node), middle
        factory = self._subcontrollers.get(sub)
        since = self._sub_since.get(sub, features.ALWAYS)
        if factory is None or not since.available(method.version()):
            pecan.abort(404)
        return factory(ident), remainder

    @expose()
    @api_method()
    def get_all(self, **params):
        return _node_list().list_nodes(params, detail=False)

    @expose()
    @api_method()
    def detail(self, **params):
        if "detail" in params:
            raise exception.InvalidParameterValue(
                err="The 'detail' parameter can not be used with /detail.")
        return _node_list().list_nodes(params, detail=True,
                                       resource_url="nodes/detail")

    @expose()
    @api_method()
    def get_one(self, ident, **params):
        unknown = set(params) - {"fields"}
        if unknown:
            raise exception.InvalidParameterValue(
                err=f"Unknown query parameter(s): {', '.join(unknown)}")
        return node_document(ident, params.get("fields"))

    @expose()
    @api_method(status=201)
    def post(self):
        node_policy.check_may_create()
        ver = method.version()
        body = method.json_body()
        unknown = set(body) - _CREATABLE
        if unknown:
            raise exception.InvalidParameterValue(
                err=f"Unknown attribute(s) for node: "
                    f"{', '.join(sorted(unknown))}")
        _check_versions(body, ver)
        values = _validate_values(body, ver)
        _check_driver(values, set(body))
        node_policy.claim_for_project(values)
        if values.get("uuid") is None:
            values.pop("uuid", None)
        node = Node(**values)
        if not node.instance_name and (node.instance_info or {}).get(
                "display_name"):
            node.instance_name = node.instance_info["display_name"]
        node.provision_state = states.ENROLL \
            if features.ENROLL_ON_CREATE.available(ver) else states.AVAILABLE
        node.provision_updated_at = None
        node.create()
        pecan.response.location = f"{method.public_url()}/v1/nodes/" \
                                  f"{node.uuid}"
        # Read back, as a GET would: its document is stored for the GET
        # that usually follows a create.
        return _caller_document(node.uuid)

    @expose()
    @api_method()
    def patch(self, ident, **params):
        ver = method.version()
        reset = _check_patch_params(params, ver)
        patch = method.json_body(list)
        _check_patch_versions(patch, ver)
        node = get_node(ident)
        node_policy.check_update(patch, node)
        node.load_traits()
        changed, values = _patched_values(node, patch, ver)
        for field in node_driver.check_update(values, set(changed), reset,
                                              node.uuid):
            changed.setdefault(field, values[field])
        changes = _column_changes(values, changed)
        if changes:
            # The conductor serving the node as patched takes the lock,
            # checks the state rules and saves.
            target = {"uuid": node.uuid,
                      "driver": values.get("driver", node.driver),
                      "conductor_group": values.get(
                          "conductor_group", node.conductor_group)}
            _conductor_api(target).update_node(method.context(), target,
                                               changes)
        # The node as the conductor saved it, read back as a GET would.
        return _caller_document(node.uuid)

    @expose()
    @api_method(status=204)
    def delete(self, ident):
        node = get_node(ident)
        node_policy.check_delete(node)
        # The owning conductor takes the lock, checks that the node is not
        # in use and deletes it.
        _conductor_api(node).destroy_node(method.context(), node)


__all__ = ["NodesController", "versions"]
