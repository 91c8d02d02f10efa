"""``cpus``: the ``cpus`` property (logical CPU count) from the
inventory."""

from __future__ import annotations

import logging
from typing import Any

from ironic.drivers.modules.inspector.hooks import base
from ironic.task import Task

LOG = logging.getLogger(__name__)


class CPUsHook(base.InspectionHook):

    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        count: Any = (inventory.get("cpu") or {}).get("count")
        try:
            count = int(count)
        except (TypeError, ValueError):
            count = 0
        if count <= 0:
            LOG.warning("Node %s: the inventory has no CPU count",
                        task.node.uuid)
            return
        base.set_properties(task, cpus=count)
        task.node.save()
