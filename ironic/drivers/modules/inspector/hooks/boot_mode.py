"""``boot-mode``: the ``boot_mode`` capability from the mode the ramdisk
was booted in."""

from __future__ import annotations

from typing import Any

from ironic.drivers.modules.inspector.hooks import base
from ironic.task import Task

_MODES: dict[Any, str] = {"bios": "bios", "uefi": "uefi"}


class BootModeHook(base.InspectionHook):

    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        mode = _MODES.get((inventory.get("boot") or {}).get(
            "current_boot_mode"))
        if mode:
            base.update_capabilities(task, {"boot_mode": mode})
            task.node.save()
