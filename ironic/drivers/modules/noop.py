"""The "no-*" interfaces: a hardware type says "not supported" with these.

They validate to "not supported" (so ``node validate`` reports the interface
as unavailable with a reason) and refuse every user-initiated action with
UnsupportedDriverExtension, a 400 at the API. They declare no steps.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ironic.common import exception
from ironic.drivers import base
from ironic.task import Task


class _Refuse:
    supported = False
    interface_type: ClassVar[str]

    def get_properties(self) -> dict[str, str]:
        return {}

    def _refuse(self, task: Task, *args: Any, **kwargs: Any) -> Any:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension=self.interface_type)

    validate = _refuse


class NoBIOS(_Refuse, base.BIOSInterface):
    apply_configuration = factory_reset = _Refuse._refuse

    def cache_bios_settings(self, task: Task) -> None:
        # Called internally (after power actions): nothing to cache.
        return None


class NoConsole(_Refuse, base.ConsoleInterface):
    start_console = stop_console = get_console = _Refuse._refuse


class NoFirmware(_Refuse, base.FirmwareInterface):
    update = _Refuse._refuse

    def cache_firmware_components(self, task: Task) -> None:
        return None


class NoInspect(_Refuse, base.InspectInterface):
    inspect_hardware = abort = _Refuse._refuse


class NoRAID(_Refuse, base.RAIDInterface):
    create_configuration = delete_configuration = _Refuse._refuse

    def validate_raid_config(self, task: Task, raid_config: dict) -> None:
        self._refuse(task)


class NoRescue(_Refuse, base.RescueInterface):
    rescue = unrescue = _Refuse._refuse


class NoVendor(_Refuse, base.VendorInterface):
    def validate(self, task: Task, method: str | None = None,
                 http_method: str | None = None, **kwargs: Any) -> None:
        self._refuse(task)

    def driver_validate(self, method: str, http_method: str | None = None,
                        **kwargs: Any) -> None:
        raise exception.UnsupportedDriverExtension(
            driver="(any)", extension=self.interface_type)
