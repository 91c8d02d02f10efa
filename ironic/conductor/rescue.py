"""Rescue and unrescue."""

from __future__ import annotations

from typing import Any

from ironic.common import states
from ironic.conductor import utils


def validate_rescue(task: Any) -> None:
    for kind in ("power", "boot", "rescue"):
        utils.interface(task, kind).validate(task)


def do_node_rescue(task: Any) -> None:
    """Worker (node in RESCUING)."""
    try:
        result = utils.interface(task, "rescue").rescue(task)
    except Exception as e:  # noqa: BLE001 - recorded on the node
        utils.fail(task, "fail", f"Failed to rescue: {e}")
        return
    task.process_event("wait" if result == states.RESCUEWAIT else "done")


def do_node_unrescue(task: Any) -> None:
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


def abort(task: Any) -> None:
    iface = getattr(task.driver, "rescue", None)
    try:
        if iface is not None:
            iface.clean_up(task)
    finally:
        _forget_password(task.node)
        task.node.save()
