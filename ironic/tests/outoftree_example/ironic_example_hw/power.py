"""The ``example`` power interface.

It drives an imaginary power switch reached at ``driver_info['example_
address']``; like the fake one it keeps the power state on the node, but it
refuses nodes that do not say where their switch is.
"""

from __future__ import annotations

from typing import Any

from ironic.common import exception, states
from ironic.drivers import base

_PROPERTIES = {
    "example_address": "Address of the node's power switch. Required.",
    "example_outlet": "Outlet number on the switch (default 1). Optional.",
}


class ExamplePower(base.PowerInterface):

    def get_properties(self) -> dict[str, str]:
        return dict(_PROPERTIES)

    def validate(self, task: Any) -> None:
        info = task.node.driver_info or {}
        if not info.get("example_address"):
            raise exception.MissingParameterValue(
                err="driver_info/example_address is required by the "
                    "example power interface.")

    def get_power_state(self, task: Any) -> str:
        return task.node.power_state or states.POWER_OFF

    def set_power_state(self, task: Any, power_state: str,
                        timeout: int | None = None) -> None:
        if power_state not in (states.POWER_ON, states.POWER_OFF):
            raise exception.InvalidParameterValue(
                err=f"The example switch cannot do {power_state}.")
        task.node.power_state = power_state

    def reboot(self, task: Any, timeout: int | None = None) -> None:
        task.node.power_state = states.POWER_ON

    def get_supported_power_states(self, task: Any) -> list[str]:
        return [states.POWER_ON, states.POWER_OFF, states.REBOOT]
