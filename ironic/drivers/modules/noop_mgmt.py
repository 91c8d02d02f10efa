"""The ``noop`` management interface: boot devices are set by a human.

Used by ``manual-management``: the operator configures the boot order on
the machine itself (for example network boot first, then disk), so setting a
boot device succeeds without doing anything and reading it reports unknown.
"""

from __future__ import annotations

from ironic.common import boot_devices
from ironic.drivers import base
from ironic.task import Task


class NoopManagement(base.ManagementInterface):

    def get_properties(self) -> dict[str, str]:
        return {}

    def validate(self, task: Task) -> None:
        return None

    def get_supported_boot_devices(self, task: Task) -> list[str]:
        return [boot_devices.PXE, boot_devices.DISK]

    def set_boot_device(self, task: Task, device: str,
                        persistent: bool = False) -> None:
        return None

    def get_boot_device(self, task: Task) -> dict:
        return {"boot_device": None, "persistent": None}
