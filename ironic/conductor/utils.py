"""Helpers shared by the conductor's flows."""

from __future__ import annotations

import logging
from typing import Any, Callable

from ironic.common import hash_ring

LOG = logging.getLogger(__name__)


def node_conductor(node: Any) -> str | None:
    """Hostname of the conductor owning ``node`` by the hash ring (the
    API's node ``conductor`` field); None when none is alive for it."""
    return hash_ring.conductor_for(node)


def fail(task: Any, event: str, message: str,
         cleanup: Callable[[Any], None] | None = None) -> None:
    """Move the node to its failed state with ``message`` as last_error.

    ``cleanup`` runs first; its own failure is logged, never hides the
    original error.
    """
    LOG.error("Node %s: %s", task.node.uuid, message)
    if cleanup is not None:
        try:
            cleanup(task)
        except Exception:  # noqa: BLE001 - the first error matters
            LOG.exception("Node %s: clean-up after failure failed",
                          task.node.uuid)
    task.process_event(event, last_error=message)


def record_history(task: Any, event: str, event_type: str = "provisioning",
                   severity: str = "ERROR") -> None:
    """Add an entry to the node's history (GET /v1/nodes/{n}/history).

    Losing a history entry must never fail the operation that caused it.
    """
    from ironic.db import api as db_api
    user = getattr(task.context, "user_id", None) if task.context else None
    try:
        db_api.get_instance().add_node_history(task.node.id, {
            "conductor": task.host, "event_type": event_type,
            "severity": severity, "event": event,
            "user": (user or "")[:32] or None})
    except Exception:  # noqa: BLE001 - history is best effort
        LOG.exception("Could not record history of node %s",
                      task.node.uuid)


def set_internal(node: Any, **values: Any) -> None:
    """Set (None: remove) keys of driver_internal_info."""
    info = dict(node.driver_internal_info or {})
    for key, value in values.items():
        if value is None:
            info.pop(key, None)
        else:
            info[key] = value
    node.driver_internal_info = info


def interface(task: Any, kind: str) -> Any:
    """The node's ``kind`` interface, or an error saying why it is off."""
    from ironic.common import exception
    iface = getattr(task.driver, kind, None)
    if iface is None:
        raise exception.InvalidParameterValue(
            err=task.driver.disabled.get(
                kind, f"Node {task.node.uuid} has no {kind} interface."))
    return iface
