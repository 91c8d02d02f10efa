"""Edits of a node's fields and its deletion, under the node's lock.

The API applies a JSON patch to the node document and validates the whole
result; what reaches the conductor are the column values that changed. The
conductor holds the exclusive lock while it checks the rules that depend on
the node's current state and writes the values, so an edit never lands in
the middle of an operation another conductor runs on the node.
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

from ironic.common import exception, states, utils
from ironic.conductor import allocations, power
from ironic.task import Task

LOG = logging.getLogger(__name__)


def check_update(node: Any, changes: dict[str, Any]) -> None:
    """Refuse edits the node's current state does not allow."""
    new_instance = changes.get("instance_uuid")
    if new_instance and node.instance_uuid and \
            utils.normalize_uuid(new_instance) != node.instance_uuid:
        raise exception.NodeAssociated(node=node.uuid,
                                       instance=node.instance_uuid)
    if changes.get("protected") and node.provision_state not in (
            states.ACTIVE, states.RESCUE):
        raise exception.InvalidState(
            f"Node {node.uuid} can only be made protected in provision "
            f"states '{states.ACTIVE}' or '{states.RESCUE}', the current "
            f"state is '{node.provision_state}'")
    if changes.get("retired") and \
            node.provision_state == states.AVAILABLE:
        raise exception.InvalidState(
            f"Node {node.uuid} can not have 'retired' set in provision "
            f"state '{states.AVAILABLE}', the current state is "
            f"'{node.provision_state}'")


def _instance_and_allocation(node: Any, changes: dict[str, Any]) -> None:
    """A node's instance_uuid is its allocation's UUID: removing it ends
    the allocation, changing it to another value is refused."""
    if "instance_uuid" not in changes or not node.allocation_id:
        return
    if changes["instance_uuid"] is not None:
        raise exception.InvalidState(
            f"Cannot change the instance_uuid of node {node.uuid}: it "
            f"belongs to the node's allocation.")
    allocations.forget_on_teardown(node)


def _clear_reasons(node: Any, changes: dict[str, Any]) -> None:
    """Turning a flag off forgets why it was on."""
    if "protected" in changes and not node.protected:
        node.protected_reason = None
    if "retired" in changes and not node.retired:
        node.retired_reason = None
    if "maintenance" in changes and not node.maintenance:
        node.maintenance_reason = None
        node.fault = None


def _sync_instance_name(node: Any, changes: dict[str, Any]) -> None:
    """An empty instance_name takes instance_info's display_name; one that
    is set (by a client or an earlier display_name) is kept."""
    if "instance_name" in changes or "instance_info" not in changes or \
            node.instance_name:
        return
    display = (node.instance_info or {}).get("display_name")
    if display:
        node.instance_name = display


def as_message(node: Any) -> dict[str, Any]:
    """The node's columns as plain JSON (times in ISO 8601) for the reply."""
    doc = {"id": node.id}
    for name, value in node.as_dict().items():
        if name != "traits":
            doc[name] = value.isoformat() if isinstance(
                value, datetime.datetime) else value
    return doc


def update_node(task: Task, changes: dict[str, Any]) -> dict[str, Any]:
    """Write ``changes`` (column name -> value) to the locked node; the
    node as saved (``as_message``)."""
    node = task.node
    check_update(node, changes)
    _instance_and_allocation(node, changes)
    for key, value in changes.items():
        setattr(node, key, value)
    _clear_reasons(node, changes)
    _sync_instance_name(node, changes)
    task.save_and_release()
    LOG.debug("Node %s updated: %s", node.uuid, ", ".join(sorted(changes)))
    return as_message(node)


def check_destroy(node: Any) -> None:
    """Refuse to delete a node that is in use."""
    if node.provision_state not in states.DELETE_ALLOWED_STATES and \
            not node.maintenance:
        raise exception.InvalidState(
            f"Can not delete node \"{node.uuid}\" while it is in provision "
            f"state \"{node.provision_state}\". Valid provision states to "
            f"perform deletion are: "
            f"\"{', '.join(sorted(states.DELETE_ALLOWED_STATES))}\", or "
            f"set the node into maintenance mode.")
    if node.protected:
        raise exception.NodeProtected(node=node.uuid)
    if node.instance_uuid:
        raise exception.NodeAssociated(node=node.uuid,
                                       instance=node.instance_uuid)


def destroy_node(task: Task) -> None:
    """Delete the locked node with its ports, portgroups and traits."""
    node = task.node
    check_destroy(node)
    power.stop_console_of_deleted_node(task)
    node.destroy()
    task.lock_gone_with_node()
    LOG.info("Node %s deleted", node.uuid)
