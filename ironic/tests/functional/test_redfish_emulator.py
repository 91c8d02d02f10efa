"""The project's Redfish emulator answers the real sushy client."""

from __future__ import annotations

import pytest
import sushy

from ironic.tests.emulators.launch import RedfishEmulator, system_macs


@pytest.fixture(scope="module")
def emulator():
    with RedfishEmulator(count=2, user="admin", password="secret") as emu:
        yield emu


def _client(emu, password="secret"):
    return sushy.Sushy(f"{emu.url}/redfish/v1", auth=sushy.auth.BasicAuth(
        username="admin", password=password))


def test_power_boot_and_inventory_through_sushy(emulator):
    client = _client(emulator)
    system = client.get_system(f"/redfish/v1/Systems/{emulator.systems()[1]}")
    assert system.power_state == sushy.POWER_STATE_OFF
    system.reset_system(sushy.RESET_ON)
    system.refresh()
    assert system.power_state == sushy.POWER_STATE_ON
    system.set_system_boot_options(sushy.BOOT_SOURCE_TARGET_PXE,
                                   enabled=sushy.BOOT_SOURCE_ENABLED_CONTINUOUS)
    system.refresh()
    assert system.boot.target == sushy.BOOT_SOURCE_TARGET_PXE
    assert system.memory_summary.size_gib == 8
    assert system.processors.summary[0] == 4
    macs = {nic.mac_address.lower()
            for nic in system.ethernet_interfaces.get_members()}
    assert macs == set(system_macs(1))
    other = client.get_system(f"/redfish/v1/Systems/{emulator.systems()[0]}")
    assert other.power_state == sushy.POWER_STATE_OFF


def test_wrong_password_is_refused(emulator):
    with pytest.raises(sushy.exceptions.AccessError):
        _client(emulator, password="wrong").get_system_collection()
