"""/v1/allocations (1.52) and /v1/nodes/{node}/allocation.

An allocation asks for a node by resource class and traits, optionally
among candidate nodes; a conductor finds one and reserves it (state
``allocating`` until then, ``active`` or ``error`` after). Creation and
deletion go to a conductor over RPC; reads and name/extra edits (1.57) are
served from the database. From 1.58 ``node`` records an allocation for a
node deployed without one (backfill); from 1.60 allocations have an
``owner``.
"""

from __future__ import annotations

import datetime
import types
from typing import Any

from pecan import rest

from ironic.api import features, method, query, schemas
from ironic.api.controllers.v1 import (
    collection,
    descriptor,
    list_query,
    node_lookup,
    node_sub,
)
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, policy, utils
from ironic.conductor import rpcapi
from ironic.objects import allocation as alloc_obj
from ironic.objects import node as node_obj
from ironic.objects.allocation import Allocation
from ironic.objects.base import CREATE, Field, uuids_for_ids
from ironic.objects.node import Node

# API fields and the minor version that shows each.
_FIELDS = {name: features.ALLOCATIONS for name in (
    "uuid", "name", "node_uuid", "state", "last_error", "resource_class",
    "traits", "candidate_nodes", "extra")}
_FIELDS.update(owner=features.ALLOCATION_OWNER,
               created_at=features.ALLOCATIONS,
               updated_at=features.ALLOCATIONS, links=features.ALLOCATIONS)
#: The allocation's fields as a client writes them: the object's, and
#: (from 1.58) the node it records for one deployed without it.
FIELDS: dict[str, Field] = {
    **Allocation.fields,
    "node": Field(58, write=CREATE,
                  doc="The node to record the allocation for (backfill)."),
}
SCHEMA: dict[str, Any] = schemas.body(FIELDS)
_PATCHABLE = schemas.patchable(FIELDS)
_LISTED = schemas.listed(_PATCHABLE, late=("extra",))
#: What a patched allocation's editable fields must be (from 1.57).
_PATCH_SCHEMA: dict[str, Any] = schemas.body(FIELDS, _PATCHABLE,
                                             closed=False)


def _iso(value: Any) -> str | None:
    if isinstance(value, str):
        value = datetime.datetime.fromisoformat(value)
    return api_utils.iso(value)


def views(rows: list, fields: list[str]) -> list[dict]:
    """API documents of allocation rows (or objects)."""
    node_uuids: dict[int, str] = {}
    if "node_uuid" in fields:
        node_uuids = uuids_for_ids("node", (r.node_id for r in rows))
    out = []
    for row in rows:
        doc: dict[str, Any] = {}
        for name in fields:
            if name == "links":
                doc[name] = api_utils.link("allocations", row.uuid)
            elif name == "node_uuid":
                doc[name] = node_uuids.get(row.node_id)
            elif name in ("created_at", "updated_at"):
                doc[name] = _iso(getattr(row, name))
            else:
                doc[name] = getattr(row, name)
        out.append(doc)
    return out


def get_allocation(ident: str) -> Allocation:
    """By UUID or name; 404 for anything else."""
    return Allocation.get(ident)


def _project_scope() -> str | None:
    ctx = method.context()
    if ctx.system_scope or not ctx.project_id:
        return None
    return ctx.project_id


def _authorize(rule: str, owner: str | None = None) -> None:
    """``owner``: of the allocation acted on (the caller's own project
    for a project-scoped list)."""
    target = {"allocation.owner": owner} if owner else None
    policy.authorize(f"baremetal:allocation:{rule}", method.context(),
                     target)


def _check_owner_visible(alloc: Allocation) -> None:
    """A project-scoped caller sees only its project's allocations."""
    project = _project_scope()
    if project is not None and alloc.owner != project and \
            not policy.allowed("baremetal:allocation:list_all",
                               method.context()):
        raise exception.AllocationNotFound(allocation=alloc.uuid)


# ----------------------------------------------------------------------
# creation


def _check_name(name: str | None) -> None:
    if name is None:
        return
    if utils.is_uuid_like(name) or not utils.is_valid_logical_name(name):
        raise exception.InvalidParameterValue(
            err=f"Cannot create allocation with invalid name '{name}'")


def _check_traits(traits: list[str]) -> None:
    for trait in traits:
        node_sub.validate_trait(trait, None)
    if len(set(traits)) > node_sub.TRAIT_LIMIT:
        raise exception.InvalidParameterValue(
            err=f"An allocation can request at most "
                f"{node_sub.TRAIT_LIMIT} traits.")


def _candidate_uuids(idents: list[str]) -> list[str]:
    """UUIDs of the candidate nodes, given as UUIDs or names (400 when
    one does not exist)."""
    normalized = [utils.normalize_uuid(i) if utils.is_uuid_like(i) else i
                  for i in idents]
    found = node_obj.uuids_for(normalized)
    missing = [i for i in normalized if i not in found]
    if missing:
        raise exception.InvalidParameterValue(
            err=f"Nodes cannot be found: {', '.join(missing)}")
    return list(dict.fromkeys(found[i] for i in normalized))


def _set_owner(values: dict) -> None:
    """A project-scoped caller allocates for its own project."""
    project = _project_scope()
    if project is None or policy.allowed(
            "baremetal:allocation:create_restricted", method.context()):
        return
    if values.get("owner") not in (None, project):
        raise exception.HTTPForbidden(
            resource="baremetal:allocation:create_restricted")
    values["owner"] = project


def _backfill_node(ident: str, values: dict) -> dict:
    if values.get("candidate_nodes"):
        raise exception.InvalidParameterValue(
            err="Cannot use candidate_nodes when creating an allocation "
                "for a specific node.")
    try:
        node = node_lookup.get_node(ident)
    except exception.NodeNotFound as e:
        raise exception.InvalidParameterValue(err=str(e)) from e
    values["node"] = node.uuid
    return {"uuid": node.uuid, "driver": node.driver,
            "conductor_group": node.conductor_group}


def validate_create(body: dict, ver: int) -> dict:
    """The column values of a new allocation (and ``node`` to backfill)."""
    if "owner" in body and not features.ALLOCATION_OWNER.available(ver):
        raise exception.NotAcceptable(
            f"The field 'owner' needs API version "
            f"{features.ALLOCATION_OWNER.version} or newer.")
    if "node" in body and \
            not features.ALLOCATION_BACKFILL.available(ver):
        raise exception.NotAcceptable(
            f"The field 'node' needs API version "
            f"{features.ALLOCATION_BACKFILL.version} or newer.")
    api_utils.validate(SCHEMA, body, None)
    values = {k: v for k, v in body.items() if v is not None}
    _check_name(values.get("name"))
    if "uuid" in values:
        if not utils.is_uuid_like(values["uuid"]):
            raise query.expected("UUID", "uuid", values["uuid"])
        values["uuid"] = utils.normalize_uuid(values["uuid"])
    values["traits"] = list(dict.fromkeys(values.get("traits") or []))
    _check_traits(values["traits"])
    values.setdefault("extra", {})
    if values.get("candidate_nodes"):
        values["candidate_nodes"] = _candidate_uuids(
            values["candidate_nodes"])
    if not values.get("node") and not values.get("resource_class"):
        raise exception.InvalidParameterValue(
            err="The resource_class field is mandatory when not "
                "backfilling")
    _set_owner(values)
    return values


def _target_host(values: dict, node: dict | None) -> str:
    """The conductor that processes the allocation: the node's owner for
    a backfill, else one serving the first candidate node, else any."""
    api = rpcapi.get_api()
    if node is not None:
        return api.host_for(node)
    for uuid in values.get("candidate_nodes") or ():
        try:
            return api.host_for(Node.get(uuid))
        except exception.NoValidHost:
            continue
    return api.any_host()


def _from_reply(doc: dict) -> Any:
    return types.SimpleNamespace(**doc)


# ----------------------------------------------------------------------
# listing


def _node_filter(ident: str, q: descriptor.Query) -> descriptor.Criteria:
    try:
        node = node_lookup.get_node(ident)
    except exception.NodeNotFound as e:
        raise exception.InvalidParameterValue(err=str(e)) from e
    return [("node_id", node.id)]


def _state_filter(state: str, q: descriptor.Query) -> descriptor.Criteria:
    if state not in alloc_obj.STATES:
        raise exception.InvalidParameterValue(
            err=f"Invalid state {state!r}: expected one of "
                f"{', '.join(alloc_obj.STATES)}.")
    return [("state", state)]


def _list_scope(q: descriptor.Query) -> descriptor.Criteria:
    """A project-scoped caller lists its project's allocations only,
    unless it may list them all."""
    project = _project_scope()
    _authorize("list", project)
    if project is not None and not policy.allowed(
            "baremetal:allocation:list_all", method.context()):
        return [("owner", project)]
    return []


def destroy(alloc: Allocation) -> None:
    """Ask the conductor of the allocation's node to free it and delete
    the allocation."""
    api = rpcapi.get_api()
    if alloc.node_id is not None:
        host = api.host_for(Node.get(alloc.node_id))
    else:
        host = api.any_host()
    api.destroy_allocation(method.context(), alloc.uuid, host)


_TOO_OLD = "The API version does not allow allocations"


def _item(ident: str, verb: str) -> Allocation:
    alloc = get_allocation(ident)
    _check_owner_visible(alloc)
    _authorize(verb, alloc.owner)
    return alloc


def _create(body: dict, ver: int) -> Any:
    values = validate_create(body, ver)
    _authorize("create", values.get("owner"))
    node = _backfill_node(values["node"], values) \
        if values.get("node") else None
    host = _target_host(values, node)
    saved = rpcapi.get_api().create_allocation(method.context(), values,
                                               host)
    return _from_reply(saved)


def _update(alloc: Allocation, patch: list, ver: int) -> Allocation:
    current = {name: getattr(alloc, name) for name in _PATCHABLE}
    patched = api_utils.apply_patch(
        current, patch, read_only=set(SPEC.visible(ver)) - set(current),
        allowed_roots=set(current), listed=_LISTED)
    api_utils.validate(_PATCH_SCHEMA, patched, "patch")
    _check_name(patched.get("name"))
    changes = {"name": patched.get("name"),
               "extra": patched.get("extra") or {}}
    changes = {k: v for k, v in changes.items() if getattr(alloc, k) != v}
    if changes:
        for name, value in changes.items():
            setattr(alloc, name, value)
        alloc.save()
    return alloc


SPEC = descriptor.Spec(
    # Ironic 39 checks the path argument's form first, in these words.
    ident_forms=dict.fromkeys(("get", "update", "delete"),
                              ("allocation_ident",
                               descriptor.uuid_or_logical_name)),
    # Ironic 39 checks these queries with a JSON schema, and words its
    # refusals after it.
    schema_query=True,
    singular="allocation", collection="allocations", obj_cls=None,
    body_title=None,
    api_fields=_FIELDS, default_fields=None,
    bounds=descriptor.Bounds(
        features.ALLOCATIONS, too_old_message=_TOO_OLD, write_too_old=405,
        patch=features.ALLOCATION_UPDATE,
        patch_too_old_message="The API version does not allow updating "
                              "allocations"),
    filters={
        "node": descriptor.Filter(_node_filter),
        "resource_class": descriptor.Filter(
            lambda value, q: [("resource_class", value)]),
        "state": descriptor.Filter(_state_filter),
        "owner": descriptor.Filter(lambda value, q: [("owner", value)],
                                   features.ALLOCATION_OWNER),
    },
    sort_keys=frozenset({"id", "uuid", "name", "state", "resource_class",
                         "owner", "created_at", "updated_at"}),
    detail_param=None, detail_action=False, strict_fields=False,
    list_scope=_list_scope, fetch=collection.object_fetch(Allocation),
    render=views, item=_item, create=_create, update=_update,
    delete=destroy,
    refuse_show_params=lambda unknown: exception.InvalidParameterValue(
        err="Only 'fields' may be given when showing an allocation."))

AllocationsController = collection.controller(SPEC,
                                              "AllocationsController")


class NodeAllocationController(rest.RestController):
    """/v1/nodes/{node}/allocation: the node's allocation, if any."""

    def __init__(self, node_ident: str):
        self.node_ident = node_ident

    def _allocation(self, missing_node: type = exception.NodeNotFound
                    ) -> Allocation:
        try:
            node = node_lookup.get_node(self.node_ident,
                                        path_arg=node_lookup.IN_PATH)
        except exception.NodeNotFound as e:
            # The reference reads the node of a GET as an argument.
            raise missing_node(str(e)) from e
        if not node.allocation_id:
            raise exception.AllocationNotFound(
                allocation=f"of node {node.uuid}")
        alloc = Allocation.get(node.allocation_id)
        _check_owner_visible(alloc)
        return alloc

    @expose()
    @api_method(features.ALLOCATIONS)
    def get_all(self, **params):
        alloc = self._allocation(exception.InvalidParameterValue)
        _authorize("get", alloc.owner)
        fields = list_query.show_fields(SPEC, params, method.version())
        return collection.show(SPEC, alloc, fields)

    @expose()
    @api_method(features.ALLOCATIONS, status=204)
    def delete(self):
        alloc = self._allocation()
        _authorize("delete", alloc.owner)
        destroy(alloc)
