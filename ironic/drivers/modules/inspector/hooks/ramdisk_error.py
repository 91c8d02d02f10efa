"""``ramdisk-error``: fail inspection when the ramdisk reports an error."""

from __future__ import annotations

from ironic.common import exception
from ironic.drivers.modules.inspector.hooks import base
from ironic.task import Task


class RamdiskErrorHook(base.InspectionHook):

    def preprocess(self, task: Task, inventory: dict,
                   plugin_data: dict) -> None:
        error = plugin_data.get("error")
        if error:
            raise exception.HardwareInspectionFailure(
                error=f"the ramdisk reported: {error}")

    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        return None
