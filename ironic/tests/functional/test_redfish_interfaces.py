"""The redfish interfaces drive the Redfish emulator; the system changes."""

from __future__ import annotations

import types

import pytest
import sushy

from ironic.common import boot_devices, boot_modes, exception, states
from ironic.drivers.modules import redfish_management, redfish_power
from ironic.tests.emulators.launch import RedfishEmulator


@pytest.fixture(scope="module")
def emulator():
    with RedfishEmulator(count=2, user="admin", password="pw") as emu:
        yield emu


def _system(emu, index):
    client = sushy.Sushy(f"{emu.url}/redfish/v1",
                         auth=sushy.auth.BasicAuth("admin", "pw"))
    return client.get_system(f"/redfish/v1/Systems/{emu.systems()[index]}")


@pytest.fixture
def task(emulator, config):
    config("redfish", connection_retry_interval=0, connection_attempts=1)
    node = types.SimpleNamespace(driver_info={
        "redfish_address": emulator.url, "redfish_username": "admin",
        "redfish_password": "pw",
        "redfish_system_id": f"/redfish/v1/Systems/{emulator.systems()[0]}"})
    return types.SimpleNamespace(node=node)


def test_power_reaches_the_system(emulator, task):
    power = redfish_power.RedfishPower()
    power.validate(task)
    assert power.get_power_state(task) == states.POWER_OFF
    power.set_power_state(task, states.POWER_ON)
    assert _system(emulator, 0).power_state == sushy.POWER_STATE_ON
    power.reboot(task)
    assert power.get_power_state(task) == states.POWER_ON
    power.set_power_state(task, states.POWER_OFF)
    assert _system(emulator, 0).power_state == sushy.POWER_STATE_OFF
    assert _system(emulator, 1).power_state == sushy.POWER_STATE_OFF


def test_boot_device_and_mode_reach_the_system(emulator, task):
    mgmt = redfish_management.RedfishManagement()
    mgmt.set_boot_device(task, boot_devices.PXE, persistent=True)
    boot = _system(emulator, 0).boot
    assert boot.target == sushy.BOOT_SOURCE_TARGET_PXE
    assert mgmt.get_boot_device(task) == {"boot_device": boot_devices.PXE,
                                          "persistent": True}
    mgmt.set_boot_mode(task, boot_modes.LEGACY_BIOS)
    assert _system(emulator, 0).boot.mode == sushy.BOOT_SOURCE_MODE_BIOS
    assert mgmt.get_boot_mode(task) == boot_modes.LEGACY_BIOS
    mgmt.set_boot_mode(task, boot_modes.UEFI)
    with pytest.raises(exception.InvalidParameterValue):
        mgmt.set_boot_device(task, "floppy-disk")


def test_wrong_password_is_reported(task):
    task.node.driver_info["redfish_password"] = "nope"
    with pytest.raises(exception.IronicException) as err:
        redfish_power.RedfishPower().get_power_state(task)
    assert "access denied" in str(err.value)
