"""The redfish interfaces drive the Redfish emulator; the system changes."""

from __future__ import annotations

import json
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


def test_inject_nmi_reaches_the_system(emulator, task):
    power = redfish_power.RedfishPower()
    power.set_power_state(task, states.POWER_ON)
    before = emulator.resets(0).get("Nmi", 0)
    redfish_management.RedfishManagement().inject_nmi(task)
    assert emulator.resets(0)["Nmi"] == before + 1
    # An NMI is no power change.
    assert _system(emulator, 0).power_state == sushy.POWER_STATE_ON
    assert emulator.resets(1).get("Nmi", 0) == 0
    power.set_power_state(task, states.POWER_OFF)


def test_soft_power_off_and_soft_reboot(emulator, task):
    power = redfish_power.RedfishPower()
    power.set_power_state(task, states.POWER_ON)
    before = emulator.resets(0)
    power.set_power_state(task, states.SOFT_REBOOT)
    after = emulator.resets(0)
    # A graceful restart, not a forced one nor an off/on pair.
    assert after.get("GracefulRestart", 0) == \
        before.get("GracefulRestart", 0) + 1
    assert after.get("ForceRestart", 0) == before.get("ForceRestart", 0)
    assert after.get("ForceOff", 0) == before.get("ForceOff", 0)
    assert _system(emulator, 0).power_state == sushy.POWER_STATE_ON

    power.set_power_state(task, states.SOFT_POWER_OFF)
    assert emulator.resets(0).get("GracefulShutdown", 0) == \
        before.get("GracefulShutdown", 0) + 1
    assert _system(emulator, 0).power_state == sushy.POWER_STATE_OFF
    assert power.get_power_state(task) == states.POWER_OFF


def test_secure_boot_get_and_set(emulator, task):
    mgmt = redfish_management.RedfishManagement()
    assert mgmt.get_secure_boot_state(task) is False
    mgmt.set_secure_boot_state(task, True)
    assert _system(emulator, 0).secure_boot.enabled is True
    assert mgmt.get_secure_boot_state(task) is True
    mgmt.set_secure_boot_state(task, False)
    assert _system(emulator, 0).secure_boot.enabled is False
    assert mgmt.get_secure_boot_state(task) is False


def test_sensors_are_plain_json(emulator, task):
    data = redfish_management.RedfishManagement().get_sensors_data(task)
    # Survives a JSON round trip unchanged: no sushy enumerations inside.
    assert json.loads(json.dumps(data)) == data
    chassis = _system(emulator, 0).chassis[0]
    fans = {f"{f.identity}@{chassis.identity}": f
            for f in chassis.thermal.fans}
    assert set(data["Fan"]) == set(fans) and fans
    for key, fan in fans.items():
        assert data["Fan"][key]["reading"] == fan.reading
        assert data["Fan"][key]["reading_units"] == "RPM"
        assert data["Fan"][key]["state"] == "Enabled"
        assert data["Fan"][key]["health"] == "OK"
    temps = chassis.thermal.temperatures
    assert {v["reading_celsius"] for v in data["Temperature"].values()} == \
        {t.reading_celsius for t in temps}
    assert data["Power"] == {}  # the emulated chassis reports no power
