"""``ports``: create ports for the valid interfaces and drop stale ones.

``[inspector]add_ports`` (via ``validate-interfaces``) chooses which MACs
become ports; ``[inspector]keep_ports`` which existing ports survive;
``[inspector]update_pxe_enabled`` whether existing ports follow the
inventory's PXE interface.
"""

from __future__ import annotations

import logging

from ironic.common import exception
from ironic.conf import CONF
from ironic.drivers.modules.inspector.hooks import base
from ironic.objects.port import Port
from ironic.task import Task

LOG = logging.getLogger(__name__)


def _add(task: Task, iface: dict, existing: dict[str, Port]) -> bool:
    mac = iface["mac_address"]
    port = existing.get(mac)
    if port is not None:
        if CONF.inspector.update_pxe_enabled and \
                port.pxe_enabled != iface["pxe_enabled"]:
            port.pxe_enabled = iface["pxe_enabled"]
            port.save()
        return False
    try:
        owner = Port.get_by_address(mac)
    except exception.PortNotFound:
        owner = None
    if owner is not None:
        LOG.warning("Node %s: MAC %s already belongs to a port of another "
                    "node; no port created for it", task.node.uuid, mac)
        return False
    extra = {"client-id": iface["client_id"]} if iface.get("client_id") \
        else {}
    Port(address=mac, node_id=task.node.id, pxe_enabled=iface["pxe_enabled"],
         extra=extra).create()
    LOG.info("Node %s: port created for MAC %s", task.node.uuid, mac)
    return True


class PortsHook(base.InspectionHook):
    dependencies = ["validate-interfaces"]

    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        existing = {row.address: Port.from_db(row) for row in task.ports}
        valid = plugin_data.get("valid_interfaces") or {}
        if CONF.inspector.add_ports != "disabled":
            for iface in valid.values():
                iface["is_added"] = _add(task, iface, existing)
        keep = CONF.inspector.keep_ports
        if keep != "all":
            source = plugin_data.get("all_interfaces") if keep == "present" \
                else valid
            wanted = {i["mac_address"] for i in (source or {}).values()}
            for mac, port in existing.items():
                if mac not in wanted:
                    LOG.info("Node %s: deleting port %s (MAC %s), not kept "
                             "by [inspector]keep_ports=%s", task.node.uuid,
                             port.uuid, mac, keep)
                    port.destroy()
