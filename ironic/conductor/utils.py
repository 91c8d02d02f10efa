"""Helpers shared by the conductor's flows."""

from __future__ import annotations

import datetime
import logging
from typing import Any, Callable

from ironic import hash_ring
from ironic.common import exception, outages, scrub, states
from ironic.objects import node_records
from ironic.task import Task

LOG = logging.getLogger(__name__)


def node_conductor(node: Any) -> str | None:
    """Hostname of the conductor owning ``node`` by the hash ring (the
    API's node ``conductor`` field); None when none is alive for it."""
    return hash_ring.conductor_for(node)


def fail(task: Task, event: str, message: str,
         cleanup: Callable[[Any], None] | None = None) -> None:
    """Move the node to its failed state with ``message`` as last_error.

    ``cleanup`` runs first; its own failure is logged, never hides the
    original error.

    Called while handling a database outage, it records nothing: the
    error goes on up, the node keeps its state, its lock is given back
    once the database answers again (``TaskManager.release_resources``)
    and the takeover pass resumes the node as it resumes any orphan.
    """
    if outages.current() == outages.DATABASE:
        LOG.warning("Node %s: stopped by a database outage (%s); it keeps "
                    "its state and is resumed when the database is back",
                    task.node.uuid, message)
        raise outages.current_error()
    LOG.error("Node %s: %s", task.node.uuid, message)
    # Known to the clean-up too: it must not keep, for instance, a ramdisk
    # agent running for fast track after a failure.
    task.node.last_error = message
    if cleanup is not None:
        try:
            cleanup(task)
        except Exception:  # noqa: BLE001 - the first error matters
            LOG.exception("Node %s: clean-up after failure failed",
                          task.node.uuid)
    task.process_event(event, last_error=message)


# The history event_type of a failure, by the state the node was in when
# it happened: the words the public service uses for each flow.
_EVENT_TYPES: dict[str | None, str] = {
    states.VERIFYING: "verify",
    states.INSPECTING: "introspection", states.INSPECTWAIT: "introspection",
    states.CLEANING: "cleaning", states.CLEANWAIT: "cleaning",
    states.CLEANHOLD: "cleaning",
    states.DEPLOYING: "deploying", states.DEPLOYWAIT: "deploying",
    states.DEPLOYHOLD: "deploying",
    states.DELETING: "unprovision",
    states.ADOPTING: "adoption",
    states.RESCUING: "rescue", states.RESCUEWAIT: "rescue",
    states.UNRESCUING: "rescue",
    states.SERVICING: "servicing", states.SERVICEWAIT: "servicing",
    states.SERVICEHOLD: "servicing", states.SERVICEFAIL: "servicing",
}


def event_type_for(state: str | None) -> str:
    """The history event_type of something going wrong in ``state``."""
    return _EVENT_TYPES.get(state, "provisioning")


#: (provision_state, target_provision_state, provision_updated_at) of a
#: node: where it was when something happened, and since when.
ProvisionSnapshot = tuple[Any, Any, Any]


def provision_snapshot(node: Any) -> ProvisionSnapshot:
    """The node's provision state, target and when it entered the state."""
    return (node.provision_state, node.target_provision_state,
            node.provision_updated_at)


def _seconds_since(since: Any) -> int | None:
    """Whole seconds from ``since`` (naive UTC, as stored) until now."""
    if since is None:
        return None
    if since.tzinfo is not None:
        since = since.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    return max(0, int((now - since).total_seconds()))


# For the writers of history rows that have no task (batched power sync
# failures).
seconds_since = _seconds_since


def _context_value(task: Task, name: str, size: int) -> str | None:
    value = getattr(task.context, name, None) if task.context else None
    return (value or "")[:size] or None


def record_history(task: Task, event: str, event_type: str = "provisioning",
                   severity: str = "ERROR",
                   snapshot: ProvisionSnapshot | None = None) -> None:
    """Add an entry to the node's history (GET /v1/nodes/{n}/history).

    The entry names the user and project of the request that caused it
    (API 1.113) and where the node was: its provision state, target and
    seconds spent in that state (API 1.115), taken from ``snapshot`` when
    the caller already moved the node on, else from the node as it is.
    Losing a history entry must never fail the operation that caused it.
    """
    state, target, since = snapshot or provision_snapshot(task.node)
    try:
        node_records.add_history(task.node.id, {
            "conductor": task.host, "event_type": event_type,
            "severity": severity, "event": scrub.text(event),
            "user": _context_value(task, "user_id", 32),
            "project": _context_value(task, "project_id", 80),
            "state": state, "target_provision_state": target,
            "duration_seconds": _seconds_since(since)})
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


def interface(task: Task, kind: str) -> Any:
    """The node's ``kind`` interface, or an error saying why it is off."""
    iface = getattr(task.driver, kind, None)
    if iface is None:
        raise exception.InvalidParameterValue(
            err=task.driver.disabled.get(
                kind, f"Node {task.node.uuid} has no {kind} interface."))
    return iface
