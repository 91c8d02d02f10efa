"""Power and boot device actions on a locked node."""

from __future__ import annotations

import logging
from typing import Any

from ironic.common import agent_token, exception, states
from ironic.conductor import throttle, utils
from ironic.task import Task

LOG = logging.getLogger(__name__)

_RESULT = {states.POWER_ON: states.POWER_ON,
           states.POWER_OFF: states.POWER_OFF,
           states.REBOOT: states.POWER_ON,
           states.SOFT_REBOOT: states.POWER_ON,
           states.SOFT_POWER_OFF: states.POWER_OFF}


def start_power_change(task: Task, new_state: str,
                       timeout: int | None = None) -> None:
    """The API's power request: checked now, done in a worker; the target
    shows until it is."""
    validate_power_request(task, new_state)
    task.spawn_after(change_power_state, task, new_state, timeout)
    task.node.target_power_state = _RESULT[new_state]
    task.node.last_error = None
    task.node.save()


def validate_power_request(task: Task, new_state: str) -> None:
    """Synchronous checks, before the API is answered."""
    if new_state not in _RESULT:
        raise exception.InvalidParameterValue(
            err=f"Invalid power state {new_state!r}; expected one of "
                f"{', '.join(_RESULT)}")
    power = task.driver.power
    if power is None:
        raise exception.InvalidParameterValue(
            err=task.driver.disabled.get("power", "No power interface."))
    power.validate(task)
    supported = power.get_supported_power_states(task)
    if new_state not in supported:
        raise exception.InvalidParameterValue(
            err=f"The {new_state} power state is not supported by the power "
                f"interface of node {task.node.uuid}; supported: "
                f"{', '.join(supported)}")
    check_power_off_allowed(task, new_state)


_OFF = (states.POWER_OFF, states.SOFT_POWER_OFF)


def check_power_off_allowed(task: Task, new_state: str) -> None:
    """Refuse (400) to power off a node with ``disable_power_off`` (1.95).

    Such nodes (NC-SI: the BMC shares a NIC that dies with the host power;
    DPUs) would become unreachable; only reboots are allowed.
    """
    if new_state in _OFF and task.node.disable_power_off:
        raise exception.InvalidParameterValue(
            err=f"Node {task.node.uuid} has disable_power_off set: it may "
                f"be rebooted but never powered off.")


def power_off_or_reboot(task: Task, timeout: int | None = None) -> None:
    """What flows call where they would power a node off (before booting
    it elsewhere): a reboot when the node must never be powered off."""
    if task.node.disable_power_off:
        LOG.info("Node %s has disable_power_off set: rebooting instead of "
                 "powering off", task.node.uuid)
        node_power_action(task, states.REBOOT, timeout)
    else:
        node_power_action(task, states.POWER_OFF, timeout)


def node_power_action(task: Task, new_state: str,
                      timeout: int | None = None) -> None:
    """Change the power state now, recording the outcome on the node."""
    node = task.node
    power = task.driver.power
    if _boots(node, new_state) and _forget_agent(node):
        # Saved before the machine starts: its agent's first lookup must
        # find no token of an earlier boot (it would get "******" and
        # lock itself down).
        node.save()
    check_power_off_allowed(task, new_state)
    node.target_power_state = _RESULT[new_state]
    try:
        if new_state in _THROTTLED:
            with throttle.throttled(new_state, node.uuid):
                _act(task, power, new_state, timeout)
        else:
            _act(task, power, new_state, timeout)
        node.power_state = power.get_power_state(task)
    except Exception as e:
        node.last_error = (f"Failed to change power state to "
                           f"'{new_state}': {e}")
        node.target_power_state = None
        node.save()
        utils.record_history(task, node.last_error, event_type="power")
        raise
    node.target_power_state = None
    node.last_error = None
    if new_state != states.POWER_ON:
        _forget_agent(node)
    node.save()
    LOG.info("Node %s power state is now %s", node.uuid, node.power_state)


# Actions that power a machine on: spaced by [conductor]reboot_throttle.
_THROTTLED = (states.POWER_ON, states.REBOOT, states.SOFT_REBOOT)


def _act(task: Task, power: Any, new_state: str,
         timeout: int | None) -> None:
    if new_state == states.REBOOT:
        power.reboot(task, timeout=timeout)
    else:
        power.set_power_state(task, new_state, timeout=timeout)


def _forget_agent(node: Any) -> bool:
    """Powering off, rebooting or starting a machine ends any ramdisk
    agent it ran: its token and URL go with it, except a token handed to
    the next boot in advance. True when something was forgotten."""
    info = getattr(node, "driver_internal_info", None) or {}
    if any(key in info for key in agent_token.AGENT_KEYS) and \
            not info.get(agent_token.PREGENERATED_KEY):
        return agent_token.wipe(node)
    return False


def change_power_state(task: Task, new_state: str,
                       timeout: int | None = None) -> None:
    """Worker body of the API's power request (errors land in last_error)."""
    try:
        node_power_action(task, new_state, timeout)
    except throttle.ThrottleInterrupted:
        pass  # recorded on the node, logged by the throttle: no traceback
    except Exception:  # noqa: BLE001 - recorded on the node
        LOG.exception("Power action %s failed on node %s", new_state,
                      task.node.uuid)


def set_boot_device(task: Task, device: str, persistent: bool) -> None:
    mgmt = _management(task)
    supported = mgmt.get_supported_boot_devices(task)
    if device not in supported:
        raise exception.InvalidParameterValue(
            err=f"Invalid boot device {device!r}; supported by node "
                f"{task.node.uuid}: {', '.join(supported)}")
    mgmt.set_boot_device(task, device, persistent=persistent)
    task.node.save()


def get_boot_device(task: Task) -> dict:
    return _management(task).get_boot_device(task)


def supported_boot_devices(task: Task) -> list[str]:
    return _management(task).get_supported_boot_devices(task)


# UUIDs of the nodes whose console this conductor process started: when
# the ring gives one of them to another conductor, this one ends its
# console process (conductor.consoles).
CONSOLES_HERE: set[str] = set()


def console_change_needed(task: Task, enabled: bool) -> bool:
    """Validate a console request; whether a worker must start or stop the
    console. Enabling an enabled console whose process died counts."""
    console = _interface(task, "console")
    console.validate(task)
    return bool(task.node.console_enabled) != enabled or (
        enabled and not console.is_console_running(task))


def set_console_mode(task: Task, enabled: bool) -> None:
    """Start or stop the console (in a worker, as the API answered 202);
    a failure is told on the node's last_error."""
    console = _interface(task, "console")
    action = "start" if enabled else "stop"
    try:
        if enabled:
            console.start_console(task)
        else:
            console.stop_console(task)
    except Exception as e:  # noqa: BLE001 - the node carries the reason
        if isinstance(e, exception.IronicException):
            LOG.error("Console %s failed on node %s: %s", action,
                      task.node.uuid, e)
        else:
            LOG.exception("Console %s failed on node %s", action,
                          task.node.uuid)
        task.node.last_error = f"Failed to {action} the console: {e}"
        task.node.save()
        return
    (CONSOLES_HERE.add if enabled else CONSOLES_HERE.discard)(
        task.node.uuid)
    task.node.console_enabled = enabled
    task.node.last_error = None
    task.node.save()


def stop_console_of_deleted_node(task: Task) -> None:
    """A node being deleted must not leave its console process behind; a
    console that will not stop does not keep the node (logged)."""
    node = task.node
    if not node.console_enabled:
        return
    try:
        _interface(task, "console").stop_console(task)
    except Exception:  # noqa: BLE001 - the deletion goes on
        LOG.exception("Could not stop the console of node %s, deleted "
                      "anyway", node.uuid)
    CONSOLES_HERE.discard(node.uuid)


def get_console_information(task: Task) -> dict:
    console = _interface(task, "console")
    if not task.node.console_enabled:
        return {"console_enabled": False, "console_info": None}
    return {"console_enabled": True,
            "console_info": console.get_console(task)}


def set_target_raid_config(task: Task, config: dict) -> None:
    if config:
        raid = _interface(task, "raid")
        raid.validate_raid_config(task, config)
    task.node.target_raid_config = config or {}
    task.node.save()


def _interface(task: Task, kind: str) -> Any:
    iface = getattr(task.driver, kind, None)
    if iface is None:
        raise exception.InvalidParameterValue(
            err=task.driver.disabled.get(kind, f"No {kind} interface."))
    return iface


def _management(task: Task) -> Any:
    mgmt = task.driver.management
    if mgmt is None:
        raise exception.InvalidParameterValue(
            err=task.driver.disabled.get("management",
                                         "No management interface."))
    mgmt.validate(task)
    return mgmt


# ---------------------------------------------------------------------------
# a new boot starts without the agent of an earlier one

def _boots(node: Any, new_state: str) -> bool:
    """Whether the action starts the machine afresh: a reboot, or a power
    on of a node not known to be on (a power on of a running machine
    changes nothing, its agent lives on)."""
    if new_state in (states.REBOOT, states.SOFT_REBOOT):
        return True
    return new_state == states.POWER_ON and \
        node.power_state != states.POWER_ON


def forget_agent_before_ramdisk(task: Task) -> None:
    """Called before a ramdisk boot is prepared: the agent of that boot
    starts with no token (nor URL) of an earlier one, whichever power
    action (reboot, power on, none at all) then starts it. A token the
    boot interface pregenerates comes after this."""
    if agent_token.wipe(task.node):
        LOG.info("Node %s: the token of an earlier agent is discarded "
                 "before booting the ramdisk", task.node.uuid)
        task.node.save()
