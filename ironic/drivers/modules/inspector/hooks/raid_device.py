"""``raid-device``: the root device hint of a freshly built RAID volume.

Run inspection before and after creating the root RAID volume: the second
run compares the disks' serial numbers with the previous inventory and,
when exactly one disk is new, sets ``properties.root_device`` to
``{"serial": <it>}``. A node that has root device hints already is left
alone.
"""

from __future__ import annotations

import logging

from ironic.common import exception
from ironic.drivers.modules.inspector.hooks import base
from ironic.objects import node_records
from ironic.task import Task

LOG = logging.getLogger(__name__)


def serials(inventory: dict | None) -> list[str]:
    disks = (inventory or {}).get("disks")
    return [d["serial"] for d in disks if isinstance(d, dict)
            and d.get("serial")] if isinstance(disks, list) else []


def _previous_inventory(node_id: int) -> dict | None:
    try:
        record = node_records.inventory(node_id)
    except exception.NotFound:
        return None
    return record.inventory_data


class RaidDeviceHook(base.InspectionHook):

    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        node = task.node
        if (node.properties or {}).get("root_device"):
            LOG.info("Node %s has root device hints already", node.uuid)
            return
        current = serials(inventory)
        if not current:
            LOG.warning("Node %s: no disk serial numbers in the "
                        "inventory", node.uuid)
            return
        previous = _previous_inventory(node.id)
        if previous is None:
            LOG.info("Node %s: first inspection; the next one will find "
                     "the new RAID device", node.uuid)
            return
        new = [s for s in current if s not in set(serials(previous))]
        if len(new) != 1:
            LOG.warning("Node %s: %d new disks since the last inspection; "
                        "the root device stays unknown", node.uuid,
                        len(new))
            return
        base.set_properties(task, root_device={"serial": new[0]})
        node.save()
        LOG.info("Node %s: root device is the new disk %s", node.uuid,
                 new[0])
