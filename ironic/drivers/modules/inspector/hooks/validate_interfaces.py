"""``validate-interfaces``: which NICs of the inventory are usable.

Stores in plugin data ``all_interfaces`` (every NIC with a name and a valid
MAC, loopback excluded) and ``valid_interfaces`` (those
``[inspector]add_ports`` selects), both keyed by interface name, each NIC
with an added ``pxe_enabled``; and ``macs``, the MACs of the valid ones.
"""

from __future__ import annotations

import ipaddress
import logging
from typing import Any

from ironic.common import exception, utils
from ironic.conf import CONF
from ironic.drivers.modules.inspector.hooks import base
from ironic.task import Task

LOG = logging.getLogger(__name__)


def _mac(value: Any) -> str | None:
    """A MAC from a PXE hint: "aa:bb:..", "aa-bb-.." or "01-aa-bb-.."."""
    if not isinstance(value, str):
        return None
    value = value.strip().lower()
    if value.count("-") == 6 and value.startswith("01-"):
        value = value[3:]
    value = utils.normalize_mac(value)
    return value if utils.is_valid_mac(value) else None


def pxe_mac(inventory: dict, plugin_data: dict) -> str | None:
    """MAC of the interface the ramdisk was network-booted from, if known."""
    boot = inventory.get("boot") or {}
    return _mac(boot.get("pxe_interface")) or _mac(
        plugin_data.get("boot_interface"))


def _is_loopback(name: str, iface: dict) -> bool:
    if name == "lo":
        return True
    for key in ("ipv4_address", "ipv6_address"):
        try:
            if iface.get(key) and ipaddress.ip_address(
                    iface[key].split("%")[0]).is_loopback:
                return True
        except ValueError:
            continue
    return False


def all_interfaces(task: Task, inventory: dict,
                   plugin_data: dict) -> dict[str, dict]:
    pxe = pxe_mac(inventory, plugin_data)
    found: dict[str, dict] = {}
    for iface in inventory.get("interfaces") or ():
        name = iface.get("name")
        mac = iface.get("mac_address")
        if not name or not isinstance(mac, str) or \
                not utils.is_valid_mac(mac):
            LOG.debug("Node %s: ignoring interface %s with MAC %s",
                      task.node.uuid, name, mac)
            continue
        if _is_loopback(name, iface):
            continue
        mac = utils.normalize_mac(mac)
        found[name] = dict(iface, mac_address=mac,
                           pxe_enabled=(pxe is None or mac == pxe))
    return found


def _selected(iface: dict, mode: str, pxe_known: bool) -> bool:
    has_ip = bool(iface.get("ipv4_address") or iface.get("ipv6_address"))
    if mode == "all":
        return True
    if mode == "pxe" and pxe_known:
        return iface["pxe_enabled"]
    if mode in ("pxe", "active"):
        return has_ip
    return False  # disabled


class ValidateInterfacesHook(base.InspectionHook):

    def preprocess(self, task: Task, inventory: dict,
                   plugin_data: dict) -> None:
        found = all_interfaces(task, inventory, plugin_data)
        if not found:
            raise exception.HardwareInspectionFailure(
                error="no network interface with a valid MAC address in "
                      "the inventory")
        mode = CONF.inspector.add_ports
        pxe_known = pxe_mac(inventory, plugin_data) is not None
        if mode == "pxe" and not pxe_known:
            LOG.info("Node %s: the PXE interface is unknown; interfaces "
                     "with an IP address count as valid", task.node.uuid)
        valid = {n: i for n, i in found.items()
                 if _selected(i, mode, pxe_known)}
        if not valid and mode != "disabled":
            raise exception.HardwareInspectionFailure(
                error=f"no interface matches [inspector]add_ports={mode}: "
                      f"{', '.join(sorted(found))}")
        plugin_data["all_interfaces"] = found
        plugin_data["valid_interfaces"] = valid
        plugin_data["macs"] = sorted(i["mac_address"]
                                     for i in valid.values())

    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        return None
