"""The fake interfaces behave like the public ones operators script."""

import types

import pytest

from ironic.common import exception, states
from ironic.drivers.modules import fake


def _task(**node):
    values = {"driver": "fake-hardware", "uuid": "u", "power_state": None,
              "driver_internal_info": {}, "raid_config": {},
              "target_raid_config": {}}
    values.update(node)
    return types.SimpleNamespace(node=types.SimpleNamespace(**values))


@pytest.mark.parametrize("target,result", [
    (states.POWER_ON, states.POWER_ON), (states.REBOOT, states.POWER_ON),
    (states.SOFT_POWER_OFF, states.POWER_OFF),
    (states.POWER_OFF, states.POWER_OFF)])
def test_power_state_is_kept_on_the_node(target, result):
    task = _task(power_state=states.POWER_OFF)
    power = fake.FakePower()
    power.set_power_state(task, target)
    assert power.get_power_state(task) == result


def test_power_rejects_unknown_state():
    with pytest.raises(exception.InvalidParameterValue):
        fake.FakePower().set_power_state(_task(), "sideways")


def test_boot_device_round_trip():
    task = _task()
    mgmt = fake.FakeManagement()
    mgmt.set_boot_device(task, "disk", persistent=True)
    assert mgmt.get_boot_device(task) == {"boot_device": "disk",
                                          "persistent": True}
    with pytest.raises(exception.InvalidParameterValue):
        mgmt.set_boot_device(task, "floppy")


def test_bios_steps_match_the_public_ones():
    bios = fake.FakeBIOS()
    clean = {s["step"]: s for s in bios.get_clean_steps(_task())}
    assert set(clean) == {"apply_configuration", "factory_reset"}
    assert clean["factory_reset"] == {
        "interface": "bios", "step": "factory_reset", "priority": 0,
        "argsinfo": None, "abortable": False, "requires_ramdisk": False}
    assert clean["apply_configuration"]["argsinfo"]["settings"]["required"]
    deploy = {s["step"] for s in bios.get_deploy_steps(_task())}
    assert deploy == {"apply_configuration", "factory_reset"}


def test_bios_apply_checks_settings():
    bios = fake.FakeBIOS()
    step = {"step": "apply_configuration", "args": {"settings": [{"x": 1}]}}
    with pytest.raises(exception.InvalidParameterValue):
        bios.execute_clean_step(_task(), step)
    step["args"]["settings"] = [{"name": "a", "value": "b"}]
    assert bios.execute_clean_step(_task(), step) is None


def test_deploy_has_the_deploy_step_at_100():
    steps = fake.FakeDeploy().get_deploy_steps(_task())
    assert steps == [{"interface": "deploy", "step": "deploy",
                      "priority": 100, "argsinfo": None,
                      "requires_ramdisk": True}]


def test_raid_create_and_delete_configuration():
    target = {"logical_disks": [
        {"size_gb": 10, "raid_level": "1", "is_root_volume": True},
        {"size_gb": 20, "raid_level": "0"}]}
    task = _task(target_raid_config=target)
    raid = fake.FakeRAID()
    raid.execute_clean_step(task, {"step": "create_configuration",
                                   "args": {"create_nonroot_volumes": False}})
    assert task.node.raid_config == {"logical_disks": [
        target["logical_disks"][0]]}
    raid.execute_clean_step(task, {"step": "delete_configuration"})
    assert task.node.raid_config == {}


def test_unknown_step_is_refused():
    with pytest.raises(exception.InvalidParameterValue):
        fake.FakeBIOS().execute_clean_step(_task(), {"step": "format_c"})


def test_delay_parsing(config):
    config("fake", power_delay="2")
    assert fake.delay_seconds("power") == 2.0
    config("fake", power_delay="1,3")
    assert 1.0 <= fake.delay_seconds("power") <= 3.0
    config("fake", power_delay="soon")
    with pytest.raises(exception.InvalidParameterValue):
        fake.delay_seconds("power")


def test_vendor_routes():
    routes = fake.FakeVendor.vendor_routes
    assert routes["second_method"][1].public() == {
        "http_methods": ["POST", "GET"], "async": False,
        "description": "Return the value of bar.", "attach": False,
        "require_exclusive_lock": True}
    assert "driver_echo" in fake.FakeVendor.driver_routes
    with pytest.raises(exception.MissingParameterValue):
        fake.FakeVendor().validate(_task(), method="first_method")


def _vendor_task():
    task = _task(power_state=states.POWER_ON)
    task.driver = types.SimpleNamespace(vendor=fake.FakeVendor())
    return task


def test_passthru_call_sync_and_validation():
    from ironic.drivers import passthru
    task = _vendor_task()
    call, route = passthru.call_node(task, "second_method", "get",
                                     {"bar": 3})
    assert route.async_ is False
    assert call() == {"bar": 3, "http_method": "get"}
    with pytest.raises(exception.MissingParameterValue):
        passthru.call_node(task, "second_method", "POST", {})
    with pytest.raises(exception.InvalidParameterValue) as e:
        passthru.call_node(task, "first_method", "DELETE", {"bar": 1})
    assert "POST" in str(e.value)
    with pytest.raises(exception.InvalidParameterValue) as e:
        passthru.call_node(task, "nope", "POST", {})
    assert "first_method" in str(e.value)


def test_driver_passthru_call():
    from ironic.drivers import passthru
    call, route = passthru.call_driver(fake.FakeVendor(), None,
                                       "driver_echo", "POST", {"a": 1})
    assert call() == {"http_method": "POST", "args": {"a": 1}}
