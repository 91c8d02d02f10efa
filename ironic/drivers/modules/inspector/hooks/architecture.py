"""``architecture``: the ``cpu_arch`` property from the inventory."""

from __future__ import annotations

import logging

from ironic.drivers.modules.inspector.hooks import base
from ironic.task import Task

LOG = logging.getLogger(__name__)


class ArchitectureHook(base.InspectionHook):

    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        arch = (inventory.get("cpu") or {}).get("architecture")
        if not arch:
            LOG.warning("Node %s: the inventory has no CPU architecture",
                        task.node.uuid)
            return
        base.set_properties(task, cpu_arch=arch)
        task.node.save()
