"""The ``redfish`` firmware interface: versions and SimpleUpdate.

Components are ``bios`` (the system's ``BiosVersion``) and ``bmc`` (the
firmware version of the manager of the system). ``update`` asks the
UpdateService to fetch each image (``SimpleUpdate`` with the system or the
manager as target), follows the BMC's task until it ends, reboots a
powered-on node whose version did not change yet (firmware usually applies
at boot), and records the versions: ``GET /v1/nodes/{node}/firmware``
shows the first version seen, the current one and the last one flashed.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import sushy

from ironic.common import exception, states
from ironic.drivers import base
from ironic.drivers.modules import redfish_client
from ironic.drivers.modules.redfish_client import system_of
from ironic.objects import node_settings
from ironic.task import Task

LOG = logging.getLogger(__name__)

BIOS = "bios"
BMC = "bmc"
COMPONENTS = (BIOS, BMC)
#: The longest a BMC task may run before the update step fails (seconds).
TASK_TIMEOUT = 1800

_ARGS = {"settings": {
    "description": "The updates: a list of {\"component\": \"bios\" or "
                   "\"bmc\", \"url\": <image URL the BMC downloads>}.",
    "required": True}}

_FAILED_TASK_STATES = {"exception", "killed", "cancelled", "interrupted"}


def parse_settings(settings: Any) -> list[dict]:
    ok = isinstance(settings, list) and settings and all(
        isinstance(s, dict) and s.get("component") in COMPONENTS
        and isinstance(s.get("url"), str) and s["url"]
        for s in settings)
    if not ok:
        raise exception.InvalidParameterValue(
            err=f"Firmware updates must be a non-empty list of objects with "
                f"'component' ({', '.join(COMPONENTS)}) and 'url'.")
    return settings


def _manager(system):
    try:
        managers = system.managers
    except sushy.exceptions.SushyError:
        return None
    return managers[0] if managers else None


def read_components(system) -> dict[str, dict]:
    """What the BMC reports now, per component: ``current_version`` and
    the identity it gives (``vendor``, ``model``, ``serial_number``; None
    where it says nothing). Unreported components are left out."""
    system.refresh(force=True)
    found = {}
    if system.bios_version:
        # Redfish names no maker or model for the BIOS itself.
        found[BIOS] = {"current_version": system.bios_version}
    manager = _manager(system)
    if manager is not None and manager.firmware_version:
        raw = getattr(manager, "json", None) or {}
        found[BMC] = {"current_version": manager.firmware_version,
                      "vendor": raw.get("Manufacturer"),
                      "model": manager.model,
                      "serial_number": raw.get("SerialNumber")}
    return found


def read_versions(system) -> dict[str, str]:
    """The versions the BMC reports now (components it does not report are
    left out)."""
    return {name: found["current_version"]
            for name, found in read_components(system).items()}


def _target(system, component: str) -> str:
    if component == BIOS:
        return system.path
    manager = _manager(system)
    if manager is None:
        raise exception.InvalidParameterValue(
            err="The BMC reports no manager to update.")
    return manager.path


def _wait(task: Task, monitor, what: str) -> None:
    deadline = time.monotonic() + TASK_TIMEOUT
    while monitor.check_is_processing:
        if time.monotonic() >= deadline:
            raise exception.IronicException(
                f"The BMC's {what} task did not end in {TASK_TIMEOUT}s.")
        if task.conductor.sleep(max(monitor.sleep_for or 1, 1)):
            raise exception.IronicException(
                f"The conductor stopped while the BMC ran the {what} task.")
    bmc_task = monitor.get_task()
    state = str(getattr(bmc_task.task_state, "value",
                        bmc_task.task_state)).lower()
    if state in _FAILED_TASK_STATES:
        messages = "; ".join(m.message or ""
                             for m in bmc_task.messages or [])
        raise exception.IronicException(
            f"The BMC's {what} task ended as {state}: {messages}")


def _start_update(client, system, item: dict) -> Any:
    """The BMC's task monitor of a SimpleUpdate of one component."""
    service = client.get_update_service()
    return service.simple_update(
        item["url"], targets=[_target(system, item["component"])])


class RedfishFirmware(base.FirmwareInterface):
    """Firmware versions and updates through the Redfish UpdateService."""

    def get_properties(self) -> dict[str, str]:
        return {}

    def validate(self, task: Task) -> None:
        redfish_client.parse_driver_info(task.node.driver_info or {})

    @base.clean_step(priority=0, argsinfo=_ARGS, requires_ramdisk=False)
    @base.service_step(priority=0, argsinfo=_ARGS, requires_ramdisk=False)
    def update(self, task: Task, settings: list[dict]) -> None:
        updates = parse_settings(settings)
        system = system_of(task)
        client = redfish_client.SESSIONS.get(
            redfish_client.parse_driver_info(task.node.driver_info or {}))
        before = read_versions(system)
        for item in updates:
            component = item["component"]
            what = f"{component} update from {item['url']}"
            monitor = redfish_client.call(what, _start_update, client,
                                          system, item)
            _wait(task, monitor, what)
            LOG.info("Node %s: %s done", task.node.uuid, what)
        self._settle(task, system, before, updates)

    def _settle(self, task: Task, system, before: dict[str, str],
                updates: list[dict]) -> None:
        names = {u["component"] for u in updates}
        now = read_components(system)
        if any(now.get(n, {}).get("current_version") == before.get(n)
               for n in names) and task.node.power_state == states.POWER_ON:
            driver = getattr(task, "driver", None)
            if driver is not None and driver.power is not None:
                driver.power.reboot(task)
            now = read_components(system)
        node_settings.record_firmware(task.node.id, now, flashed=names)

    def cache_firmware_components(self, task: Task) -> None:
        node_settings.record_firmware(task.node.id,
                                      read_components(system_of(task)))
