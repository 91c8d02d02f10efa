"""/v1/volume: volume connectors and targets (API 1.32).

A connector says how a node reaches remote storage (an iSCSI IQN, a WWPN,
...); a target is a volume the node boots from or attaches, in boot order.
Both are plain rows tied to a node. Changing or removing one while the node
is locked by a conductor or powered on is refused, since the storage
interface may be using it.
"""

from __future__ import annotations

import datetime
from typing import Any

import pecan
from pecan import rest

from ironic.api import features, method, schemas
from ironic.api.controllers.v1 import node_lookup, resource
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, policy, states, utils
from ironic.objects import records
from ironic.objects.base import Field, uuids_for_ids
from ironic.objects.node import Node


class _Kind:
    """What differs between connectors and targets."""

    def __init__(self, name: str, key: str, store: records.VolumeRecords,
                 columns: tuple, default_fields: tuple,
                 fields: dict[str, Field], required: tuple[str, ...]):
        self.name, self.key, self.store = name, key, store
        self.columns, self.default_fields = columns, default_fields
        #: The typed fields, with the node by UUID.
        self.typed: dict[str, Field] = {
            **fields, "node_uuid": schemas.reference(
                "The node it belongs to.", nullable=False)}
        self.schema: dict[str, Any] = schemas.body(
            self.typed, required=["node_uuid", *required])

    @property
    def fields(self) -> list[str]:
        return ["uuid", "node_uuid", *self.columns, "extra", "created_at",
                "updated_at", "links"]


CONNECTORS = _Kind(
    "volume_connector", "connectors", records.VOLUME_CONNECTORS,
    ("type", "connector_id"),
    ("uuid", "node_uuid", "type", "connector_id", "links"),
    records.VOLUME_CONNECTOR_FIELDS, ("type", "connector_id"))
TARGETS = _Kind(
    "volume_target", "targets", records.VOLUME_TARGETS,
    ("volume_type", "properties", "boot_index", "volume_id"),
    ("uuid", "node_uuid", "volume_type", "boot_index", "volume_id",
     "links"),
    records.VOLUME_TARGET_FIELDS, ("volume_type", "boot_index", "volume_id"))


def _iso(value: datetime.datetime | None) -> str | None:
    return api_utils.iso(value)


def _view(kind: _Kind, row: dict, fields: list[str], node_uuids: dict
          ) -> dict:
    out: dict[str, Any] = {}
    for name in fields:
        if name == "node_uuid":
            out[name] = node_uuids.get(row["node_id"])
        elif name == "links":
            out[name] = api_utils.link(f"volume/{kind.key}", row["uuid"])
        elif name in ("created_at", "updated_at"):
            out[name] = _iso(row.get(name))
        else:
            out[name] = row.get(name)
    return out


def _row(obj) -> dict:
    return {c: getattr(obj, c) for c in obj.__table__.columns.keys()}


def _node_id(ident: str) -> int:
    try:
        return node_lookup.get_node(ident).id
    except exception.NodeNotFound as e:
        raise exception.InvalidParameterValue(err=str(e)) from e


def _list(kind: _Kind, params: dict, node_id: int | None,
          url: str) -> dict:
    allowed = {"limit", "marker", "sort_key", "sort_dir", "fields",
               "detail"} | ({"node"} if node_id is None else set())
    unknown = set(params) - allowed
    if unknown:
        raise exception.InvalidParameterValue(
            err=f"Unknown query parameter(s): {', '.join(sorted(unknown))}")
    fields = api_utils.parse_fields(params.get("fields"), kind.fields)
    # Unlike nodes and ports (1.43), the volume lists took ?detail from
    # their first version on.
    detail = api_utils.parse_bool(params.get("detail"), "detail")
    if fields and detail:
        raise exception.InvalidParameterValue(
            err="Can not specify ?detail=True and fields in the same "
                "request.")
    fields = fields or list(kind.fields if detail else kind.default_fields)
    if params.get("node") is not None:
        # A filter naming no node is not found (a body's is a bad input).
        node_id = node_lookup.get_node(params["node"]).id
    criteria = [] if node_id is None else [("node_id", node_id)]
    criteria += resource.project_filter("volume")
    limit = api_utils.parse_limit(params.get("limit"))
    rows = kind.store.list(
        criteria, limit=limit,
        marker=api_utils.check_marker(params.get("marker")),
        sort_key=params.get("sort_key") or "id",
        sort_dir=api_utils.parse_sort_dir(params.get("sort_dir")))
    rows = [_row(r) for r in rows]
    uuids = uuids_for_ids("node", (r["node_id"] for r in rows))
    items = [_view(kind, r, fields, uuids) for r in rows]
    return api_utils.collection(kind.key, items, limit, url, params,
                                rows[-1]["uuid"] if rows else None)


def _show(kind: _Kind, obj, fields: list[str] | None = None) -> dict:
    row = _row(obj)
    uuids = uuids_for_ids("node", [row["node_id"]])
    return _view(kind, row, fields or kind.fields, uuids)


def _values(kind: _Kind, doc: dict) -> dict:
    api_utils.validate(kind.schema, doc, kind.name.replace("_", " "))
    values = {k: v for k, v in doc.items() if k != "node_uuid"}
    if values.get("uuid") is None:
        values.pop("uuid", None)
    elif not utils.is_uuid_like(values["uuid"]):
        raise exception.InvalidUUID(uuid=values["uuid"])
    values["node_id"] = _node_id(doc["node_uuid"])
    return values


#: Where a volume connector or target may go whatever the node's power.
_DELETE_ANY_POWER = frozenset({states.ENROLL, states.MANAGEABLE,
                               states.ADOPTFAIL})


def _check_node_idle(node_id: int, kind: _Kind, deleting: bool) -> None:
    """An update needs the node powered off; a deletion too, unless the
    node is not yet (or no longer) in use. The action named in the error
    is what clients match on."""
    node = Node.get(node_id)
    node_lookup.check_not_locked(node)
    if node.power_state == states.POWER_OFF or (
            deleting and node.provision_state in _DELETE_ANY_POWER):
        return
    action = kind.name.replace("_", " ") + \
        (" deletion" if deleting else " update")
    raise exception.InvalidStateRequested(
        action=action, node=node.uuid, state=node.power_state)


class _VolumeCollection(api_utils.ItemLookup, rest.RestController):
    kind: _Kind

    def __init__(self, node_ident: str | None = None):
        self.node_ident = node_ident

    def _url(self) -> str:
        if self.node_ident:
            return f"nodes/{self.node_ident}/volume/{self.kind.key}"
        return f"volume/{self.kind.key}"

    @expose()
    @api_method(features.VOLUME)
    def get_all(self, **params):
        node_id = None
        if self.node_ident:
            node_id = node_lookup.authorized_node(
                self.node_ident, "baremetal:volume:get").id
        return _list(self.kind, params, node_id, self._url())

    @expose()
    @api_method(features.VOLUME)
    def get_one(self, ident, **params):
        if self.node_ident or set(params) - {"fields"}:
            raise exception.NotFound()
        fields = api_utils.parse_fields(params.get("fields"),
                                        self.kind.fields)
        return _show(self.kind, self._get(ident, "get"), fields)

    def _get(self, ident: str, verb: str):
        """The item, once the caller may ``verb`` it (404 when it may not
        see it)."""
        if not utils.is_uuid_like(ident):
            raise exception.InvalidUUID(uuid=ident)
        obj = self.kind.store.get(utils.normalize_uuid(ident))
        resource.check_node_item(
            "volume", f"baremetal:volume:{verb}", obj.node_id,
            exception.NotFound(f"The {self.kind.name.replace('_', ' ')} "
                               f"{ident} could not be found."))
        return obj

    @expose()
    @api_method(features.VOLUME, status=201)
    def post(self):
        if self.node_ident:
            raise exception.HTTPForbidden(resource="volume")
        values = _values(self.kind, method.json_body())
        resource.authorize_for_node("baremetal:volume:create",
                                    values["node_id"])
        obj = self.kind.store.create(values)
        pecan.response.location = (f"{method.public_url()}/v1/volume/"
                                   f"{self.kind.key}/{obj.uuid}")
        return _show(self.kind, obj)

    @expose()
    @api_method(features.VOLUME)
    def patch(self, ident):
        if self.node_ident:
            raise exception.HTTPForbidden(resource="volume")
        patch = method.json_body(list)
        obj = self._get(ident, "update")
        current = _show(self.kind, obj)
        editable = schemas.patchable(self.kind.typed)
        patched = api_utils.apply_patch(
            current, patch, read_only=set(current) - editable,
            required=["node_uuid", *self.kind.schema["required"]],
            allowed_roots=editable)
        doc = {k: patched[k] for k in editable if k in patched}
        doc.setdefault("extra", {})
        values = _values(self.kind, doc)
        _check_node_idle(obj.node_id, self.kind, deleting=False)
        if values["node_id"] != obj.node_id:
            _check_node_idle(values["node_id"], self.kind, deleting=False)
        changed = {k: v for k, v in values.items() if getattr(obj, k) != v}
        obj = self.kind.store.update(obj.id, changed)
        return _show(self.kind, obj)

    @expose()
    @api_method(features.VOLUME, status=204)
    def delete(self, ident):
        if self.node_ident:
            raise exception.HTTPForbidden(resource="volume")
        obj = self._get(ident, "delete")
        _check_node_idle(obj.node_id, self.kind, deleting=True)
        self.kind.store.destroy(obj.id)


class ConnectorsController(_VolumeCollection):
    kind = CONNECTORS


class TargetsController(_VolumeCollection):
    kind = TARGETS


def _root_doc(prefix: str) -> dict:
    url = method.public_url()
    doc = {"links": [{"href": f"{url}/v1/{prefix}/", "rel": "self"},
                     {"href": f"{url}/{prefix}/", "rel": "bookmark"}]}
    for key in ("connectors", "targets"):
        doc[key] = [{"href": f"{url}/v1/{prefix}/{key}", "rel": "self"},
                    {"href": f"{url}/{prefix}/{key}", "rel": "bookmark"}]
    return doc


class VolumeController(rest.RestController):
    """/v1/volume, or /v1/nodes/{node}/volume when built for a node."""

    def __init__(self, node_ident: str | None = None):
        self.node_ident = node_ident
        self.connectors = ConnectorsController(node_ident)
        self.targets = TargetsController(node_ident)

    @expose()
    @api_method(features.VOLUME)
    def get_all(self):
        policy.authorize("baremetal:volume:list", method.context())
        if self.node_ident:
            node = node_lookup.authorized_node(self.node_ident,
                                            "baremetal:volume:get")
            return _root_doc(f"nodes/{node.uuid}/volume")
        return _root_doc("volume")
