"""Management actions on a locked node: boot mode, secure boot, NMI.

Boot mode and secure boot changes are checked while the caller waits and
then applied by a worker (the API answers 202); a failure lands in the
node's ``last_error``. An NMI is sent while the caller waits.
"""

from __future__ import annotations

import logging
from typing import Any

from ironic.common import exception, states
from ironic.conductor import utils
from ironic.task import Task

LOG = logging.getLogger(__name__)


def management(task: Task) -> Any:
    """The node's management interface, validated for this node."""
    mgmt = utils.interface(task, "management")
    mgmt.validate(task)
    return mgmt


def _check_stable(task: Task) -> None:
    """409 while an operation that relies on the boot settings runs (the
    API checked too, but the node may have moved before it was locked)."""
    state = task.node.provision_state
    if state in states.UNSTABLE_STATES:
        raise exception.Conflict(
            f"Node {task.node.uuid} is in state {state}; its boot settings "
            f"can not change until that operation ends.")


def validate_boot_mode(task: Task, mode: str) -> None:
    _check_stable(task)
    supported = management(task).get_supported_boot_modes(task)
    if mode not in supported:
        raise exception.InvalidParameterValue(
            err=f"Unsupported boot mode {mode!r}; supported by node "
                f"{task.node.uuid}: {', '.join(supported)}")


def change_boot_mode(task: Task, mode: str) -> None:
    """Worker body: set the boot mode and record it on the node."""
    node = task.node
    try:
        task.driver.management.set_boot_mode(task, mode)
    except Exception as e:  # noqa: BLE001 - reported through last_error
        _failed(task, f"Failed to change the boot mode to {mode}: {e}")
        return
    node.boot_mode = mode
    node.last_error = None
    node.save()
    LOG.info("Node %s boot mode is now %s", node.uuid, mode)


def validate_secure_boot(task: Task) -> None:
    _check_stable(task)
    mgmt = management(task)
    # Drivers that cannot read the state cannot change it either.
    mgmt.get_secure_boot_state(task)


def change_secure_boot(task: Task, state: bool) -> None:
    """Worker body: turn secure boot on or off and record it."""
    node = task.node
    try:
        task.driver.management.set_secure_boot_state(task, state)
    except Exception as e:  # noqa: BLE001 - reported through last_error
        _failed(task, f"Failed to turn secure boot "
                      f"{'on' if state else 'off'}: {e}")
        return
    node.secure_boot = state
    node.last_error = None
    node.save()
    LOG.info("Node %s secure boot is now %s", node.uuid,
             "on" if state else "off")


def inject_nmi(task: Task) -> None:
    management(task).inject_nmi(task)


def _failed(task: Task, message: str) -> None:
    LOG.error("Node %s: %s", task.node.uuid, message)
    task.node.last_error = message
    task.node.save()
    utils.record_history(task, message, event_type="management")


# -- indicators -----------------------------------------------------------------

def _indicator_attrs(value: Any) -> dict[str, Any]:
    """{"readonly": bool, "states": [...]} from what a driver reports.

    Drivers give either that document (the public form) or just the list
    of states an operator may set (empty: read-only).
    """
    if isinstance(value, dict):
        return {"readonly": bool(value.get("readonly", True)),
                "states": list(value.get("states") or [])}
    states = list(value or [])
    return {"readonly": not states, "states": states}


def supported_indicators(task: Task, component: str | None = None
                         ) -> dict[str, dict[str, dict]]:
    """{component: {indicator: {"readonly", "states"}}} of the node."""
    found = management(task).get_supported_indicators(task, component)
    return {comp: {name: _indicator_attrs(attrs)
                   for name, attrs in (indicators or {}).items()}
            for comp, indicators in (found or {}).items()
            if component is None or comp == component}


def _known_indicator(task: Task, component: str, indicator: str) -> dict:
    attrs = supported_indicators(task, component).get(component, {}).get(
        indicator)
    if attrs is None:
        raise exception.NotFound(
            f"Node {task.node.uuid} has no indicator {indicator} on "
            f"component {component}.")
    return attrs


def get_indicator_state(task: Task, component: str, indicator: str) -> str:
    _known_indicator(task, component, indicator)
    return task.driver.management.get_indicator_state(task, component,
                                                      indicator)


def set_indicator_state(task: Task, component: str, indicator: str,
                        state: str) -> None:
    attrs = _known_indicator(task, component, indicator)
    if attrs["readonly"] or state not in attrs["states"]:
        allowed = "none, it is read-only" if attrs["readonly"] else \
            ", ".join(attrs["states"])
        raise exception.InvalidParameterValue(
            err=f"Indicator {indicator}@{component} of node "
                f"{task.node.uuid} can not be set to {state}; allowed: "
                f"{allowed}.")
    task.driver.management.set_indicator_state(task, component, indicator,
                                               state)
