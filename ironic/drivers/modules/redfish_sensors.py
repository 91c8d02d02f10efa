"""Sensor readings of a Redfish system's chassis, as plain JSON.

Grouped by kind (``Fan``, ``Temperature``, ``Power``), each sensor keyed
``<member id>@<chassis id>`` (power supplies ``<member id>:<power
id>@<chassis id>``), with the attributes sushy reads. sushy hands back
enumerations for units, contexts and states; they are turned into their
Redfish strings so the result can go on the wire (JSON, notifications).
"""

from __future__ import annotations

import enum
from typing import Any

import sushy

_FAN = ("identity", "max_reading_range", "min_reading_range", "reading",
        "reading_units", "serial_number", "physical_context")
_TEMPERATURE = ("identity", "max_reading_range_temp",
                "min_reading_range_temp", "reading_celsius",
                "physical_context", "sensor_number")
_POWER_SUPPLY = ("identity", "power_capacity_watts", "line_input_voltage",
                 "last_power_output_watts", "serial_number")


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


def _fields(resource: Any, names: tuple[str, ...]) -> dict[str, Any]:
    data = {name: _plain(getattr(resource, name, None)) for name in names}
    status = getattr(resource, "status", None)
    data["state"] = _plain(getattr(status, "state", None))
    data["health"] = _plain(getattr(status, "health", None))
    return data


def _thermal(chassis: Any, sensors: dict[str, dict]) -> None:
    thermal = chassis.thermal
    for fan in thermal.fans or []:
        sensors["Fan"][f"{fan.identity}@{chassis.identity}"] = \
            _fields(fan, _FAN)
    for temp in thermal.temperatures or []:
        sensors["Temperature"][f"{temp.identity}@{chassis.identity}"] = \
            _fields(temp, _TEMPERATURE)


def _power(chassis: Any, sensors: dict[str, dict]) -> None:
    power = chassis.power
    for supply in power.power_supplies or []:
        key = f"{supply.identity}:{power.identity}@{chassis.identity}"
        sensors["Power"][key] = _fields(supply, _POWER_SUPPLY)


def collect(system: Any) -> dict[str, dict[str, dict]]:
    """The readings of every chassis of ``system``; a chassis without
    thermal or power resources contributes what it has."""
    sensors: dict[str, dict[str, dict]] = {
        "Fan": {}, "Temperature": {}, "Power": {}}
    try:
        chassis_list = system.chassis or []
    except sushy.exceptions.SushyError:
        return sensors
    for chassis in chassis_list:
        for read in (_thermal, _power):
            try:
                read(chassis, sensors)
            except sushy.exceptions.SushyError:
                continue  # MissingAttributeError: no such resource
    return sensors
