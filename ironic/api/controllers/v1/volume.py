"""/v1/volume: volume connectors and targets (API 1.32).

A connector says how a node reaches remote storage (an iSCSI IQN, a WWPN,
...); a target is a volume the node boots from or attaches, in boot order.
Both are plain rows tied to a node. Changing or removing one while the node
is locked by a conductor or powered on is refused, since the storage
interface may be using it.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from pecan import rest

from ironic.api import features, method, query, schemas
from ironic.api.controllers.v1 import (
    collection,
    descriptor,
    list_query,
    node_lookup,
    resource,
)
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, policy, states, utils
from ironic.objects import records
from ironic.objects.base import Field
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
        # The reference names the first missing member in sorted order.
        self.schema: dict[str, Any] = schemas.body(
            self.typed, required=sorted(["node_uuid", *required]))

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


def _row(obj) -> dict:
    return {c: getattr(obj, c) for c in obj.__table__.columns.keys()}


def _node_id(ident: str) -> int:
    if not utils.is_uuid_like(ident):
        raise query.expected("UUID", "node_uuid", ident)
    try:
        return node_lookup.get_node(ident).id
    except exception.NodeNotFound as e:
        raise exception.InvalidParameterValue(err=str(e)) from e


def _values(kind: _Kind, doc: dict, what: str | None = None) -> dict:
    """The column values of a whole document; ``what``: the name a
    refusal gives it (the kind's last word on create)."""
    api_utils.validate(kind.schema, doc, what or kind.name.split("_")[-1])
    values = {k: v for k, v in doc.items() if k != "node_uuid"}
    if values.get("uuid") is None:
        values.pop("uuid", None)
    elif not utils.is_uuid_like(values["uuid"]):
        raise query.expected("UUID", "uuid", values["uuid"])
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


def _list_scope(q: descriptor.Query) -> descriptor.Criteria:
    """The node in the URL, once the caller may see its volumes; the
    caller's projects."""
    criteria = []
    if "node" in q.scope:
        criteria.append(("node_id", node_lookup.authorized_node(
            q.scope["node"], "baremetal:volume:get",
            path_arg=node_lookup.IN_PATH).id))
    return criteria + resource.project_filter("volume")


def _node_filter(ident: str, q: descriptor.Query) -> descriptor.Criteria:
    # A filter naming no node is not found (a body's is a bad input).
    return [("node_id", node_lookup.get_node(ident).id)]


def _rows(store: records.VolumeRecords) -> Callable[..., list]:
    """``Spec.fetch``: a page as rows of columns."""
    fetch = collection.records_fetch(store)
    return lambda *args: [_row(r) for r in fetch(*args)]


def _item(kind: _Kind, ident: str, verb: str) -> Any:
    """The item, once the caller may ``verb`` it (404 when it may not see
    it)."""
    if not utils.is_uuid_like(ident):
        # Named as Ironic 39 names the argument of the path.
        raise query.expected("UUID", f"{kind.key[:-1]}_uuid", ident)
    obj = kind.store.get(utils.normalize_uuid(ident))
    resource.check_node_item(
        "volume", f"baremetal:volume:{verb}", obj.node_id,
        exception.NotFound(f"{kind.name.replace('_', ' ').capitalize()} "
                           f"{ident} could not be found."))
    return obj


def _create(kind: _Kind, body: dict, ver: int) -> Any:
    values = _values(kind, body)
    resource.authorize_for_node("baremetal:volume:create", values["node_id"])
    return kind.store.create(values)


def _update(kind: _Kind, obj: Any, patch: list, ver: int) -> Any:
    current = collection.show(_SPECS[kind.key], obj)
    editable = schemas.patchable(kind.typed)
    patched = api_utils.apply_patch(
        current, patch, read_only=set(current) - editable,
        required=kind.schema["required"], allowed_roots=editable)
    doc = {k: patched[k] for k in editable if k in patched}
    doc.setdefault("extra", {})
    values = _values(kind, doc, "patch")
    _check_node_idle(obj.node_id, kind, deleting=False)
    if values["node_id"] != obj.node_id:
        _check_node_idle(values["node_id"], kind, deleting=False)
    changed = {k: v for k, v in values.items() if getattr(obj, k) != v}
    return kind.store.update(obj.id, changed)


def _delete(kind: _Kind, obj: Any) -> None:
    _check_node_idle(obj.node_id, kind, deleting=True)
    kind.store.destroy(obj.id)


def _spec(kind: _Kind) -> descriptor.Spec:
    """The Spec of connectors or targets."""
    return descriptor.Spec(
        singular=kind.name.replace("_", " "),
        body_title=kind.name.split("_")[-1],
        collection=f"volume/{kind.key}", obj_cls=None,
        api_fields={name: features.VOLUME for name in kind.fields},
        default_fields=kind.default_fields,
        bounds=descriptor.Bounds(features.VOLUME),
        filters={"node": descriptor.Filter(
            _node_filter, scoped_by="node",
            check=descriptor.UUID_OR_NAME)},
        # Unlike nodes and ports (1.43), the volume lists took ?detail from
        # their first version on.
        detail_param=features.ALWAYS, detail_action=False,
        strict_fields=False, list_scope=_list_scope,
        sources={"node_uuid": "node_id"}, related={"node_uuid": "node"},
        fetch=_rows(kind.store), row=_row,
        item=functools.partial(_item, kind),
        create=functools.partial(_create, kind),
        update=functools.partial(_update, kind),
        delete=functools.partial(_delete, kind),
        refuse_nested=collection.list_only, nested_item_lookup=True)


_SPECS = {kind.key: _spec(kind) for kind in (CONNECTORS, TARGETS)}
ConnectorsController = collection.controller(_SPECS["connectors"],
                                             "ConnectorsController")
TargetsController = collection.controller(_SPECS["targets"],
                                          "TargetsController")


def _nested_views(node_ident: str | None) -> tuple[Any, Any]:
    if node_ident is None:
        return ConnectorsController(), TargetsController()
    parent = f"nodes/{node_ident}"
    return (ConnectorsController(parent, node=node_ident),
            TargetsController(parent, node=node_ident))


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
        self.connectors, self.targets = _nested_views(node_ident)

    @expose()
    @api_method(features.VOLUME)
    def get_all(self, **params):
        list_query.check_params(params, ())
        policy.authorize("baremetal:volume:list", method.context())
        if self.node_ident:
            node = node_lookup.authorized_node(
                self.node_ident, "baremetal:volume:get",
                path_arg=node_lookup.IN_PATH)
            return _root_doc(f"nodes/{node.uuid}/volume")
        return _root_doc("volume")
