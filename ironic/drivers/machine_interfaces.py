"""The interfaces that act on the machine itself.

Power and management (boot device, virtual media, indicators) talk to the
BMC; the console is the machine's serial or graphical console; BIOS,
firmware and RAID change how the hardware is configured.
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar

from ironic.common import exception, raid, states
from ironic.drivers.interface import BaseInterface
from ironic.task import Task


class PowerInterface(BaseInterface):
    interface_type = "power"

    @abc.abstractmethod
    def get_power_state(self, task: Task) -> str:
        """The node's power state, as ``ironic.common.states`` names it."""

    @abc.abstractmethod
    def set_power_state(self, task: Task, power_state: str,
                        timeout: int | None = None) -> None:
        """Bring the node to ``power_state`` and return when it is there."""

    @abc.abstractmethod
    def reboot(self, task: Task, timeout: int | None = None) -> None:
        """Power cycle the node (it ends powered on)."""

    def get_supported_power_states(self, task: Task) -> list[str]:
        return [states.POWER_ON, states.POWER_OFF, states.REBOOT]

    def get_power_state_and_health(self, task: Task
                                   ) -> tuple[str, str | None]:
        """The power state and the hardware health, in one BMC query.

        Health is ``OK``, ``Warning``, ``Critical`` or None when the
        driver cannot tell; the power state sync stores it on the node.
        """
        return self.get_power_state(task), None


class ManagementInterface(BaseInterface):
    interface_type = "management"

    @abc.abstractmethod
    def get_supported_boot_devices(self, task: Task) -> list[str]:
        """Boot devices (``ironic.common.boot_devices``) the BMC can set."""

    @abc.abstractmethod
    def set_boot_device(self, task: Task, device: str,
                        persistent: bool = False) -> None:
        """Set the device the node boots from next (or always)."""

    @abc.abstractmethod
    def get_boot_device(self, task: Task) -> dict:
        """{"boot_device": device or None, "persistent": bool or None}."""

    def get_sensors_data(self, task: Task) -> dict:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="get_sensors_data")

    def inject_nmi(self, task: Task) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="inject_nmi")

    def get_supported_boot_modes(self, task: Task) -> list[str]:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="get_supported_boot_modes")

    def set_boot_mode(self, task: Task, mode: str) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="set_boot_mode")

    def get_boot_mode(self, task: Task) -> str | None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="get_boot_mode")

    def get_secure_boot_state(self, task: Task) -> bool:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="get_secure_boot_state")

    def set_secure_boot_state(self, task: Task, state: bool) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="set_secure_boot_state")

    def attach_virtual_media(self, task: Task, device_type: str,
                             image_url: str) -> None:
        """Insert the image at ``image_url`` into the node's virtual
        ``device_type`` (``cdrom``, ``floppy``, ``disk``) drive."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="attach_virtual_media")

    def detach_virtual_media(self, task: Task,
                             device_types: list[str] | None = None) -> None:
        """Eject the virtual media of ``device_types`` (all when None)."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="detach_virtual_media")

    def get_virtual_media(self, task: Task) -> list[dict]:
        """The node's virtual drives: ``[{"media_types": [...],
        "inserted": bool, "image": url or ""}, ...]``."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="get_virtual_media")

    # Indicators (LEDs): components from ironic.common.components, states
    # from ironic.common.indicator_states.

    def get_supported_indicators(self, task: Task,
                                 component: str | None = None
                                 ) -> dict[str, dict[str, list[str]]]:
        """{component: {indicator id: {"readonly": bool, "states":
        [states]}}} (one component when ``component`` is given); empty
        when there are none. A plain list of the states an operator may
        set is accepted in place of the inner document."""
        return {}

    def get_indicator_state(self, task: Task, component: str,
                            indicator: str) -> str:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="get_indicator_state")

    def set_indicator_state(self, task: Task, component: str,
                            indicator: str, state: str) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="set_indicator_state")


class ConsoleInterface(BaseInterface):
    interface_type = "console"

    @abc.abstractmethod
    def start_console(self, task: Task) -> None: ...

    @abc.abstractmethod
    def stop_console(self, task: Task) -> None: ...

    @abc.abstractmethod
    def get_console(self, task: Task) -> dict:
        """{"type": ..., "url": ...} as the console API shows it."""

    def is_console_running(self, task: Task) -> bool:
        """Whether an enabled console still serves; consoles run by a
        process say False once it died, so enabling starts it again."""
        return True

    def stop_local_console(self, task: Task) -> None:
        """End the console process this conductor runs for a node that
        another conductor now owns (and serves the console from); only the
        local process, nothing on the BMC. Nothing to do by default."""


class RAIDInterface(BaseInterface):
    interface_type = "raid"

    @abc.abstractmethod
    def create_configuration(self, task: Task, create_root_volume: bool = True,
                             create_nonroot_volumes: bool = True,
                             delete_existing: bool = False) -> Any: ...

    @abc.abstractmethod
    def delete_configuration(self, task: Task) -> Any: ...

    #: JSON schema of the configurations this interface accepts; an
    #: implementation with extra logical disk keys gives its own.
    raid_schema: ClassVar[dict | None] = None

    def validate_raid_config(self, task: Task, raid_config: dict) -> None:
        """InvalidParameterValue unless ``raid_config`` fits the schema."""
        raid.validate_configuration(raid_config, self.raid_schema)

    def get_logical_disk_properties(self) -> dict[str, str]:
        """{logical disk property: description} (the drivers API)."""
        return raid.logical_disk_properties(self.raid_schema)


class BIOSInterface(BaseInterface):
    interface_type = "bios"

    @abc.abstractmethod
    def apply_configuration(self, task: Task, settings: list[dict]) -> Any:
        """Apply [{"name": ..., "value": ...}] settings."""

    @abc.abstractmethod
    def factory_reset(self, task: Task) -> Any: ...

    @abc.abstractmethod
    def cache_bios_settings(self, task: Task) -> None: ...


class FirmwareInterface(BaseInterface):
    interface_type = "firmware"

    @abc.abstractmethod
    def update(self, task: Task, settings: list[dict]) -> Any:
        """Apply [{"component": ..., "url": ...}] updates."""

    @abc.abstractmethod
    def cache_firmware_components(self, task: Task) -> None: ...
