"""The ``redfish`` power interface (sushy)."""

from __future__ import annotations

import time
from typing import Any

import sushy

from ironic.common import exception, states
from ironic.conf import CONF
from ironic.drivers import base
from ironic.drivers.modules import redfish_client
from ironic.drivers.modules.redfish_client import system_of
from ironic.metrics import bmc_call
from ironic.task import Task

_FROM_SUSHY = {sushy.POWER_STATE_ON: states.POWER_ON,
               sushy.POWER_STATE_POWERING_OFF: states.POWER_ON,
               sushy.POWER_STATE_OFF: states.POWER_OFF,
               sushy.POWER_STATE_POWERING_ON: states.POWER_OFF}


# Redfish Status.Health of the system -> the node's health field.
_HEALTH = {sushy.Health.OK: "OK", sushy.Health.WARNING: "Warning",
           sushy.Health.CRITICAL: "Critical"}


def _reset(system, action: str) -> None:
    redfish_client.call(f"reset '{action}'", system.reset_system, action)


def _read_power(system) -> tuple[Any, Exception | None]:
    """The system's power state, freshly read, or the error reading it."""
    try:
        system.refresh(force=True)
        return system.power_state, None
    except (sushy.exceptions.ConnectionError,
            sushy.exceptions.ServerSideError) as e:
        return None, e


def _wait(task: Task, system, wanted: str, timeout: int | None) -> None:
    """Poll until the system is stably in ``wanted``. A BMC that stops
    answering meanwhile is asked again until the timeout: some reset
    their network while the host changes power."""
    deadline = time.monotonic() + (
        timeout or CONF.conductor.power_state_change_timeout)
    while True:
        state, error = _read_power(system)
        if _FROM_SUSHY.get(state) == wanted and \
                state in (sushy.POWER_STATE_ON, sushy.POWER_STATE_OFF):
            return
        if time.monotonic() >= deadline:
            if error is not None:
                raise redfish_client.RedfishConnectionError(
                    bmc=(task.node.driver_info or {}).get(
                        "redfish_address"),
                    error=f"{error} (waiting for {wanted})") from error
            raise exception.PowerStateFailure(pstate=wanted)
        time.sleep(1)


class RedfishPower(redfish_client.DriverInfoChecks, base.PowerInterface):
    @bmc_call
    def get_power_state(self, task: Task) -> str:
        return self._power_of(system_of(task))

    @staticmethod
    def _power_of(system) -> str:
        state = system.power_state
        return _FROM_SUSHY.get(state, states.ERROR) if state else \
            states.ERROR

    @bmc_call
    def get_power_state_and_health(self, task: Task
                                   ) -> tuple[str, str | None]:
        system = system_of(task)
        status = system.status
        health = _HEALTH.get(status.health) if status is not None else None
        return self._power_of(system), health

    @bmc_call
    def set_power_state(self, task: Task, power_state: str,
                        timeout: int | None = None) -> None:
        actions = {states.POWER_ON: (sushy.RESET_ON, states.POWER_ON),
                   states.POWER_OFF: (sushy.RESET_FORCE_OFF,
                                      states.POWER_OFF),
                   states.SOFT_POWER_OFF: (sushy.RESET_GRACEFUL_SHUTDOWN,
                                           states.POWER_OFF)}
        if power_state in (states.REBOOT, states.SOFT_REBOOT):
            return self._reboot(task, power_state == states.SOFT_REBOOT,
                                timeout)
        if power_state not in actions:
            raise exception.InvalidParameterValue(
                err=f"set_power_state called with an invalid power state: "
                    f"{power_state}")
        action, wanted = actions[power_state]
        system = system_of(task)
        _reset(system, action)
        _wait(task, system, wanted, timeout)

    def _reboot(self, task: Task, soft: bool, timeout: int | None) -> None:
        system = system_of(task)
        if _FROM_SUSHY.get(system.power_state) == states.POWER_ON:
            _reset(system, sushy.RESET_GRACEFUL_RESTART if soft
                   else sushy.RESET_FORCE_RESTART)
        else:
            _reset(system, sushy.RESET_ON)
        _wait(task, system, states.POWER_ON, timeout)

    @bmc_call
    def reboot(self, task: Task, timeout: int | None = None) -> None:
        self._reboot(task, False, timeout)

    def get_supported_power_states(self, task: Task) -> list[str]:
        return [states.POWER_ON, states.POWER_OFF, states.REBOOT,
                states.SOFT_REBOOT, states.SOFT_POWER_OFF]
