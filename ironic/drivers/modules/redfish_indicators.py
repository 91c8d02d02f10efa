"""Indicator LEDs of a Redfish system, its chassis and its drives.

An indicator is named by the Redfish ``Id`` of the resource that carries
it; states map Lit/Off/Blinking to ON/OFF/BLINKING, anything else (or no
``IndicatorLED`` at all) to UNKNOWN.
"""

from __future__ import annotations

from typing import Any

import sushy

from ironic.common import components, exception, indicator_states
from ironic.drivers.modules import redfish_client

_FROM_SUSHY = {sushy.INDICATOR_LED_LIT: indicator_states.ON,
               sushy.INDICATOR_LED_OFF: indicator_states.OFF,
               sushy.INDICATOR_LED_BLINKING: indicator_states.BLINKING}
_TO_SUSHY = {v: k for k, v in _FROM_SUSHY.items()}
SETTABLE = [indicator_states.BLINKING, indicator_states.OFF,
            indicator_states.ON]


def _chassis(system) -> list:
    try:
        return list(system.chassis or [])
    except sushy.exceptions.SushyError:
        return []


def _drives(system) -> list:
    try:
        storages = system.storage.get_members()
    except (sushy.exceptions.SushyError, AttributeError):
        return []
    found = []
    for storage in storages:
        try:
            found.extend(storage.drives)
        except sushy.exceptions.SushyError:
            continue
    return found


def resources(system, component: str) -> list:
    """The sushy resources of ``component`` that have an indicator."""
    if component == components.SYSTEM:
        found = [system]
    elif component == components.CHASSIS:
        found = _chassis(system)
    elif component == components.DISK:
        found = _drives(system)
    else:
        found = []
    return [r for r in found if r.indicator_led is not None]


def supported(system, component: str | None) -> dict[str, dict]:
    wanted = [component] if component else [
        components.SYSTEM, components.CHASSIS, components.DISK]
    out: dict[str, dict] = {}
    for comp in wanted:
        found = resources(system, comp)
        if found:
            out[comp] = {r.identity: list(SETTABLE) for r in found}
    return out


def find(system, component: str, indicator: str):
    for resource in resources(system, component):
        if resource.identity == indicator:
            return resource
    raise exception.NotFound(
        f"Indicator {indicator}@{component} was not found on this node; "
        f"known: {', '.join(_names(system)) or 'none'}.")


def _names(system) -> list[str]:
    return [f"{ind}@{comp}" for comp, inds in supported(system, None).items()
            for ind in inds]


def state_of(resource: Any) -> str:
    return _FROM_SUSHY.get(resource.indicator_led, indicator_states.UNKNOWN)


def check_settable(state: str) -> None:
    if state not in _TO_SUSHY:
        raise exception.InvalidParameterValue(
            err=f"Indicator state {state!r} cannot be set; use one of "
                f"{', '.join(SETTABLE)}.")


def set_state(resource: Any, state: str) -> None:
    check_settable(state)
    redfish_client.call("indicator change", resource.set_indicator_led,
                        _TO_SUSHY[state])
