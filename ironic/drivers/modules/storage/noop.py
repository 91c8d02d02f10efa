"""The ``noop`` storage interface: the node boots from its local disk."""

from __future__ import annotations

from ironic.drivers import base
from ironic.task import Task


class NoopStorage(base.StorageInterface):

    def get_properties(self) -> dict[str, str]:
        return {}

    def validate(self, task: Task) -> None:
        return None

    def attach_volumes(self, task: Task) -> None:
        return None

    def detach_volumes(self, task: Task) -> None:
        return None

    def should_write_image(self, task: Task) -> bool:
        return True
