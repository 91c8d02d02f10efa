"""``cpu-capabilities``: node capabilities from the CPU flags, as mapped
by ``[inspector]cpu_capabilities``."""

from __future__ import annotations

from ironic.conf import CONF
from ironic.drivers.modules.inspector.hooks import base
from ironic.task import Task


class CPUCapabilitiesHook(base.InspectionHook):

    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        flags = set((inventory.get("cpu") or {}).get("flags") or ())
        found = {cap: "true" for flag, cap in
                 CONF.inspector.cpu_capabilities.items() if flag in flags}
        if found:
            base.update_capabilities(task, found)
            task.node.save()
