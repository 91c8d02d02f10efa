"""``memory``: the ``memory_mb`` property from the inventory."""

from __future__ import annotations

import logging

from ironic.drivers.modules.inspector.hooks import base
from ironic.task import Task

LOG = logging.getLogger(__name__)


class MemoryHook(base.InspectionHook):

    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        memory_mb = (inventory.get("memory") or {}).get("physical_mb")
        if not isinstance(memory_mb, int) or memory_mb <= 0:
            LOG.warning("Node %s: the inventory has no physical memory "
                        "size", task.node.uuid)
            return
        base.set_properties(task, memory_mb=memory_mb)
        task.node.save()
