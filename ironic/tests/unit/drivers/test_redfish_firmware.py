"""redfish firmware: argument checks, BMC task outcome, version records
(sushy mocked)."""

import types
from unittest import mock

import pytest

from ironic.common import exception, states
from ironic.drivers.modules import redfish_firmware as rf


@pytest.mark.parametrize("settings", [
    None, [], [{"component": "nic", "url": "http://x"}],
    [{"component": "bios"}], [{"component": "bios", "url": ""}]])
def test_bad_settings_are_refused(settings):
    with pytest.raises(exception.InvalidParameterValue):
        rf.parse_settings(settings)


def test_a_failed_bmc_task_fails_the_step():
    task = mock.Mock(task_state="Exception",
                     messages=[mock.Mock(message="image corrupt")])
    monitor = mock.Mock(check_is_processing=False)
    monitor.get_task.return_value = task
    with pytest.raises(exception.IronicException) as err:
        rf._wait(_task(None), monitor, "bios update")
    assert "exception" in str(err.value)
    assert "image corrupt" in str(err.value)


def test_a_completed_task_passes():
    monitor = mock.Mock(check_is_processing=False)
    monitor.get_task.return_value = mock.Mock(task_state="Completed",
                                              messages=[])
    rf._wait(_task(None), monitor, "bios update")


def _task(power_state):
    node = types.SimpleNamespace(uuid="n1", id=1, power_state=power_state,
                                 driver_info={})
    return types.SimpleNamespace(node=node, driver=types.SimpleNamespace(
        power=mock.Mock()))


@mock.patch.object(rf.node_settings, "replace_firmware_components")
@mock.patch.object(rf.node_settings, "firmware_components")
def test_version_applied_at_boot_reboots_a_powered_node(known, replace):
    known.return_value = {"bios": {"initial_version": "0.9",
                                   "last_version_flashed": None}}
    versions = iter([{"bios": {"current_version": "1.0"}},
                     {"bios": {"current_version": "1.1"}}])
    task = _task(states.POWER_ON)
    with mock.patch.object(rf, "read_components",
                           side_effect=lambda s: next(versions)):
        rf.RedfishFirmware()._settle(task, mock.Mock(), {"bios": "1.0"},
                                     [{"component": "bios", "url": "u"}])
    task.driver.power.reboot.assert_called_once_with(task)
    assert replace.call_args[0][1] == [{
        "component": "bios", "initial_version": "0.9",
        "current_version": "1.1", "last_version_flashed": "1.1",
        "vendor": None, "model": None, "serial_number": None}]


@mock.patch.object(rf.node_settings, "replace_firmware_components")
@mock.patch.object(rf.node_settings, "firmware_components",
                   return_value={})
def test_powered_off_node_is_not_rebooted(known, replace):
    task = _task(states.POWER_OFF)
    with mock.patch.object(rf, "read_components",
                           return_value={"bios": {"current_version": "1"}}):
        rf.RedfishFirmware()._settle(task, mock.Mock(), {"bios": "1"},
                                     [{"component": "bios", "url": "u"}])
    task.driver.power.reboot.assert_not_called()


def _system(manager_json):
    manager = mock.Mock(firmware_version="2.5", model="iDRAC 9",
                        json=manager_json)
    return mock.Mock(bios_version="1.4.2", managers=[manager])


def test_components_carry_what_the_bmc_says_about_them():
    found = rf.read_components(_system({"Manufacturer": "Acme",
                                        "SerialNumber": "SN-77"}))
    assert found == {
        "bios": {"current_version": "1.4.2"},
        "bmc": {"current_version": "2.5", "vendor": "Acme",
                "model": "iDRAC 9", "serial_number": "SN-77"}}
    assert rf.read_versions(_system({})) == {"bios": "1.4.2", "bmc": "2.5"}


@mock.patch.object(rf.node_settings, "replace_firmware_components")
@mock.patch.object(rf.node_settings, "firmware_components")
def test_cache_keeps_the_first_version_and_records_identity(known, replace):
    known.return_value = {"bmc": {"initial_version": "2.0",
                                  "last_version_flashed": "2.1"}}
    task = _task(states.POWER_ON)
    with mock.patch.object(rf, "system_of",
                           return_value=_system({"Manufacturer": "Acme"})):
        rf.RedfishFirmware().cache_firmware_components(task)
    rows = {r["component"]: r for r in replace.call_args[0][1]}
    assert rows["bmc"] == {
        "component": "bmc", "initial_version": "2.0",
        "current_version": "2.5", "last_version_flashed": "2.1",
        "vendor": "Acme", "model": "iDRAC 9", "serial_number": None}
    assert rows["bios"]["initial_version"] == "1.4.2"
    assert rows["bios"]["vendor"] is None
