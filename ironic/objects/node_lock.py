"""The exclusive node lock as the database keeps it.

The lock is the node's ``reservation`` column, taken and released with
single conditional UPDATEs (compare-and-swap) in ``ironic.db``; the
conductor's task manager, its start and stop, the takeover of dead
conductors' nodes and the stray-lock sweep reach those statements here.
Writes under the lock succeed only while the writer still holds it.
"""

from __future__ import annotations

from typing import Any

from ironic.db import api as db_api
from ironic.objects.node import Node


def reserve(host: str, node_id: int | str) -> Node:
    """Take the lock of the node (by id or UUID) for ``host``; the node as
    locked. NodeLocked (naming the holder) when someone holds it."""
    return Node.from_db(db_api.get_instance().reserve_node(host, node_id))


def release(host: str, node_id: int) -> None:
    """Give back ``host``'s lock of a node: NodeLocked when another holds
    it, NodeNotLocked when nobody does."""
    db_api.get_instance().release_node(host, node_id)


def save_locked(node: Node, host: str, *, and_release: bool = False
                ) -> None:
    """Write the node's changes only while ``host`` holds its lock
    (NodeLocked/NodeNotLocked otherwise); ``and_release``: give the lock back
    in the same UPDATE, which is then written even with nothing changed."""
    changed = node._db_values(node.what_changed())
    if and_release:
        changed["reservation"] = None
    if changed:
        node._refresh_from(db_api.get_instance().update_node_locked(
            node.id, host, changed))
    node.reset_changes()


def save_locked_with_allocation(node: Node, host: str, alloc_id: int,
                                alloc_values: dict[str, Any]) -> None:
    """``save_locked`` and a write of ``alloc_values`` to allocation
    ``alloc_id``, in one transaction."""
    node._refresh_from(
        db_api.get_instance().update_node_locked_and_allocation(
            node.id, host, node._db_values(node.what_changed()), alloc_id,
            alloc_values))
    node.reset_changes()


def locked_by(host: str) -> list[tuple[int, str]]:
    """(id, uuid) of every node whose lock ``host`` holds."""
    return db_api.get_instance().get_nodes_reserved_by(host)


def clear_for_conductor(host: str) -> int:
    """Release every lock held under ``host`` (its start and stop); how
    many there were."""
    return db_api.get_instance().clear_node_reservations_for_conductor(host)


def release_dead_conductors_locks(heartbeat_timeout: int) -> list[str]:
    """Break the locks of conductors whose heartbeat is older than
    ``heartbeat_timeout`` seconds (or that are gone); the nodes' UUIDs."""
    return db_api.get_instance().release_dead_conductor_locks(
        heartbeat_timeout)
