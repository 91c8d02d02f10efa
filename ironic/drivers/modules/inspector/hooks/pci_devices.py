"""``pci-devices``: node capabilities counting aliased PCI devices.

Each ``[inspector]pci_device_alias`` value is a JSON object
``{"vendor_id", "product_id", "name"}``; a node with N such devices gets
the capability ``name:N``. Aliases that do not parse are logged and
ignored.
"""

from __future__ import annotations

import collections
import json
import logging

from ironic.conf import CONF
from ironic.drivers.modules.inspector.hooks import base, pci_info
from ironic.task import Task

LOG = logging.getLogger(__name__)

ALIAS_KEYS = {"vendor_id", "product_id", "name"}


def aliases() -> dict[tuple[str, str], str]:
    """{(vendor_id, product_id): capability name} from the option."""
    found = {}
    for raw in CONF.inspector.pci_device_alias:
        try:
            alias = json.loads(raw)
        except ValueError as e:
            LOG.error("[inspector]pci_device_alias %r is not JSON: %s",
                      raw, e)
            continue
        if not isinstance(alias, dict) or set(alias) != ALIAS_KEYS:
            LOG.error("[inspector]pci_device_alias %r must have exactly "
                      "the keys vendor_id, product_id and name", raw)
            continue
        key = (str(alias["vendor_id"]).lower(),
               str(alias["product_id"]).lower())
        found[key] = str(alias["name"])
    return found


class PciDevicesHook(base.InspectionHook):

    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        names = aliases()
        devices = pci_info.devices({}, plugin_data)
        if not devices:
            if names:
                LOG.warning("Node %s: no PCI devices in the inspection "
                            "data (is the pci-devices collector enabled?)",
                            task.node.uuid)
            return
        counts = collections.Counter(
            names[key] for dev in devices
            if (key := (dev["vendor_id"], dev["product_id"])) in names)
        if not counts:
            return
        LOG.info("Node %s: PCI devices found: %s", task.node.uuid,
                 dict(counts))
        base.update_capabilities(
            task, {name: str(n) for name, n in counts.items()})
        task.node.save()
