"""Item plumbing shared by the resource controllers: bodies and patches
checked against a resource's ``descriptor.Spec``, the node an item belongs
to, its lock and the policy rules that target it."""

from __future__ import annotations

from typing import Any, Iterable, NamedTuple

from oslo_utils import strutils

from ironic.api import features, method, query
from ironic.api.controllers.v1 import collection
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.controllers.v1.descriptor import Spec, check_names, need_version
from ironic.common import exception, policy, utils
from ironic.objects import node as node_obj
from ironic.objects.node import Node


def check_body(spec: Spec, body: dict, creatable: Iterable[str],
               ver: int, schema: dict) -> None:
    """Unknown attributes are 400 as the body's ``schema`` (a closed one)
    refuses them, with whatever else it refuses first; ones newer than
    ``ver`` 406."""
    if set(body) - set(creatable):
        api_utils.validate(schema, body, spec.singular)
    check_names(spec, list(body), ver, "attribute")


def patch_values(spec: Spec, obj: Any, patch: list, *, ver: int,
                 patchable: Iterable[str], required: Iterable[str],
                 listed: list[str] | None = None) -> tuple[dict, set[str]]:
    """Apply ``patch`` to the full document of the item ``obj``.

    Only the patchable fields of this version may be touched. Returns the
    patchable fields of the result (all of them, so the caller validates the
    whole item) and the names whose value changed.
    """
    current = collection.show(spec, obj, spec.known())
    visible = set(spec.visible(ver))
    patchable = set(patchable)
    allowed = patchable & visible
    for op in patch if isinstance(patch, list) else ():
        root = str(op.get("path", "")).split("/")[1:2] \
            if isinstance(op, dict) else []
        if root and root[0] in patchable - visible:
            # A field this version does not know yet, like fields=.
            check_names(spec, root, ver, "attribute")
    patched = api_utils.apply_patch(
        current, patch, read_only=visible - allowed, required=required,
        allowed_roots=allowed, listed=listed)
    doc = {k: patched.get(k) for k in patchable}
    changed = {k for k in patchable if current.get(k) != patched.get(k)}
    return doc, changed


def as_bool(value: Any, name: str) -> bool:
    """A boolean body value; like the reference, 'true'/'false' strings too."""
    if isinstance(value, bool):
        return value
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise query.not_boolean(name, value) from None


def normalize_mac(value: Any, what: str = "address") -> str:
    if not utils.is_valid_mac(value):
        raise query.expected("valid MAC address", what, value)
    return utils.normalize_mac(value)


class NodeRef(NamedTuple):
    """What a port or port group needs of its node: no JSON columns.

    One read serves a whole write: the node the body names, its projects
    for the policy and its lock (``authorize_for_node``, ``check_unlocked``
    take the reference instead of reading the node again).
    """

    id: int
    uuid: str
    reservation: str | None
    owner: str | None
    lessee: str | None


_REF_COLUMNS = list(NodeRef._fields)


def _node_refs(*criteria: tuple[str, Any]) -> list[NodeRef]:
    rows = node_obj.list_rows(criteria, columns=_REF_COLUMNS)
    return [NodeRef(*(r[c] for c in _REF_COLUMNS)) for r in rows]


def node_for_body(ident: Any, *, allow_name: bool) -> NodeRef:
    """The node a body refers to; a missing one is the client's error (400).
    """
    if not isinstance(ident, str) or not (
            utils.is_uuid_like(ident) or
            (allow_name and utils.is_valid_logical_name(ident))):
        if allow_name:
            raise exception.InvalidUuidOrName(name=ident)
        raise query.expected("UUID", "node_uuid", ident)
    try:
        # The node read as a GET reads it (one prepared statement), its
        # plain columns as stored.
        snap = Node.snapshot(utils.normalize_uuid(ident)
                             if utils.is_uuid_like(ident) else ident)
    except exception.NodeNotFound:
        raise exception.InvalidParameterValue(
            err=str(exception.NodeNotFound(node=ident))) from None
    return NodeRef(*(snap.column(c) for c in _REF_COLUMNS))


def node_for_patch(ident: Any) -> NodeRef:
    """The node a patch moves an item to; one that is no UUID or names no
    node refused in the reference's words."""
    try:
        return node_for_body(ident, allow_name=False)
    except exception.InvalidParameterValue:
        raise exception.InvalidParameterValue(
            err=f"Unable to apply the requested node_uuid '{ident}'. "
                f"Requested value was invalid.") from None


def find_node(ident: str, ver: int, *, in_path: bool = False):
    """The node a URL (``in_path``) or a filter names: by UUID, or by name
    from 1.5. A malformed one in the URL is refused as Ironic 39's routing
    refuses it, in a plain HTTP error body."""
    if utils.is_uuid_like(ident):
        return Node.get(utils.normalize_uuid(ident))
    if utils.is_valid_logical_name(ident):
        need_version(ver, features.NODE_NAMES,
                     "Naming a node by its logical name")
        return Node.get(ident)
    if in_path:
        raise method.malformed_in_path("node", ident)
    raise exception.NodeNotFound(node=ident)


def check_unlocked(*nodes: NodeRef | int) -> None:
    """409 when a conductor holds the lock of one of these nodes.

    Ports and portgroups describe the node's wiring; the conductor working
    on a locked node relies on it staying as it is. A ``NodeRef`` is
    checked as this request read it; a node id not among them is read.
    """
    refs = {n.id: n for n in nodes if isinstance(n, NodeRef)}
    unread = {n for n in nodes if not isinstance(n, NodeRef)} - set(refs)
    if unread:
        refs.update((n.id, n) for n in _node_refs(("ids", list(unread))))
    # In id order, as the nodes' list would name the first locked one.
    for _, node in sorted(refs.items()):
        if node.reservation:
            raise exception.NodeLocked(node=node.uuid,
                                       host=node.reservation)


# --- items that belong to a node: ports, port groups, volumes ---------------

def _node_target(node: NodeRef | int | None) -> dict[str, str]:
    if isinstance(node, NodeRef):
        return policy.node_target(node)
    if node is None:
        return {}
    rows = node_obj.list_rows([("id", node)],
                              columns=["id", "owner", "lessee"])
    if not rows:
        return {}
    return {key: value for key, value in (("node.owner", rows[0]["owner"]),
                                          ("node.lessee", rows[0]["lessee"]))
            if value}


def check_node_item(kind: str, rule: str, node_id: int | None,
                    missing: Exception) -> None:
    """The caller may do ``rule`` (``baremetal:<kind>:<verb>``) to an item
    of the node ``node_id``: ``missing`` (404) when it may not see the
    item (its node belongs to neither of the caller's projects), 403 when
    it may see but not do it."""
    ctx = method.context()
    if not policy.enforced(ctx):
        return
    target = _node_target(node_id)
    if not policy.allowed(f"baremetal:{kind}:get", ctx, target):
        raise missing
    policy.authorize(rule, ctx, target)


def authorize_for_node(rule: str, node: NodeRef | int | None) -> None:
    """403 unless the caller may do ``rule`` with the node (as read, or
    its id) as the target (creating an item for it)."""
    ctx = method.context()
    if not policy.enforced(ctx):
        # No rule applies (policy.authorize would pass): no read either.
        return
    policy.authorize(rule, ctx, _node_target(node))


def project_filter(kind: str) -> list[tuple[str, Any]]:
    """Criteria limiting a list of ``kind`` (items with a node) to the
    items of the nodes the caller's project owns or leases (none for
    callers who may list all); 403 for a caller who may list neither."""
    ctx = method.context()
    if not policy.enforced(ctx):
        return []
    project = policy.list_project(kind, ctx)
    if project is None:
        return []
    return [("node.project", project)]


class Created(NamedTuple):
    """An item of a node (port, port group) this request created, with
    the node's UUID as the request read it: the answer's ``node_uuid``
    needs no lookup (see ``collection.row_documents``)."""

    item: Any
    node_uuid: str

    @property
    def uuid(self) -> str:
        return self.item.uuid


def item_row(item: Any) -> dict[str, Any]:
    """``Spec.row`` of an item object, or of a ``Created`` one."""
    if isinstance(item, Created):
        return dict(item_row(item.item), node_uuid=item.node_uuid)
    return dict(item.as_dict(), id=item.id)


def save_changed(spec: Spec, obj: Any, changed: Iterable[str],
                 values: dict) -> Any:
    """Save the columns behind the ``changed`` API fields from ``values``
    (column values; the Spec's sources map API fields rendered from
    another column, ``node_uuid`` from ``node_id``); the object."""
    for name in changed:
        column = spec.sources.get(name, name)
        setattr(obj, column, values.get(column))
    obj.save()
    return obj
