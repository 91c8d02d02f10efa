"""The ``redfish`` BIOS interface: read, change and reset BIOS attributes.

Settings are checked against what the BMC reports before anything is
sent: unknown names, read-only attributes and values outside an
enumeration (when the BMC publishes an attribute registry) are refused
with the offending names. Changes go to the BIOS settings resource
(``@Redfish.Settings``); a BMC that applies them only at the next boot gets
the node rebooted when it is powered on, and the settings still pending
are kept in ``driver_internal_info/redfish_bios_pending`` until a later
read (``cache_bios_settings``) shows them applied. After every step the node's cached settings
(``GET /v1/nodes/{node}/bios``) are refreshed from the BMC.
"""

from __future__ import annotations

import logging
from typing import Any

import sushy

from ironic.common import exception, states
from ironic.drivers import base
from ironic.drivers.modules import redfish_client
from ironic.drivers.modules.redfish_client import system_of
from ironic.objects import node_settings
from ironic.task import Task

LOG = logging.getLogger(__name__)

_SETTINGS_ARG = {"settings": {
    "description": "The BIOS settings to apply: a list of "
                   "{\"name\": <attribute>, \"value\": <value>}.",
    "required": True}}

PENDING_KEY = "redfish_bios_pending"


def bios_of(system):
    try:
        return system.bios
    except (sushy.exceptions.MissingAttributeError,
            sushy.exceptions.SushyError) as e:
        raise exception.IronicException(
            f"The BMC does not expose BIOS settings: {e}") from e


def registry_of(bios) -> dict[str, Any]:
    """Attribute name to registry entry; empty when there is none."""
    try:
        registry = bios.get_attribute_registry()
    except sushy.exceptions.SushyError as e:
        LOG.debug("No BIOS attribute registry: %s", e)
        return {}
    if registry is None or registry.registry_entries is None:
        return {}
    return {a.name: a for a in registry.registry_entries.attributes or []}


def _allowed(entry) -> list[str]:
    return [name for v in entry.allowable_values or []
            if isinstance(v, dict)
            and (name := v.get("ValueName")) is not None]


def parse_settings(settings: Any) -> dict[str, Any]:
    if not isinstance(settings, list) or not all(
            isinstance(s, dict) and "name" in s and "value" in s
            for s in settings):
        raise exception.InvalidParameterValue(
            err="BIOS settings must be a list of objects with the keys "
                "name and value.")
    return {s["name"]: s["value"] for s in settings}


def check_settings(wanted: dict[str, Any], current: dict[str, Any],
                   registry: dict[str, Any]) -> None:
    """Refuse names the BMC does not know, read-only names and values
    outside an attribute's enumeration, naming every offender."""
    unknown = sorted(n for n in wanted if n not in current)
    if unknown:
        raise exception.InvalidParameterValue(
            err=f"Unknown BIOS attributes: {', '.join(unknown)}.")
    read_only = sorted(n for n in wanted
                       if n in registry and registry[n].read_only)
    if read_only:
        raise exception.InvalidParameterValue(
            err=f"Read-only BIOS attributes: {', '.join(read_only)}.")
    bad = [problem for name, value in wanted.items()
           if (problem := _value_problem(name, value, registry.get(name)))]
    if bad:
        raise exception.InvalidParameterValue(
            err=f"Invalid BIOS values: {'; '.join(bad)}.")


def _value_problem(name: str, value: Any, entry) -> str | None:
    """Why the registry refuses ``value`` for ``name``; None when it
    does not (or says nothing about it)."""
    if entry is None:
        return None
    kind = entry.attribute_type
    if kind == "Enumeration":
        allowed = _allowed(entry)
        if allowed and value not in allowed:
            return f"{name}={value!r} (allowed: {', '.join(allowed)})"
    elif kind == "Integer":
        try:
            number = int(value)
        except (TypeError, ValueError):
            return f"{name}={value!r} (an integer is expected)"
        low, high = entry.lower_bound, entry.upper_bound
        if (low is not None and number < low) or \
                (high is not None and number > high):
            return f"{name}={value!r} (allowed: {low} to {high})"
    elif kind in ("String", "Password") and isinstance(value, str):
        short, long_ = entry.min_length, entry.max_length
        if (short is not None and len(value) < short) or \
                (long_ is not None and len(value) > long_):
            return (f"{name} is {len(value)} characters long (allowed: "
                    f"{short or 0} to {long_ if long_ is not None else 'any'})")
    return None


def _same(a: Any, b: Any) -> bool:
    """Equal as the BMC would store them (10 and "10"; True and "true")."""
    if isinstance(a, bool) or isinstance(b, bool):
        return str(a).lower() == str(b).lower()
    return a == b or str(a) == str(b)


def _set_pending(task: Task, pending: dict[str, Any]) -> None:
    info = dict(task.node.driver_internal_info or {})
    if pending:
        info[PENDING_KEY] = dict(pending)
    else:
        info.pop(PENDING_KEY, None)
    task.node.driver_internal_info = info


class RedfishBIOS(base.BIOSInterface):
    """BIOS attributes through the Redfish Bios resource."""

    def get_properties(self) -> dict[str, str]:
        return {}

    def validate(self, task: Task) -> None:
        redfish_client.parse_driver_info(task.node.driver_info or {})

    @base.clean_step(priority=0, argsinfo=_SETTINGS_ARG,
                     requires_ramdisk=False)
    @base.deploy_step(priority=0, argsinfo=_SETTINGS_ARG,
                      requires_ramdisk=False)
    @base.service_step(priority=0, argsinfo=_SETTINGS_ARG,
                       requires_ramdisk=False)
    def apply_configuration(self, task: Task, settings: list[dict]) -> None:
        wanted = parse_settings(settings)
        system = system_of(task)
        bios = bios_of(system)
        current = dict(bios.attributes or {})
        check_settings(wanted, current, registry_of(bios))
        changes = {n: v for n, v in wanted.items()
                   if not _same(current.get(n), v)}
        if changes:
            redfish_client.call("BIOS settings change", bios.set_attributes,
                                changes)
            self._settle(task, system, changes)
        LOG.info("Node %s: BIOS settings %s applied (%d changed)",
                 task.node.uuid, sorted(wanted), len(changes))
        self.cache_bios_settings(task)

    @base.clean_step(priority=0, requires_ramdisk=False)
    @base.deploy_step(priority=0, requires_ramdisk=False)
    @base.service_step(priority=0, requires_ramdisk=False)
    def factory_reset(self, task: Task) -> None:
        system = system_of(task)
        redfish_client.call("BIOS factory reset", bios_of(system).reset_bios)
        if task.node.power_state == states.POWER_ON:
            self._reboot(task)
        LOG.info("Node %s: BIOS reset to factory defaults", task.node.uuid)
        self.cache_bios_settings(task)

    def _settle(self, task: Task, system, changes: dict[str, Any]) -> None:
        """Reboot when the BMC only stages the changes; record what is
        still pending."""
        pending = self._pending(system, changes)
        if pending and task.node.power_state == states.POWER_ON:
            self._reboot(task)
            pending = self._pending(system, changes)
        _set_pending(task, pending)
        if pending:
            LOG.info("Node %s: BIOS settings %s apply at the next boot",
                     task.node.uuid, ", ".join(sorted(pending)))

    @staticmethod
    def _pending(system, changes: dict[str, Any]) -> dict[str, Any]:
        system.refresh(force=True)
        now = bios_of(system).attributes or {}
        return {n: v for n, v in changes.items()
                if not _same(now.get(n), v)}

    @staticmethod
    def _reboot(task: Task) -> None:
        driver = getattr(task, "driver", None)
        if driver is not None and driver.power is not None:
            driver.power.reboot(task)

    def cache_bios_settings(self, task: Task) -> None:
        system = system_of(task)
        bios = bios_of(system)
        registry = registry_of(bios)
        attributes = dict(bios.attributes or {})
        rows = [dict(self._registry_fields(registry.get(name)),
                     name=name, value=value)
                for name, value in sorted(attributes.items())]
        node_settings.replace_bios_settings(task.node.id, rows)
        pending = (task.node.driver_internal_info or {}).get(PENDING_KEY)
        if pending:
            _set_pending(task, {n: v for n, v in pending.items()
                                if not _same(attributes.get(n), v)})

    @staticmethod
    def _registry_fields(entry) -> dict[str, Any]:
        if entry is None:
            return {}
        return {"attribute_type": entry.attribute_type,
                "allowable_values": _allowed(entry),
                "lower_bound": entry.lower_bound,
                "upper_bound": entry.upper_bound,
                "min_length": entry.min_length,
                "max_length": entry.max_length,
                "read_only": entry.read_only,
                "reset_required": entry.reset_required,
                "unique": entry.unique}
