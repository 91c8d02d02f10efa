"""``local-link-connection``: the switch a port is cabled to, from the
LLDP frames the ramdisk captured on each interface.

IPA sends LLDP as a list of ``[tlv type, hex encoded value]`` per interface;
the chassis ID (type 1) becomes ``switch_id``, the port ID (type 2)
``port_id`` and the system name (type 5) ``switch_info``.
"""

from __future__ import annotations

import binascii
import logging
from typing import Any

from ironic.drivers.modules.inspector.hooks import base
from ironic.objects.port import Port
from ironic.task import Task

LOG = logging.getLogger(__name__)

_CHASSIS_ID, _PORT_ID, _SYSTEM_NAME = 1, 2, 5
# Chassis ID subtype 4 and port ID subtype 3 carry a MAC address.
_MAC_SUBTYPE = {_CHASSIS_ID: 4, _PORT_ID: 3}
_FIELD = {_CHASSIS_ID: "switch_id", _PORT_ID: "port_id",
          _SYSTEM_NAME: "switch_info"}


def _text(data: bytes) -> str | None:
    text = data.decode("utf-8", errors="replace").strip("\x00").strip()
    return text or None


def parse_tlv(tlv_type: int, data: bytes) -> str | None:
    """The value of one TLV as local_link_connection wants it."""
    if tlv_type == _SYSTEM_NAME:
        return _text(data)
    if len(data) < 2:
        return None
    subtype, value = data[0], data[1:]
    if subtype == _MAC_SUBTYPE[tlv_type] and len(value) == 6:
        return ":".join(f"{b:02x}" for b in value)
    return _text(value)


def tlvs_of(tlvs: Any) -> list[tuple[int, bytes]]:
    """(type, value) of each well-formed TLV of IPA's raw LLDP list."""
    out = []
    for item in tlvs or ():
        try:
            out.append((int(item[0]), binascii.unhexlify(item[1])))
        except (TypeError, ValueError, IndexError, binascii.Error):
            continue
    return out


def parse_lldp(tlvs: Any, names: dict[int, str] | None = None
               ) -> dict[str, str]:
    """Fields from IPA's raw LLDP list, named by ``names`` (TLV type to
    field; by default the local_link_connection fields). The first TLV of
    a type wins."""
    names = _FIELD if names is None else names
    found: dict[str, str] = {}
    for tlv_type, data in tlvs_of(tlvs):
        field = names.get(tlv_type)
        if field is None or field in found:
            continue
        if tlv_type in _MAC_SUBTYPE:
            value = parse_tlv(tlv_type, data)
        else:
            value = _text(data)
        if value:
            found[field] = value
    return found


class LocalLinkConnectionHook(base.InspectionHook):

    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        by_mac = {}
        for iface in inventory.get("interfaces") or ():
            mac = (iface.get("mac_address") or "").lower()
            link: dict[str, str] | None = parse_lldp(iface.get("lldp"))
            if mac and link:
                by_mac[mac] = link
        if not by_mac:
            return
        for port in Port.list_for_node(task.node.id):
            link = by_mac.get(port.address)
            if link is None:
                continue
            merged = dict(port.local_link_connection or {}, **link)
            if merged != port.local_link_connection:
                port.local_link_connection = merged
                port.save()
                LOG.info("Node %s: port %s is connected to %s",
                         task.node.uuid, port.address, merged)
