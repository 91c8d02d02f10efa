"""The ``redfish`` inspect interface: out-of-band inspection with sushy.

Reads CPUs, architecture, memory and the largest disk from the BMC into
the node's properties, the boot mode into its ``boot_mode`` capability
(unless one is set), and creates a port for every NIC MAC
the system reports that no port has yet.

It also records an inventory (``GET /v1/nodes/{node}/inventory``) in the
shape the agent's inventory has, as far as Redfish tells: ``cpu``
(``count``, ``architecture``, ``model_name``, ``frequency``), ``memory``
(``physical_mb``), ``disks`` (``name``, ``size`` in bytes), ``interfaces``
(``mac_address``, ``name``), ``system_vendor`` (``product_name``,
``serial_number``, ``manufacturer``) and ``boot`` (``current_boot_mode``),
with empty plugin data; the inspection rules of the ``main`` phase then
run on it, as after in-band inspection.
"""

from __future__ import annotations

import logging
from typing import Any

import sushy

from ironic.common import boot_modes, exception, states, utils
from ironic.drivers import base
from ironic.drivers.modules import redfish_client
from ironic.drivers.modules.inspector.hooks import base as hooks_base
from ironic.drivers.modules.redfish_client import PROPERTIES, system_of
from ironic.inspection_rules import engine as rules
from ironic.objects import node_inventory
from ironic.objects.port import Port
from ironic.task import Task

LOG = logging.getLogger(__name__)

_ARCH = {sushy.PROCESSOR_ARCH_x86: "x86_64",
         sushy.PROCESSOR_ARCH_IA_64: "ia64",
         sushy.PROCESSOR_ARCH_ARM: "aarch64",
         sushy.PROCESSOR_ARCH_MIPS: "mips",
         sushy.PROCESSOR_ARCH_OEM: "oem"}
_GIB = 1024 ** 3
# What the agent reports as cpu/architecture, by Redfish instruction set.
_INSTRUCTION_SETS = {"x86": "i686", "x86-64": "x86_64", "IA-64": "ia64",
                     "ARM-A32": "arm", "ARM-A64": "aarch64",
                     "MIPS32": "mips", "MIPS64": "mips64"}


def _safe(what: str, read):
    """A value the BMC may not implement: None instead of an error."""
    try:
        return read()
    except (sushy.exceptions.SushyError, AttributeError, TypeError) as e:
        LOG.debug("The BMC does not report %s: %s", what, e)
        return None


def _largest_disk_bytes(system) -> int | None:
    sizes = [
        _safe("storage", lambda: system.storage.drives_max_size_bytes),
        _safe("simple storage",
              lambda: system.simple_storage.max_size_bytes),
    ]
    sizes = [s for s in sizes if s]
    return max(sizes) if sizes else None


def _macs(system) -> list[str]:
    members = _safe("ethernet interfaces",
                    lambda: system.ethernet_interfaces.get_members()) or []
    macs = []
    for nic in members:
        mac = (nic.mac_address or "").lower()
        if utils.is_valid_mac(mac):
            macs.append(utils.normalize_mac(mac))
    return macs


def _with_boot_mode(capabilities: Any, mode: str) -> Any:
    """The capabilities with the boot mode found, as the public service
    records it (``boot_mode:uefi``); one set by the operator is kept."""
    caps = hooks_base.parse_capabilities(capabilities)
    if "boot_mode" in caps:
        return capabilities
    caps["boot_mode"] = mode
    return ",".join(f"{k}:{v}" for k, v in caps.items())


class RedfishInspect(base.InspectInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(PROPERTIES)

    def validate(self, task: Task) -> None:
        redfish_client.parse_driver_info(task.node.driver_info or {})

    def inspect_hardware(self, task: Task) -> str:
        system = system_of(task)
        found = self._read(system)
        missing = [k for k in ("cpus", "memory_mb") if not found.get(k)]
        if missing:
            raise exception.HardwareInspectionFailure(
                error=f"the BMC reports no {' and no '.join(missing)} for "
                      f"system {system.identity}")
        mode = found.pop("boot_mode", None)
        properties = dict(task.node.properties or {})
        properties.update({k: v for k, v in found.items() if v is not None})
        if mode:
            properties["capabilities"] = _with_boot_mode(
                properties.get("capabilities"), mode)
        task.node.properties = properties
        self._create_ports(task, _macs(system))
        inventory = build_inventory(system, found, mode)
        plugin_data: dict = {}
        node_inventory.record(task.node.id, inventory, plugin_data)
        rules.apply_rules(task, inventory, plugin_data)
        return states.MANAGEABLE

    @staticmethod
    def _read(system) -> dict[str, Any]:
        summary = _safe("processors", lambda: system.processors.summary)
        count, arch = summary if summary else (None, None)
        memory = _safe("memory",
                       lambda: system.memory_summary.size_gib)
        disk = _largest_disk_bytes(system)
        mode = _safe("boot mode", lambda: system.boot.mode)
        found: dict[str, Any] = {
            "cpus": count,
            "cpu_arch": _ARCH.get(arch),
            "memory_mb": int(memory * 1024) if memory else None,
            # Leave a GiB for the partition table and alignment.
            "local_gb": max(0, disk // _GIB - 1) if disk else None,
        }
        if mode:
            found["boot_mode"] = (boot_modes.UEFI if mode ==
                                  sushy.BOOT_SOURCE_MODE_UEFI
                                  else boot_modes.LEGACY_BIOS)
        return found

    @staticmethod
    def _create_ports(task: Task, macs: list[str]) -> None:
        for mac in macs:
            try:
                existing = Port.get_by_address(mac)
            except exception.PortNotFound:
                Port(address=mac, node_id=task.node.id,
                     pxe_enabled=True).create()
                continue
            if existing.node_id != task.node.id:
                LOG.warning("Inspection of node %s found MAC %s, which "
                            "already belongs to another node's port; not "
                            "creating a port for it.", task.node.uuid, mac)


def _value(member: Any) -> Any:
    return getattr(member, "value", member)


def _cpu(system, count: int | None) -> dict:
    cpu: dict[str, Any] = {"count": count or 0, "architecture": ""}
    members = _safe("processors",
                    lambda: system.processors.get_members()) or []
    if members:
        first = members[0]
        if first.model:
            cpu["model_name"] = str(first.model)
        if first.max_speed_mhz is not None:
            cpu["frequency"] = first.max_speed_mhz
        cpu["architecture"] = _INSTRUCTION_SETS.get(
            _value(first.instruction_set), "")
    return cpu


def _disks(system) -> list[dict]:
    disks = []
    storage = _safe("storage", lambda: system.storage.get_members()) or []
    for member in storage:
        for drive in _safe("drives", lambda m=member: m.drives) or []:
            disks.append({"name": drive.name, "size": drive.capacity_bytes})
    if disks:
        return disks
    simple = _safe("simple storage",
                   lambda: system.simple_storage.get_members()) or []
    for member in simple:
        for device in member.devices or []:
            disks.append({"name": device.name,
                          "size": device.capacity_bytes})
    return disks


def _interfaces(system) -> list[dict]:
    members = _safe("ethernet interfaces",
                    lambda: system.ethernet_interfaces.get_members()) or []
    found = []
    for nic in members:
        mac = (nic.mac_address or "").lower()
        if utils.is_valid_mac(mac):
            found.append({"mac_address": utils.normalize_mac(mac),
                          "name": nic.identity})
    return found


def build_inventory(system, found: dict, mode: str | None) -> dict:
    """The inventory of ``system`` (see the module documentation) from
    what ``RedfishInspect._read`` found and the BMC's resources."""
    inventory: dict[str, Any] = {"cpu": _cpu(system, found.get("cpus"))}
    if found.get("memory_mb"):
        inventory["memory"] = {"physical_mb": found["memory_mb"]}
    disks = _disks(system)
    if disks:
        inventory["disks"] = disks
    interfaces = _interfaces(system)
    if interfaces:
        inventory["interfaces"] = interfaces
    vendor = {key: str(value) for key, value in (
        ("product_name", system.name),
        ("serial_number", system.serial_number),
        ("manufacturer", system.manufacturer)) if value}
    if vendor:
        inventory["system_vendor"] = vendor
    if mode:
        inventory["boot"] = {"current_boot_mode": mode}
    return inventory
