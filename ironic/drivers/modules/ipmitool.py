"""The ``ipmitool`` power, management and vendor interfaces.

Every call goes through ``ipmi_client``: validated driver_info, the
password kept off the command line, per-BMC serialization and retries.
"""

from __future__ import annotations

import time
from typing import Any

from oslo_utils import strutils

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
from ironic.drivers.modules import ipmi_client
from ironic.metrics import bmc_call
from ironic.task import Task

PROPERTIES = {
    "ipmi_address": "IP address or hostname of the BMC. Required.",
    "ipmi_port": "UDP port of the BMC. Optional (623).",
    "ipmi_username": "BMC user name. Optional.",
    "ipmi_password": "BMC password. Optional.",
    "ipmi_protocol_version": "IPMI version: '1.5' or '2.0'. Optional "
                             "(2.0).",
    "ipmi_cipher_suite": "IPMI 2.0 cipher suite, 0-17. Optional.",
    "ipmi_priv_level": "Privilege level: ADMINISTRATOR, CALLBACK, OPERATOR "
                       "or USER. Optional (ADMINISTRATOR).",
    "ipmi_bridging": "Bridging: 'no', 'single' or 'dual'. Optional (no).",
    "ipmi_local_address": "Local IPMB address for bridged requests. "
                          "Optional.",
    "ipmi_transit_channel": "Transit channel for dual bridging. Optional.",
    "ipmi_transit_address": "Transit address for dual bridging. Optional.",
    "ipmi_target_channel": "Destination channel for bridging. Optional.",
    "ipmi_target_address": "Destination address for bridging. Optional.",
    "ipmi_hex_kg_key": "The BMC's K_g key in hexadecimal. Optional.",
    "ipmi_terminal_port": "Local port for the serial console. Optional.",
    "ipmi_disable_boot_timeout": "Disable the BMC's boot flag timeout "
                                 "before setting a boot device. Optional "
                                 "([ipmi]disable_boot_timeout).",
}

# ipmitool's boot device names for ours.
_BOOTDEV = {boot_devices.PXE: "pxe", boot_devices.DISK: "disk",
            boot_devices.CDROM: "cdrom", boot_devices.BIOS: "bios",
            boot_devices.SAFE: "safe"}


def _target(task: Task) -> ipmi_client.IpmiTarget:
    return ipmi_client.parse_driver_info(task.node.driver_info or {})


def _run(task: Task, *command: str) -> str:
    return ipmi_client.run(_target(task), list(command))


def _wait_for_power(task: Task, wanted: str, timeout: int | None) -> None:
    """Poll until the BMC reports ``wanted`` or the timeout passes."""
    budget = timeout or CONF.conductor.power_state_change_timeout
    deadline = time.monotonic() + budget
    while True:
        state = IPMIPower.read_power_state(task)
        if state == wanted:
            return
        if time.monotonic() >= deadline:
            raise exception.PowerStateFailure(pstate=wanted)
        time.sleep(1)


class IPMIPower(base.PowerInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(PROPERTIES)

    def check_driver_info(self, driver_info: dict) -> None:
        """Malformed values only (the API, on create and update)."""
        ipmi_client.check_driver_info(driver_info)

    def validate(self, task: Task) -> None:
        _target(task)

    @staticmethod
    def read_power_state(task: Task) -> str:
        answer = ipmi_client.parse_power_status(_run(task, "power",
                                                     "status"))
        return states.POWER_ON if answer == "on" else states.POWER_OFF

    @bmc_call
    def get_power_state(self, task: Task) -> str:
        return self.read_power_state(task)

    @bmc_call
    def set_power_state(self, task: Task, power_state: str,
                        timeout: int | None = None) -> None:
        if power_state == states.POWER_ON:
            _run(task, "power", "on")
            _wait_for_power(task, states.POWER_ON, timeout)
        elif power_state == states.POWER_OFF:
            _run(task, "power", "off")
            _wait_for_power(task, states.POWER_OFF, timeout)
        elif power_state == states.SOFT_POWER_OFF:
            _run(task, "power", "soft")
            _wait_for_power(task, states.POWER_OFF, timeout)
        elif power_state in (states.REBOOT, states.SOFT_REBOOT):
            self._reboot(task, soft=power_state == states.SOFT_REBOOT,
                         timeout=timeout)
        else:
            raise exception.InvalidParameterValue(
                err=f"set_power_state called with an invalid power state: "
                    f"{power_state}")

    def _reboot(self, task: Task, soft: bool, timeout: int | None) -> None:
        powered_on = self.read_power_state(task) == states.POWER_ON
        if powered_on and task.node.disable_power_off:
            # Never off, not even for a moment: an explicit reset.
            _run(task, "power", "reset")
            _wait_for_power(task, states.POWER_ON, timeout)
            return
        if powered_on:
            _run(task, "power", "soft" if soft else "off")
            _wait_for_power(task, states.POWER_OFF, timeout)
        _run(task, "power", "on")
        _wait_for_power(task, states.POWER_ON, timeout)

    @bmc_call
    def reboot(self, task: Task, timeout: int | None = None) -> None:
        self._reboot(task, soft=False, timeout=timeout)

    def get_supported_power_states(self, task: Task) -> list[str]:
        return [states.POWER_ON, states.POWER_OFF, states.REBOOT,
                states.SOFT_REBOOT, states.SOFT_POWER_OFF]


def _boot_mode_wanted(task: Task) -> str:
    """The boot mode the node should boot in (UEFI unless told BIOS)."""
    caps = (task.node.properties or {}).get("capabilities") or ""
    if isinstance(caps, str) and "boot_mode:bios" in caps:
        return boot_modes.LEGACY_BIOS
    return task.node.boot_mode or boot_modes.UEFI


def _disable_boot_timeout(info: dict) -> bool:
    value = info.get("ipmi_disable_boot_timeout")
    if value is None or value == "":
        return CONF.ipmi.disable_boot_timeout
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise exception.InvalidParameterValue(
            err=f"driver_info/ipmi_disable_boot_timeout must be a boolean, "
                f"got {value!r}.") from None


class IPMIManagement(base.ManagementInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(PROPERTIES)

    def check_driver_info(self, driver_info: dict) -> None:
        """Malformed values only (the API, on create and update)."""
        ipmi_client.check_driver_info(driver_info)
        _disable_boot_timeout(driver_info or {})

    def validate(self, task: Task) -> None:
        _target(task)
        _disable_boot_timeout(task.node.driver_info or {})

    def get_supported_boot_devices(self, task: Task) -> list[str]:
        return list(_BOOTDEV)

    @bmc_call
    def set_boot_device(self, task: Task, device: str,
                        persistent: bool = False) -> None:
        if device not in _BOOTDEV:
            raise exception.InvalidParameterValue(
                err=f"Invalid boot device {device} specified. Supported: "
                    f"{', '.join(_BOOTDEV)}")
        if _disable_boot_timeout(task.node.driver_info or {}):
            # Stop the BMC from forgetting the flags after 60 seconds.
            _run(task, "raw", "0x00", "0x08", "0x03", "0x08")
        options = []
        if persistent:
            options.append("persistent")
        if _boot_mode_wanted(task) == boot_modes.UEFI:
            options.append("efiboot")
        command = ["chassis", "bootdev", _BOOTDEV[device]]
        if options:
            command.append("options=" + ",".join(options))
        _run(task, *command)

    @bmc_call
    def get_boot_device(self, task: Task) -> dict:
        param = ipmi_client.parse_boot_param(
            _run(task, "chassis", "bootparam", "get", "5"))
        return {"boot_device": param["boot_device"],
                "persistent": param["persistent"]}

    def get_supported_boot_modes(self, task: Task) -> list[str]:
        return [boot_modes.UEFI, boot_modes.LEGACY_BIOS]

    def get_boot_mode(self, task: Task) -> str | None:
        param = ipmi_client.parse_boot_param(
            _run(task, "chassis", "bootparam", "get", "5"))
        return boot_modes.UEFI if param["uefi"] else boot_modes.LEGACY_BIOS

    @bmc_call
    def set_boot_mode(self, task: Task, mode: str) -> None:
        if mode not in self.get_supported_boot_modes(task):
            raise exception.InvalidParameterValue(
                err=f"Unsupported boot mode {mode}.")
        # IPMI carries the boot mode with the boot device: re-send the
        # current device with the wanted mode.
        current = self.get_boot_device(task)
        options = ["persistent"] if current["persistent"] else []
        if mode == boot_modes.UEFI:
            options.append("efiboot")
        device = current["boot_device"] or boot_devices.DISK
        command = ["chassis", "bootdev", _BOOTDEV.get(device, "disk")]
        if options:
            command.append("options=" + ",".join(options))
        _run(task, *command)

    @bmc_call
    def inject_nmi(self, task: Task) -> None:
        _run(task, "power", "diag")

    # The chassis identify LED ("chassis identify"): ON lights it until
    # told otherwise ("force"), OFF turns it off.
    _IDENTIFY = "identify"

    def get_supported_indicators(self, task: Task,
                                 component: str | None = None
                                 ) -> dict[str, dict]:
        if component not in (None, components.CHASSIS):
            return {}
        return {components.CHASSIS: {self._IDENTIFY: {
            "readonly": False,
            "states": [indicator_states.OFF, indicator_states.ON]}}}

    def _check_indicator(self, component: str, indicator: str) -> None:
        if (component, indicator) != (components.CHASSIS, self._IDENTIFY):
            raise exception.NotFound(
                f"IPMI has no indicator {indicator}@{component}; it has "
                f"{self._IDENTIFY}@{components.CHASSIS}.")

    @bmc_call
    def get_indicator_state(self, task: Task, component: str,
                            indicator: str) -> str:
        self._check_indicator(component, indicator)
        state = ipmi_client.parse_identify_state(
            _run(task, "raw", "0x00", "0x01"))
        known: dict[str | None, str] = {"on": indicator_states.ON,
                                        "off": indicator_states.OFF}
        return known.get(state, indicator_states.UNKNOWN)

    @bmc_call
    def set_indicator_state(self, task: Task, component: str,
                            indicator: str, state: str) -> None:
        self._check_indicator(component, indicator)
        if state == indicator_states.ON:
            _run(task, "chassis", "identify", "force")
        elif state == indicator_states.OFF:
            _run(task, "chassis", "identify", "0")
        else:
            raise exception.InvalidParameterValue(
                err=f"The IPMI identify LED can be set ON or OFF, not "
                    f"{state}.")

    @bmc_call
    def get_sensors_data(self, task: Task) -> dict:
        """The BMC's sensors grouped by type ('sdr -v'); a BMC without an
        SDR repository answers with nothing."""
        return ipmi_client.parse_sensors(_run(task, "sdr", "-v"))


class VendorPassthru(base.VendorInterface):
    def get_properties(self) -> dict[str, str]:
        return dict(PROPERTIES)

    def validate(self, task: Task, method: str | None = None,
                 http_method: str | None = None, **kwargs: Any) -> None:
        _target(task)
        if method == "send_raw":
            raw = kwargs.get("raw_bytes")
            if not raw or not all(_is_byte(b) for b in str(raw).split()):
                raise exception.MissingParameterValue(
                    err="send_raw needs 'raw_bytes': space separated "
                        "bytes like '0x00 0x01'.")
        elif method == "bmc_reset":
            warm = kwargs.get("warm", True)
            if str(warm).lower() not in ("true", "false", "1", "0"):
                raise exception.InvalidParameterValue(
                    err="bmc_reset 'warm' must be a boolean.")

    @base.passthru(["POST"], description="Send raw bytes to the BMC.")
    def send_raw(self, task: Task, http_method: str, raw_bytes: str,
                 **kwargs: Any) -> dict:
        out = _run(task, "raw", *str(raw_bytes).split())
        return {"output": out.strip()}

    @base.passthru(["POST"], description="Reset the BMC (warm or cold).")
    def bmc_reset(self, task: Task, http_method: str, warm: Any = True,
                  **kwargs: Any) -> None:
        kind = "warm" if str(warm).lower() in ("true", "1") else "cold"
        _run(task, "bmc", "reset", kind)


def _is_byte(text: str) -> bool:
    try:
        return 0 <= int(text, 0) <= 255
    except ValueError:
        return False
