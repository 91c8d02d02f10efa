"""Rescue and unrescue."""

from __future__ import annotations

from typing import Any

from ironic.common import faults, states
from ironic.conductor import utils
from ironic.task import Task


def validate_rescue(task: Task) -> None:
    for kind in ("power", "boot", "rescue"):
        utils.interface(task, kind).validate(task)


def start_rescue(task: Task, rescue_password: str) -> None:
    """Check the request, keep the password for the rescue ramdisk and
    move the node to RESCUING; the rescue runs in a worker."""
    task.check_event("rescue")
    validate_rescue(task)
    info = dict(task.node.instance_info or {})
    info["rescue_password"] = rescue_password
    task.node.instance_info = info
    task.process_event("rescue", callback=do_node_rescue, call_args=(task,))


def do_node_rescue(task: Task) -> None:
    """Worker (node in RESCUING)."""
    try:
        result = utils.interface(task, "rescue").rescue(task)
    except Exception as e:  # noqa: BLE001 - recorded on the node
        utils.fail(task, "fail", f"Failed to rescue: {e}")
        return
    task.process_event("wait" if result == states.RESCUEWAIT else "done")


def start_unrescue(task: Task) -> None:
    task.process_event("unrescue", callback=do_node_unrescue,
                       call_args=(task,))


def do_node_unrescue(task: Task) -> None:
    """Worker (node in UNRESCUING)."""
    try:
        utils.interface(task, "rescue").unrescue(task)
    except Exception as e:  # noqa: BLE001 - recorded on the node
        utils.fail(task, "fail", f"Failed to unrescue: {e}")
        return
    _forget_password(task.node)
    task.process_event("done")


def _forget_password(node: Any) -> None:
    info = dict(node.instance_info or {})
    info.pop("rescue_password", None)
    info.pop("hashed_rescue_password", None)
    node.instance_info = info


def abort(task: Task) -> None:
    """Undo a rescue stopped in rescue wait (an abort or a timeout): the
    password goes and the rescue interface cleans up. A node whose clean
    up fails may still run the rescue ramdisk: it goes to maintenance
    (fault ``rescue abort failure``) until an operator looks at it."""
    node = task.node
    _forget_password(node)
    iface = getattr(task.driver, "rescue", None)
    if iface is None:
        return
    try:
        iface.clean_up(task)
    except Exception as e:
        node.maintenance = True
        node.fault = faults.RESCUE_ABORT_FAILURE
        node.maintenance_reason = (
            f"Cleaning up after the rescue stopped failed: {e}")
        raise
