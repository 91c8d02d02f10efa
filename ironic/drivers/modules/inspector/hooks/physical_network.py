"""``physical-network``: the ``physical_network`` of ports from the IP
address their interface had during inspection, mapped by
``[inspector]physical_network_cidr_map`` ("CIDR:physnet,...")."""

from __future__ import annotations

import ipaddress
import logging
from typing import Any

from ironic.common import exception, utils
from ironic.conf import CONF
from ironic.drivers.modules.inspector.hooks import base
from ironic.objects.port import Port
from ironic.task import Task

LOG = logging.getLogger(__name__)


def cidr_map() -> list[tuple[Any, str]]:
    mapping = []
    for item in CONF.inspector.physical_network_cidr_map:
        cidr, sep, physnet = item.rpartition(":")
        try:
            if not sep or not physnet:
                raise ValueError(item)
            mapping.append((ipaddress.ip_network(cidr, strict=False),
                            physnet))
        except ValueError as e:
            raise exception.HardwareInspectionFailure(
                error=f"invalid [inspector]physical_network_cidr_map entry "
                      f"{item!r}: expected CIDR:physical_network") from e
    return mapping


def physnet_for(iface: dict, mapping: list[tuple[Any, str]]) -> str | None:
    for key in ("ipv4_address", "ipv6_address"):
        value = iface.get(key)
        ip = utils.parse_ip(value) if value else None
        if ip is None:
            continue
        for network, physnet in mapping:
            if ip.version == network.version and ip in network:
                return physnet
    return None


class PhysicalNetworkHook(base.InspectionHook):

    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        mapping = cidr_map()
        if not mapping:
            return
        by_mac = {(i.get("mac_address") or "").lower(): i
                  for i in inventory.get("interfaces") or ()}
        for port in Port.list_for_node(task.node.id):
            iface = by_mac.get(port.address)
            physnet = physnet_for(iface, mapping) if iface else None
            if physnet and physnet != port.physical_network:
                port.physical_network = physnet
                port.save()
                LOG.info("Node %s: port %s is on physical network %s",
                         task.node.uuid, port.address, physnet)
