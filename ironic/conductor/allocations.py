"""Allocations: find a node for a request and reserve it for an instance.

``create_allocation`` records the request (state ``allocating``) and hands
the search to a worker; the worker picks an available node that is not in
maintenance, not locked and not associated, of the resource class, with
every requested trait, among the candidate nodes if any were given, owned
or leased by the allocation's owner if it has one, and in the conductor
group of the conductor doing the work. A node named like the allocation
is tried first (API 1.79), the others in random order so that concurrent
allocations do not all fight for the same node. The chosen node gets the
allocation's UUID as ``instance_uuid`` and its traits in
``instance_info``; the allocation becomes ``active``. When nothing fits it
goes to ``error`` with ``last_error`` saying why.

``backfill`` (API 1.58) records an allocation for a node deployed without
one; ``destroy_allocation`` frees the node again.
"""

from __future__ import annotations

import datetime
import logging
import random
from typing import Any

from ironic.common import exception, states
from ironic.conductor import task_manager
from ironic.conf import CONF
from ironic.objects import allocation as alloc_obj
from ironic.objects.allocation import Allocation
from ironic.objects.conductor import Conductor
from ironic.task import Task

LOG = logging.getLogger(__name__)

# While an instance lives on the node its allocation may only be removed
# in maintenance (the node is torn down first, which frees it).
_IN_USE = frozenset({
    states.DEPLOYING, states.DEPLOYWAIT, states.DEPLOYHOLD, states.ACTIVE,
    states.REBUILD, states.RESCUING, states.RESCUEWAIT, states.RESCUE,
    states.RESCUEFAIL, states.UNRESCUING, states.UNRESCUEFAIL,
    states.SERVICING, states.SERVICEWAIT, states.SERVICEHOLD,
    states.SERVICEFAIL})


def as_message(alloc: Allocation) -> dict[str, Any]:
    """The allocation as plain JSON (times ISO 8601) for an RPC reply."""
    doc: dict[str, Any] = {"id": alloc.id}
    for name, value in alloc.as_dict().items():
        doc[name] = value.isoformat() if isinstance(
            value, datetime.datetime) else value
    return doc


# ----------------------------------------------------------------------
# creation and the search for a node


def create_allocation(context: Any, host: str, pool: Any,
                      values: dict[str, Any]) -> dict[str, Any]:
    """Record the allocation and start the search in a worker.

    The worker slot is taken first: a busy conductor (503) records
    nothing.
    """
    conductor = Conductor.get_by_hostname(host)
    slot = pool.reserve()
    try:
        alloc = Allocation(**values, state=alloc_obj.ALLOCATING,
                           conductor_affinity=conductor.id)
        alloc.create()
    except Exception:
        slot.release()
        raise
    pool.run(slot, do_allocate, context, host, alloc.id,
             conductor.conductor_group or "")
    return as_message(alloc)


def _ordered(candidates: list[dict], name: str | None) -> list[dict]:
    random.shuffle(candidates)
    if name:
        candidates.sort(key=lambda c: c["name"] != name)
    return candidates


def _no_match_error(alloc: Allocation) -> str:
    what = [f"resource class {alloc.resource_class}"]
    if alloc.traits:
        what.append(f"traits {', '.join(alloc.traits)}")
    if alloc.candidate_nodes:
        what.append(f"candidate nodes {', '.join(alloc.candidate_nodes)}")
    if alloc.owner:
        what.append(f"owner {alloc.owner}")
    return ("No available nodes match the allocation: "
            + "; ".join(what))


def do_allocate(context: Any, host: str, alloc_id: int,
                conductor_group: str) -> None:
    """Worker: give the allocation a node or move it to ``error``."""
    try:
        alloc = Allocation.get(alloc_id)
    except exception.AllocationNotFound:
        LOG.info("Allocation %s was deleted before it was processed",
                 alloc_id)
        return
    try:
        candidates = Allocation.node_candidates(
            resource_class=alloc.resource_class, traits=alloc.traits,
            candidate_nodes=alloc.candidate_nodes, owner=alloc.owner,
            conductor_group=conductor_group)
        for candidate in _ordered(candidates, alloc.name):
            if _try_node(context, host, alloc, candidate["uuid"]):
                return
        error = _no_match_error(alloc) if not candidates else (
            "All nodes matching the allocation are busy or were taken "
            "meanwhile; try again.")
    except exception.AllocationNotFound:
        LOG.info("Allocation %s was deleted while being processed",
                 alloc.uuid)
        return
    except Exception as e:  # noqa: BLE001 - recorded on the allocation
        LOG.exception("Allocation %s failed", alloc.uuid)
        error = f"Unexpected failure: {e}"
    _fail(alloc, error)


def _fail(alloc: Allocation, error: str) -> None:
    LOG.warning("Allocation %s failed: %s", alloc.uuid, error)
    alloc.state = alloc_obj.ERROR
    alloc.last_error = error
    try:
        alloc.save()
    except exception.AllocationNotFound:
        pass


def _still_fits(node: Any, alloc: Allocation) -> bool:
    """The candidate query ran without the lock: check again under it."""
    return (node.provision_state == states.AVAILABLE
            and not node.maintenance and not node.instance_uuid
            and not node.allocation_id
            and node.resource_class == alloc.resource_class)


def _try_node(context: Any, host: str, alloc: Allocation,
              node_uuid: str) -> bool:
    """Give ``node_uuid`` to the allocation if it can be had right now."""
    try:
        with task_manager.acquire(context, node_uuid, host=host,
                                  purpose="allocating", retry=False) as task:
            node = task.node
            if not _still_fits(node, alloc):
                return False
            _associate(node, alloc)
            # Both rows at once: a client that sees the allocation active
            # finds the node naming it, and an allocation deleted
            # meanwhile (AllocationNotFound) leaves the node untouched.
            task.save_with_allocation(alloc.id, {
                "node_id": node.id, "state": alloc_obj.ACTIVE,
                "last_error": None})
    except (exception.NodeLocked, exception.NodeNotFound,
            exception.InstanceAssociated):
        return False
    LOG.info("Allocation %s got node %s", alloc.uuid, node_uuid)
    return True


def _associate(node: Any, alloc: Allocation) -> None:
    node.instance_uuid = alloc.uuid
    node.allocation_id = alloc.id
    info = dict(node.instance_info or {})
    info["traits"] = list(alloc.traits or [])
    node.instance_info = info


def resume_orphans(service: Any) -> int:
    """Take over allocations left ``allocating`` by a conductor that is
    gone (or by this one before a restart) and search again; how many."""
    live = {c.id for c in Conductor.list_alive()}
    mine = service.conductor_id
    live.discard(mine)
    stuck = Allocation.list_rows([("state", alloc_obj.ALLOCATING)])
    resumed = 0
    for row in stuck:
        if row.conductor_affinity in live:
            continue
        if not Allocation.claim(row.id, row.conductor_affinity, mine):
            continue
        try:
            service.pool.spawn(do_allocate, None, service.host, row.id,
                               CONF.conductor.conductor_group or "")
        except exception.NoFreeConductorWorker:
            LOG.warning("No free worker to resume allocation %s; the "
                        "next takeover run retries", row.uuid)
            break
        resumed += 1
    if resumed:
        LOG.info("Resumed %d allocation(s) left allocating", resumed)
    return resumed


# ----------------------------------------------------------------------
# backfill (1.58)


def _backfill_errors(node: Any, alloc: Allocation, traits: list[str]
                     ) -> list[str]:
    errors = []
    if node.provision_state != states.ACTIVE:
        errors.append(f"the node must be in the \"active\" state, but it "
                      f"is \"{node.provision_state}\"")
    if node.allocation_id:
        errors.append("the node already has an allocation")
    if node.instance_uuid and node.instance_uuid != alloc.uuid:
        errors.append(f"the node is associated with instance "
                      f"{node.instance_uuid}")
    if alloc.resource_class != node.resource_class:
        errors.append(f"the node's resource class "
                      f"{node.resource_class} does not match "
                      f"{alloc.resource_class}")
    missing = sorted(set(alloc.traits or []) - set(traits))
    if missing:
        errors.append(f"the node lacks the traits {', '.join(missing)}")
    if alloc.owner and alloc.owner not in (node.owner, node.lessee):
        errors.append(f"the node is not owned or leased by {alloc.owner}")
    return errors


def backfill(task: Task, values: dict[str, Any]) -> dict[str, Any]:
    """Record an active allocation for the locked, deployed node."""
    node = task.node
    values = dict(values)
    # A node deployed with an instance UUID keeps it as the allocation's.
    if node.instance_uuid and not values.get("uuid"):
        values["uuid"] = node.instance_uuid
    if not values.get("resource_class"):
        values["resource_class"] = node.resource_class
    alloc = Allocation(**values, state=alloc_obj.ACTIVE, node_id=node.id)
    traits = node.load_traits()
    errors = _backfill_errors(node, alloc, traits)
    if errors:
        raise exception.AllocationFailed(
            uuid=values.get("uuid") or "(new)",
            error=f"cannot backfill node {node.uuid}: " + "; ".join(errors))
    alloc.create()
    _associate(node, alloc)
    try:
        node.save()
    except Exception:
        alloc.destroy()
        raise
    LOG.info("Allocation %s backfilled for node %s", alloc.uuid, node.uuid)
    return as_message(alloc)


# ----------------------------------------------------------------------
# deletion


def free_node(node: Any, alloc_uuid: str | None) -> None:
    """Forget the node's allocation (the caller saves the node)."""
    node.allocation_id = None
    if alloc_uuid and node.instance_uuid == alloc_uuid:
        node.instance_uuid = None
        info = dict(node.instance_info or {})
        info.pop("traits", None)
        node.instance_info = info


def destroy_allocation(task: Task, alloc: Allocation) -> None:
    """Delete the allocation of the locked node and free the node."""
    node = task.node
    if node.provision_state in _IN_USE and not node.maintenance:
        raise exception.InvalidState(
            f"Cannot remove allocation {alloc.uuid} from node {node.uuid} "
            f"in provision state \"{node.provision_state}\"; tear the node "
            f"down first or set it into maintenance mode.")
    if node.allocation_id == alloc.id:
        free_node(node, alloc.uuid)
        node.save()
    alloc.destroy()
    LOG.info("Allocation %s deleted, node %s freed", alloc.uuid, node.uuid)


def forget_on_teardown(node: Any) -> None:
    """A torn-down node's allocation ends with its instance."""
    if not node.allocation_id:
        return
    try:
        Allocation.delete(node.allocation_id)
    except exception.AllocationNotFound:
        pass
    node.allocation_id = None
