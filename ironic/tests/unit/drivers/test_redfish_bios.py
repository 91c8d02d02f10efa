"""redfish BIOS: settings checks, and staged changes (sushy mocked)."""

import types
from unittest import mock

import pytest

from ironic.common import exception, states
from ironic.drivers.modules import redfish_bios

CURRENT = {"ProcTurboMode": "Enabled", "NumCores": "10", "Knob": "a"}
REGISTRY = {
    "ProcTurboMode": types.SimpleNamespace(
        read_only=False, attribute_type="Enumeration",
        allowable_values=[{"ValueName": "Enabled"},
                          {"ValueName": "Disabled"}]),
    "NumCores": types.SimpleNamespace(read_only=True,
                                      attribute_type="Integer",
                                      allowable_values=None),
}


@pytest.mark.parametrize("settings", [
    None, {"name": "x"}, [{"name": "x"}], ["x"]])
def test_malformed_settings_are_refused(settings):
    with pytest.raises(exception.InvalidParameterValue):
        redfish_bios.parse_settings(settings)


@pytest.mark.parametrize("wanted,named", [
    ({"Nope": 1, "Other": 2}, "Nope, Other"),
    ({"NumCores": "12"}, "NumCores"),
    ({"ProcTurboMode": "Fast"}, "ProcTurboMode='Fast'"),
])
def test_checks_name_every_offender(wanted, named):
    with pytest.raises(exception.InvalidParameterValue) as err:
        redfish_bios.check_settings(wanted, CURRENT, REGISTRY)
    assert named in str(err.value)


def _entry(kind, **bounds):
    values = dict(lower_bound=None, upper_bound=None, min_length=None,
                  max_length=None, allowable_values=None)
    values.update(bounds)
    return types.SimpleNamespace(read_only=False, attribute_type=kind,
                                 **values)


@pytest.mark.parametrize("entry,value,ok", [
    (_entry("Integer", lower_bound=1, upper_bound=8), 8, True),
    (_entry("Integer", lower_bound=1, upper_bound=8), "9", False),
    (_entry("Integer", lower_bound=1, upper_bound=8), "x", False),
    (_entry("String", max_length=3), "abc", True),
    (_entry("String", min_length=2, max_length=3), "abcd", False),
    (_entry("Boolean"), "anything", True),
])
def test_registry_bounds_are_enforced(entry, value, ok):
    def check():
        redfish_bios.check_settings({"Knob": value}, CURRENT,
                                    {"Knob": entry})
    if ok:
        check()
    else:
        with pytest.raises(exception.InvalidParameterValue) as err:
            check()
        assert "Knob" in str(err.value)


def test_without_registry_only_names_are_checked():
    redfish_bios.check_settings({"NumCores": "12", "Knob": "b"}, CURRENT,
                                {})


def _system(staged: bool):
    """A system whose BIOS stages changes until the node reboots."""
    attrs = dict(CURRENT)
    bios = mock.Mock(attributes=attrs)
    bios.get_attribute_registry.return_value = None
    system = mock.Mock(bios=bios)
    staged_values = {}

    def set_attributes(changes):
        (staged_values if staged else attrs).update(changes)
    bios.set_attributes.side_effect = set_attributes
    return system, attrs, staged_values


def _task(power_state):
    node = types.SimpleNamespace(uuid="n1", id=1, power_state=power_state,
                                 driver_info={}, driver_internal_info={})
    power = mock.Mock()
    return types.SimpleNamespace(node=node,
                                 driver=types.SimpleNamespace(power=power))


@mock.patch.object(redfish_bios.node_settings, "replace_bios_settings")
def test_staged_changes_reboot_a_powered_node(cache):
    system, attrs, staged = _system(staged=True)
    task = _task(states.POWER_ON)
    task.driver.power.reboot.side_effect = lambda t: attrs.update(staged)
    with mock.patch.object(redfish_bios, "system_of", return_value=system):
        redfish_bios.RedfishBIOS().apply_configuration(
            task, [{"name": "Knob", "value": "b"}])
    task.driver.power.reboot.assert_called_once_with(task)
    assert redfish_bios.PENDING_KEY not in task.node.driver_internal_info
    names = [r["name"] for r in cache.call_args[0][1]]
    assert names == sorted(CURRENT)


@mock.patch.object(redfish_bios.node_settings, "replace_bios_settings")
def test_staged_changes_of_a_powered_off_node_stay_pending(cache):
    system, attrs, staged = _system(staged=True)
    task = _task(states.POWER_OFF)
    with mock.patch.object(redfish_bios, "system_of", return_value=system):
        bios = redfish_bios.RedfishBIOS()
        bios.apply_configuration(task, [{"name": "Knob", "value": "b"}])
        task.driver.power.reboot.assert_not_called()
        assert task.node.driver_internal_info[redfish_bios.PENDING_KEY] \
            == {"Knob": "b"}
        attrs.update(staged)  # the node booted
        bios.cache_bios_settings(task)
    assert redfish_bios.PENDING_KEY not in task.node.driver_internal_info


@mock.patch.object(redfish_bios.node_settings, "replace_bios_settings")
def test_values_already_set_are_not_sent(cache):
    system, _, _ = _system(staged=False)
    with mock.patch.object(redfish_bios, "system_of", return_value=system):
        redfish_bios.RedfishBIOS().apply_configuration(
            _task(states.POWER_OFF), [{"name": "Knob", "value": "a"},
                                      {"name": "NumCores", "value": 10}])
    system.bios.set_attributes.assert_not_called()
