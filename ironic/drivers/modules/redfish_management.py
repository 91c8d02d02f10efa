"""The ``redfish`` management interface (sushy)."""

from __future__ import annotations

import sushy

from ironic.common import boot_devices, boot_modes, exception
from ironic.drivers import base
from ironic.drivers.modules import (
    redfish_client,
    redfish_indicators,
    redfish_sensors,
    redfish_vmedia,
)
from ironic.drivers.modules.redfish_client import system_of
from ironic.metrics import bmc_call
from ironic.task import Task

_TO_SUSHY = {boot_devices.PXE: sushy.BOOT_SOURCE_TARGET_PXE,
             boot_devices.DISK: sushy.BOOT_SOURCE_TARGET_HDD,
             boot_devices.CDROM: sushy.BOOT_SOURCE_TARGET_CD,
             boot_devices.BIOS: sushy.BOOT_SOURCE_TARGET_BIOS_SETUP,
             boot_devices.UEFIHTTP: sushy.BOOT_SOURCE_TARGET_UEFI_HTTP}
_FROM_SUSHY = {v: k for k, v in _TO_SUSHY.items()}
_MODES = {boot_modes.UEFI: sushy.BOOT_SOURCE_MODE_UEFI,
          boot_modes.LEGACY_BIOS: sushy.BOOT_SOURCE_MODE_BIOS}


class RedfishManagement(redfish_client.DriverInfoChecks,
                        base.ManagementInterface):
    def get_supported_boot_devices(self, task: Task) -> list[str]:
        return list(_TO_SUSHY)

    @bmc_call
    def set_boot_device(self, task: Task, device: str,
                        persistent: bool = False) -> None:
        if device not in _TO_SUSHY:
            raise exception.InvalidParameterValue(
                err=f"Invalid boot device {device} specified. Supported: "
                    f"{', '.join(_TO_SUSHY)}")
        system = system_of(task)
        enabled = (sushy.BOOT_SOURCE_ENABLED_CONTINUOUS if persistent
                   else sushy.BOOT_SOURCE_ENABLED_ONCE)
        redfish_client.call("boot device change",
                            system.set_system_boot_options,
                            _TO_SUSHY[device], enabled=enabled)

    @bmc_call
    def get_boot_device(self, task: Task) -> dict:
        boot = system_of(task).boot
        return {"boot_device": _FROM_SUSHY.get(boot.target),
                "persistent": boot.enabled ==
                sushy.BOOT_SOURCE_ENABLED_CONTINUOUS}

    def get_supported_boot_modes(self, task: Task) -> list[str]:
        return list(_MODES)

    @bmc_call
    def get_boot_mode(self, task: Task) -> str | None:
        mode = system_of(task).boot.mode
        return {v: k for k, v in _MODES.items()}.get(mode)

    @bmc_call
    def set_boot_mode(self, task: Task, mode: str) -> None:
        if mode not in _MODES:
            raise exception.InvalidParameterValue(
                err=f"Unsupported boot mode {mode}; supported: "
                    f"{', '.join(_MODES)}")
        system = system_of(task)
        redfish_client.call("boot mode change", system.set_system_boot_options,
                            mode=_MODES[mode])

    @bmc_call
    def get_secure_boot_state(self, task: Task) -> bool:
        system = system_of(task)
        try:
            return bool(system.secure_boot.enabled)
        except (sushy.exceptions.MissingAttributeError,
                sushy.exceptions.SushyError) as e:
            raise exception.IronicException(
                f"The BMC does not report secure boot: {e}") from e

    @bmc_call
    def set_secure_boot_state(self, task: Task, state: bool) -> None:
        system = system_of(task)
        redfish_client.call("secure boot change",
                            system.secure_boot.set_enabled, bool(state))

    @bmc_call
    def inject_nmi(self, task: Task) -> None:
        redfish_client.call("NMI", system_of(task).reset_system,
                            sushy.RESET_NMI)

    @bmc_call
    def attach_virtual_media(self, task: Task, device_type: str,
                             image_url: str) -> None:
        redfish_vmedia.insert(system_of(task), device_type, image_url)

    @bmc_call
    def detach_virtual_media(self, task: Task,
                             device_types: list[str] | None = None) -> None:
        redfish_vmedia.eject(system_of(task), device_types)

    @bmc_call
    def get_virtual_media(self, task: Task) -> list[dict]:
        return redfish_vmedia.describe(system_of(task))

    def get_supported_indicators(self, task: Task,
                                 component: str | None = None
                                 ) -> dict[str, dict[str, list[str]]]:
        return redfish_indicators.supported(system_of(task), component)

    @bmc_call
    def get_indicator_state(self, task: Task, component: str,
                            indicator: str) -> str:
        resource = redfish_indicators.find(system_of(task), component,
                                           indicator)
        return redfish_indicators.state_of(resource)

    @bmc_call
    def set_indicator_state(self, task: Task, component: str,
                            indicator: str, state: str) -> None:
        redfish_indicators.check_settable(state)
        resource = redfish_indicators.find(system_of(task), component,
                                           indicator)
        redfish_indicators.set_state(resource, state)

    @bmc_call
    def get_sensors_data(self, task: Task) -> dict:
        """Chassis fans, temperatures and power supplies, plain JSON."""
        return redfish_sensors.collect(system_of(task))
