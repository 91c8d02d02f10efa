"""The ``fake`` interfaces: the whole node lifecycle without hardware.

They keep what a real BMC would keep on the node itself (power state, boot
device, RAID configuration), succeed at once unless ``[fake]<kind>_delay``
asks them to take time, and declare the same steps operators script
against on real hardware (BIOS ``apply_configuration``/``factory_reset``,
RAID ``create_configuration``/``delete_configuration``, firmware ``update``,
the deploy step ``deploy``).
"""

from __future__ import annotations

import logging
import random
from typing import Any

from ironic.common import (
    boot_devices,
    boot_modes,
    components,
    exception,
    indicator_states,
    states,
)
from ironic.conf import CONF
from ironic.drivers import base
from ironic.objects import node_settings
from ironic.task import Task

LOG = logging.getLogger(__name__)

def delay_seconds(kind: str) -> float:
    """The configured delay of ``kind`` (one value or a weighted range)."""
    raw = getattr(CONF.fake, f"{kind}_delay") or "0"
    try:
        values = [float(v) for v in raw.split(",")]
    except ValueError as e:
        raise exception.InvalidParameterValue(
            err=f"[fake]{kind}_delay must be a number or two numbers "
                f"separated by a comma, got {raw!r}") from e
    if len(values) == 1:
        return max(values[0], 0.0)
    low, high = values[0], values[1]
    return max(random.triangular(low, high, low), 0.0)


def _sleep(task: Task, kind: str) -> None:
    seconds = delay_seconds(kind)
    if seconds:
        # The conductor's sleep ends when it stops: no fake delay outlives
        # a shutdown.
        task.conductor.sleep(seconds)


def _set_internal(task: Task, key: str, value: Any) -> None:
    # Reassign the dict: the node object tracks changes by attribute.
    info = dict(task.node.driver_internal_info or {})
    info[key] = value
    task.node.driver_internal_info = info


class _NoProperties:
    def get_properties(self) -> dict[str, str]:
        return {}

    def validate(self, task: Task) -> None:
        return None


_POWER_RESULT = {
    states.POWER_ON: states.POWER_ON,
    states.POWER_OFF: states.POWER_OFF,
    states.REBOOT: states.POWER_ON,
    states.SOFT_REBOOT: states.POWER_ON,
    states.SOFT_POWER_OFF: states.POWER_OFF,
}


class FakePower(_NoProperties, base.PowerInterface):
    """Power state kept on the node: what was set is what is read."""

    def get_power_state(self, task: Task) -> str:
        return task.node.power_state or states.POWER_OFF

    def set_power_state(self, task: Task, power_state: str,
                        timeout: int | None = None) -> None:
        if power_state not in _POWER_RESULT:
            raise exception.InvalidParameterValue(
                err=f"set_power_state called with an invalid power state: "
                    f"{power_state}. Supported: "
                    f"{', '.join(_POWER_RESULT)}")
        _sleep(task, "power")
        task.node.power_state = _POWER_RESULT[power_state]

    def reboot(self, task: Task, timeout: int | None = None) -> None:
        _sleep(task, "power")
        task.node.power_state = states.POWER_ON

    def get_supported_power_states(self, task: Task) -> list[str]:
        return list(_POWER_RESULT)


class FakeManagement(_NoProperties, base.ManagementInterface):
    """Boot device, boot mode and secure boot kept on the node."""

    _DEVICES = (boot_devices.PXE, boot_devices.DISK, boot_devices.CDROM,
                boot_devices.BIOS, boot_devices.SAFE)

    def get_supported_boot_devices(self, task: Task) -> list[str]:
        return list(self._DEVICES)

    def set_boot_device(self, task: Task, device: str,
                        persistent: bool = False) -> None:
        if device not in self._DEVICES:
            raise exception.InvalidParameterValue(
                err=f"Invalid boot device {device} specified. Supported: "
                    f"{', '.join(self._DEVICES)}")
        _sleep(task, "management")
        _set_internal(task, "fake_boot_device",
                      {"boot_device": device, "persistent": bool(persistent)})

    def get_boot_device(self, task: Task) -> dict:
        info = task.node.driver_internal_info or {}
        return dict(info.get("fake_boot_device")
                    or {"boot_device": boot_devices.PXE, "persistent": False})

    def get_supported_boot_modes(self, task: Task) -> list[str]:
        return [boot_modes.LEGACY_BIOS, boot_modes.UEFI]

    def set_boot_mode(self, task: Task, mode: str) -> None:
        if mode not in self.get_supported_boot_modes(task):
            raise exception.InvalidParameterValue(
                err=f"Invalid boot mode {mode} specified.")
        _set_internal(task, "fake_boot_mode", mode)

    def get_boot_mode(self, task: Task) -> str | None:
        return (task.node.driver_internal_info or {}).get("fake_boot_mode")

    def get_secure_boot_state(self, task: Task) -> bool:
        info = task.node.driver_internal_info or {}
        return bool(info.get("fake_secure_boot", False))

    def set_secure_boot_state(self, task: Task, state: bool) -> None:
        _set_internal(task, "fake_secure_boot", bool(state))

    def get_sensors_data(self, task: Task) -> dict:
        return {}

    def inject_nmi(self, task: Task) -> None:
        return None

    # A settable LED on the system and chassis, and a read-only power LED
    # on the chassis; states are kept on the node, all OFF at first.
    _INDICATORS = {
        components.SYSTEM: {"led": list(indicator_states.SETTABLE)},
        components.CHASSIS: {"led": list(indicator_states.SETTABLE),
                             "power": []},
    }

    def get_supported_indicators(self, task: Task,
                                 component: str | None = None
                                 ) -> dict[str, dict]:
        return {comp: {name: {"readonly": not settable,
                              "states": settable or [indicator_states.OFF,
                                                     indicator_states.ON]}
                       for name, settable in names.items()}
                for comp, names in self._INDICATORS.items()
                if component in (None, comp)}

    def _indicator_key(self, component: str, indicator: str) -> str:
        if indicator not in self._INDICATORS.get(component, {}):
            raise exception.NotFound(
                f"No indicator {indicator}@{component} on fake hardware.")
        return f"{indicator}@{component}"

    def get_indicator_state(self, task: Task, component: str,
                            indicator: str) -> str:
        key = self._indicator_key(component, indicator)
        if indicator == "power":
            return indicator_states.ON if \
                task.node.power_state == states.POWER_ON else \
                indicator_states.OFF
        saved = (task.node.driver_internal_info or {}).get(
            "fake_indicators", {})
        return saved.get(key, indicator_states.OFF)

    def set_indicator_state(self, task: Task, component: str,
                            indicator: str, state: str) -> None:
        key = self._indicator_key(component, indicator)
        if state not in self._INDICATORS[component][indicator]:
            raise exception.InvalidParameterValue(
                err=f"Indicator {key} can not be set to {state}.")
        _sleep(task, "management")
        saved = dict((task.node.driver_internal_info or {}).get(
            "fake_indicators", {}))
        saved[key] = state
        _set_internal(task, "fake_indicators", saved)
        task.node.save()

    _VMEDIA = ("cdrom", "floppy", "disk")

    def attach_virtual_media(self, task: Task, device_type: str,
                             image_url: str) -> None:
        if device_type not in self._VMEDIA:
            raise exception.InvalidParameterValue(
                err=f"Unknown virtual media device type {device_type!r}.")
        _sleep(task, "management")
        media = dict((task.node.driver_internal_info or {}).get(
            "fake_vmedia") or {})
        media[device_type] = image_url
        _set_internal(task, "fake_vmedia", media)

    def detach_virtual_media(self, task: Task,
                             device_types: list[str] | None = None) -> None:
        media = dict((task.node.driver_internal_info or {}).get(
            "fake_vmedia") or {})
        for device_type in device_types or self._VMEDIA:
            media.pop(device_type, None)
        _set_internal(task, "fake_vmedia", media or None)

    # The Redfish media types a real BMC would list for each device.
    _VMEDIA_TYPES = {"cdrom": ["CD", "DVD"], "floppy": ["Floppy"],
                     "disk": ["USBStick"]}

    def get_virtual_media(self, task: Task) -> list[dict]:
        media = (task.node.driver_internal_info or {}).get(
            "fake_vmedia") or {}
        return [{"media_types": self._VMEDIA_TYPES[device],
                 "inserted": device in media, "image": media.get(device, "")}
                for device in self._VMEDIA]


class FakeBoot(_NoProperties, base.BootInterface):
    capabilities = ("ramdisk_boot",)

    def prepare_ramdisk(self, task: Task, ramdisk_params: dict) -> None:
        _sleep(task, "boot")

    def clean_up_ramdisk(self, task: Task) -> None:
        _sleep(task, "boot")

    def prepare_instance(self, task: Task) -> None:
        _sleep(task, "boot")

    def clean_up_instance(self, task: Task) -> None:
        _sleep(task, "boot")

    def validate_inspection(self, task: Task) -> None:
        return None

    def validate_rescue(self, task: Task) -> None:
        return None


class FakeDeploy(_NoProperties, base.DeployInterface):
    """One synchronous deploy step, ``deploy`` at priority 100.

    The decomposed steps of seed 002 (write_image, prepare_instance_boot,
    tear_down_agent, switch_to_tenant_network, boot_instance) belong to the
    agent-based deploy interfaces; with nothing to write there is nothing
    for them to do here.
    """

    @base.deploy_step(priority=100)
    def deploy(self, task: Task) -> None:
        _sleep(task, "deploy")
        return None

    def tear_down(self, task: Task) -> str:
        _sleep(task, "deploy")
        return "deleted"

    def prepare(self, task: Task) -> None:
        return None

    def clean_up(self, task: Task) -> None:
        return None

    def take_over(self, task: Task) -> None:
        return None


class FakeInspect(_NoProperties, base.InspectInterface):

    def inspect_hardware(self, task: Task) -> str:
        _sleep(task, "inspect")
        return states.MANAGEABLE

    def abort(self, task: Task) -> None:
        return None


class FakeConsole(_NoProperties, base.ConsoleInterface):

    def start_console(self, task: Task) -> None:
        return None

    def stop_console(self, task: Task) -> None:
        return None

    def get_console(self, task: Task) -> dict:
        return {}


class FakeRescue(_NoProperties, base.RescueInterface):

    def rescue(self, task: Task) -> str:
        _sleep(task, "rescue")
        return states.RESCUE

    def unrescue(self, task: Task) -> str:
        _sleep(task, "rescue")
        return states.ACTIVE


_SETTINGS_ARG = {"settings": {"description": "A list of BIOS settings, "
                              "each {\"name\": ..., \"value\": ...}.",
                              "required": True}}


def _check_settings(settings: Any, keys: tuple[str, ...], what: str) -> None:
    ok = isinstance(settings, list) and all(
        isinstance(s, dict) and all(k in s for k in keys) for s in settings)
    if not ok:
        raise exception.InvalidParameterValue(
            err=f"{what} must be a list of objects with the keys "
                f"{', '.join(keys)}.")


class FakeBIOS(_NoProperties, base.BIOSInterface):

    @base.clean_step(priority=0, argsinfo=_SETTINGS_ARG,
                     requires_ramdisk=False)
    @base.deploy_step(priority=0, argsinfo=_SETTINGS_ARG,
                      requires_ramdisk=False)
    @base.service_step(priority=0, argsinfo=_SETTINGS_ARG,
                       requires_ramdisk=False)
    def apply_configuration(self, task: Task, settings: list[dict]) -> None:
        _check_settings(settings, ("name", "value"), "BIOS settings")
        _sleep(task, "bios")
        LOG.debug("Fake BIOS settings applied to node %s: %s",
                  task.node.uuid, settings)

    @base.clean_step(priority=0, requires_ramdisk=False)
    @base.deploy_step(priority=0, requires_ramdisk=False)
    @base.service_step(priority=0, requires_ramdisk=False)
    def factory_reset(self, task: Task) -> None:
        _sleep(task, "bios")
        LOG.debug("Fake BIOS factory reset on node %s", task.node.uuid)

    def cache_bios_settings(self, task: Task) -> None:
        return None


_RAID_CREATE_ARGS = {
    "create_root_volume": {"description": "Whether to create the root "
                           "volume (default true).", "required": False},
    "create_nonroot_volumes": {"description": "Whether to create the other "
                               "volumes (default true).", "required": False},
    "delete_existing": {"description": "Whether to delete the existing "
                        "configuration first (default false).",
                        "required": False},
}
_RAID_APPLY_ARGS = {
    "raid_config": {"description": "The RAID configuration to apply.",
                    "required": True},
    "delete_existing": _RAID_CREATE_ARGS["delete_existing"],
}


class FakeRAID(_NoProperties, base.RAIDInterface):
    """RAID configuration: the target becomes the current one."""

    def _apply(self, task: Task, target: dict, root: bool,
               nonroot: bool) -> None:
        disks = [d for d in target.get("logical_disks", [])
                 if (root and d.get("is_root_volume"))
                 or (nonroot and not d.get("is_root_volume"))]
        _sleep(task, "raid")
        task.node.raid_config = {"logical_disks": disks}

    @base.clean_step(priority=0, argsinfo=_RAID_CREATE_ARGS)
    def create_configuration(self, task: Task, create_root_volume: bool = True,
                             create_nonroot_volumes: bool = True,
                             delete_existing: bool = False) -> None:
        target = task.node.target_raid_config or {}
        if not target:
            raise exception.MissingParameterValue(
                err=f"Node {task.node.uuid} has no target_raid_config.")
        self.validate_raid_config(task, target)
        self._apply(task, target, create_root_volume, create_nonroot_volumes)

    @base.clean_step(priority=0)
    def delete_configuration(self, task: Task) -> None:
        _sleep(task, "raid")
        task.node.raid_config = {}

    @base.deploy_step(priority=0, argsinfo=_RAID_APPLY_ARGS)
    def apply_configuration(self, task: Task, raid_config: dict,
                            delete_existing: bool = False) -> None:
        self.validate_raid_config(task, raid_config)
        task.node.target_raid_config = raid_config
        self._apply(task, raid_config, True, True)


_FIRMWARE_ARGS = {"settings": {"description": "A list of updates, each "
                               "{\"component\": ..., \"url\": ...}.",
                               "required": True}}


class FakeFirmware(_NoProperties, base.FirmwareInterface):

    @base.clean_step(priority=0, argsinfo=_FIRMWARE_ARGS,
                     requires_ramdisk=False)
    @base.service_step(priority=0, argsinfo=_FIRMWARE_ARGS,
                       requires_ramdisk=False)
    def update(self, task: Task, settings: list[dict]) -> None:
        _check_settings(settings, ("component", "url"), "Firmware updates")
        _sleep(task, "firmware")

    def cache_firmware_components(self, task: Task) -> None:
        """Record the made-up firmware of a fake machine, so the firmware
        API shows something a real BMC would (API 1.114 identity too)."""
        serial = task.node.uuid.split("-")[0].upper()
        node_settings.record_firmware(task.node.id, {
            "bios": {"current_version": "1.0.0", "vendor": "Fake Vendor",
                     "model": "Fake BIOS", "serial_number": f"BIOS-{serial}"},
            "bmc": {"current_version": "1.0.0", "vendor": "Fake Vendor",
                    "model": "Fake BMC", "serial_number": f"BMC-{serial}"}})


class FakeVendor(_NoProperties, base.VendorInterface):
    """Passthru methods that check their arguments and echo them back."""

    _NEEDS_BAR = ("first_method", "second_method")

    def get_properties(self) -> dict[str, str]:
        # Two made-up driver_info keys, named as the public fake vendor
        # interface names them: clients list a fake driver's properties.
        return {key: f"{key} description. Required." for key in ("B1", "B2")}

    def validate(self, task: Task, method: str | None = None,
                 http_method: str | None = None, **kwargs: Any) -> None:
        if method in self._NEEDS_BAR and "bar" not in kwargs:
            raise exception.MissingParameterValue(
                err=f"Method {method} needs the parameter 'bar'.")

    @base.passthru(["POST"], description="Check that bar is given; runs "
                   "asynchronously.")
    def first_method(self, task: Task, http_method: str, bar: Any,
                     **kwargs: Any) -> None:
        _sleep(task, "vendor")

    @base.passthru(["POST", "GET"], async_=False,
                   description="Return the value of bar.")
    def second_method(self, task: Task, http_method: str, bar: Any,
                      **kwargs: Any) -> dict:
        _sleep(task, "vendor")
        return {"bar": bar, "http_method": http_method}

    @base.passthru(["POST"], async_=False, require_exclusive_lock=False,
                   description="Return the node's power state, under a "
                               "shared lock.")
    def shared_lock_method(self, task: Task, http_method: str,
                           **kwargs: Any) -> dict:
        return {"power_state": task.node.power_state}

    @base.driver_passthru(["POST", "GET"], async_=False,
                          description="Echo the arguments back.")
    def driver_echo(self, context: Any, http_method: str,
                    **kwargs: Any) -> dict:
        return {"http_method": http_method, "args": kwargs}


class FakeStorage(_NoProperties, base.StorageInterface):
    """Volumes that attach and detach without storage; the image is
    written as with local boot."""

    def attach_volumes(self, task: Task) -> None:
        _sleep(task, "storage")

    def detach_volumes(self, task: Task) -> None:
        _sleep(task, "storage")

    def should_write_image(self, task: Task) -> bool:
        return True
