"""Redfish indicators against the emulator: the system's and chassis' LEDs
change on the emulator; drives report theirs."""

from __future__ import annotations

import pytest
import sushy

from ironic.common import components, exception, indicator_states
from ironic.drivers.modules import redfish_management
from ironic.tests.emulators.launch import RedfishEmulator
from ironic.tests.functional.redfish_helpers import emulator_system, make_task

DRIVES = [{"Id": "disk-a", "Name": "Disk A", "CapacityBytes": 10 * 1024 ** 3,
           "Protocol": "SATA"}]


@pytest.fixture(scope="module")
def emulator():
    with RedfishEmulator(count=1, user="admin", password="pw",
                         drives=DRIVES) as emu:
        yield emu


@pytest.fixture
def task(emulator, config):
    config("redfish", connection_retry_interval=0, connection_attempts=1)
    return make_task(emulator)


def test_supported_indicators_name_the_resources(emulator, task):
    mgmt = redfish_management.RedfishManagement()
    found = mgmt.get_supported_indicators(task)
    system = emulator_system(emulator)
    chassis = system.chassis[0]
    assert found[components.SYSTEM] == {
        system.identity: ["BLINKING", "OFF", "ON"]}
    assert list(found[components.CHASSIS]) == [chassis.identity]
    assert list(found[components.DISK]) == ["disk-a"]
    assert list(mgmt.get_supported_indicators(task, components.DISK)) == \
        [components.DISK]


def test_system_and_chassis_leds_change_on_the_bmc(emulator, task):
    mgmt = redfish_management.RedfishManagement()
    system = emulator_system(emulator)
    chassis_id = system.chassis[0].identity
    mgmt.set_indicator_state(task, components.SYSTEM, system.identity,
                             indicator_states.BLINKING)
    assert emulator_system(emulator).indicator_led == \
        sushy.INDICATOR_LED_BLINKING
    assert mgmt.get_indicator_state(task, components.SYSTEM,
                                    system.identity) == "BLINKING"
    mgmt.set_indicator_state(task, components.CHASSIS, chassis_id,
                             indicator_states.OFF)
    assert emulator_system(emulator).chassis[0].indicator_led == \
        sushy.INDICATOR_LED_OFF
    # The system's LED is its own.
    assert mgmt.get_indicator_state(task, components.SYSTEM,
                                    system.identity) == "BLINKING"
    assert mgmt.get_indicator_state(task, components.DISK, "disk-a") == "ON"


def test_unknown_indicator_and_bad_state_are_refused(emulator, task):
    mgmt = redfish_management.RedfishManagement()
    with pytest.raises(exception.NotFound) as err:
        mgmt.get_indicator_state(task, components.DISK, "disk-z")
    assert "disk-a@disk" in str(err.value)
    with pytest.raises(exception.InvalidParameterValue):
        mgmt.set_indicator_state(task, components.SYSTEM, "x",
                                 indicator_states.UNKNOWN)
