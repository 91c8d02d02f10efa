"""The ipmitool interfaces drive an emulated BMC; the machine changes."""

from __future__ import annotations

import json
import types

import pytest

from ironic.common import boot_devices, boot_modes, exception, states
from ironic.drivers.modules import ipmitool
from ironic.tests.emulators.launch import IpmiEmulator, require_ipmitool


@pytest.fixture(autouse=True)
def _ipmitool_present():
    require_ipmitool()


@pytest.fixture(scope="module")
def emulator():
    with IpmiEmulator(count=2) as emu:
        yield emu


@pytest.fixture
def task(emulator, config):
    config("ipmi", min_command_interval=0, command_retry_timeout=3)
    node = types.SimpleNamespace(
        uuid="6c0f4ea2-54b5-4c5a-9d8e-4b1f0e1c0a01", boot_mode=None,
        disable_power_off=False,
        properties={}, driver_info={
            "ipmi_address": emulator.address,
            "ipmi_port": emulator.base_port, "ipmi_username": emulator.user,
            "ipmi_password": emulator.password})
    return types.SimpleNamespace(node=node)


def test_power_cycle_reaches_the_machine(emulator, task):
    power = ipmitool.IPMIPower()
    power.validate(task)
    power.set_power_state(task, states.POWER_ON)
    assert emulator.state(0)["power"] == "on"
    assert power.get_power_state(task) == states.POWER_ON
    changes = emulator.state(0)["power_changes"]
    power.reboot(task)
    assert emulator.state(0)["power"] == "on"
    assert emulator.state(0)["power_changes"] == changes + 2
    power.set_power_state(task, states.SOFT_POWER_OFF)
    assert emulator.state(0)["power"] == "off"
    assert power.get_power_state(task) == states.POWER_OFF
    assert emulator.state(1)["power_changes"] == 0


def test_boot_device_and_mode(emulator, task):
    mgmt = ipmitool.IPMIManagement()
    mgmt.set_boot_device(task, boot_devices.PXE, persistent=True)
    state = emulator.state(0)
    assert (state["bootdev"], state["persistent"], state["uefi"]) == \
        ("pxe", True, True)
    assert mgmt.get_boot_device(task) == {"boot_device": "pxe",
                                          "persistent": True}
    task.node.properties = {"capabilities": "boot_mode:bios"}
    mgmt.set_boot_device(task, boot_devices.DISK)
    assert emulator.state(0)["uefi"] is False
    assert mgmt.get_boot_mode(task) == boot_modes.LEGACY_BIOS
    with pytest.raises(exception.InvalidParameterValue):
        mgmt.set_boot_device(task, "nowhere")


def test_inject_nmi(emulator, task):
    ipmitool.IPMIManagement().inject_nmi(task)
    assert emulator.state(0)["nmi_count"] == 1


def test_identify_indicator(emulator, task):
    from ironic.common import components, indicator_states
    mgmt = ipmitool.IPMIManagement()
    assert mgmt.get_supported_indicators(task) == {components.CHASSIS: {
        "identify": {"readonly": False, "states": ["OFF", "ON"]}}}
    assert mgmt.get_supported_indicators(task, components.SYSTEM) == {}
    assert mgmt.get_indicator_state(task, "chassis", "identify") == "OFF"
    mgmt.set_indicator_state(task, "chassis", "identify",
                             indicator_states.ON)
    assert emulator.state(0)["identify"] == "on"
    assert mgmt.get_indicator_state(task, "chassis", "identify") == "ON"
    mgmt.set_indicator_state(task, "chassis", "identify",
                             indicator_states.OFF)
    assert emulator.state(0)["identify"] == "off"
    assert mgmt.get_indicator_state(task, "chassis", "identify") == "OFF"
    with pytest.raises(exception.NotFound):
        mgmt.get_indicator_state(task, "system", "identify")
    with pytest.raises(exception.InvalidParameterValue):
        mgmt.set_indicator_state(task, "chassis", "identify",
                                 indicator_states.BLINKING)


def test_missing_address_is_named(task):
    task.node.driver_info = {"ipmi_username": "admin"}
    with pytest.raises(exception.MissingParameterValue) as err:
        ipmitool.IPMIPower().validate(task)
    assert "ipmi_address" in str(err.value)


def test_stopped_bmc_fails_within_the_budget(config):
    config("ipmi", min_command_interval=0, command_retry_timeout=2)
    with IpmiEmulator(count=1) as emu:
        info = {"ipmi_address": emu.address, "ipmi_port": emu.base_port,
                "ipmi_username": emu.user, "ipmi_password": emu.password}
    task = types.SimpleNamespace(node=types.SimpleNamespace(
        driver_info=info, properties={}, boot_mode=None))
    with pytest.raises(exception.IronicException) as err:
        ipmitool.IPMIPower().get_power_state(task)
    assert "power status" in str(err.value)


def test_sensors_grouped_by_type_follow_the_machine(emulator, task):
    power, mgmt = ipmitool.IPMIPower(), ipmitool.IPMIManagement()
    power.set_power_state(task, states.POWER_OFF)
    data = mgmt.get_sensors_data(task)
    # Plain JSON, grouped by the first word of the sensor type.
    assert json.loads(json.dumps(data)) == data
    assert set(data) == {"Temperature", "Fan", "Voltage", "Power"}
    assert set(data["Temperature"]) == {"CPU Temp (0x1)",
                                        "Inlet Temp (0x2)"}
    fan = data["Fan"]["Fan 1 (0x3)"]
    assert fan["Sensor ID"] == "Fan 1 (0x3)"
    assert fan["Sensor Reading"].startswith("0 ")
    assert fan["Status"] == "ok"

    power.set_power_state(task, states.POWER_ON)
    assert emulator.state(0)["power"] == "on"
    data = mgmt.get_sensors_data(task)
    assert data["Fan"]["Fan 1 (0x3)"]["Sensor Reading"] == \
        "3000 (+/- 0) RPM"
    assert data["Temperature"]["CPU Temp (0x1)"]["Sensor Reading"] == \
        "45 (+/- 0) degrees C"
    assert data["Voltage"]["Vcore (0x4)"]["Sensor Reading"] == \
        "1.200 (+/- 0) Volts"
    power.set_power_state(task, states.POWER_OFF)
