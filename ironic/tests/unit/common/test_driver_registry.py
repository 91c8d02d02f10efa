"""Loading plugins from entry points and composing node drivers."""

import types

import pytest

from ironic import driver_registry
from ironic.common import exception
from ironic.drivers.modules import fake, noop
from ironic.tests import fixtures as ifx


@pytest.fixture
def drivers(config):
    ifx.configure_test_drivers(config)
    yield config
    driver_registry.reset()


def _node(**kw):
    values = {f"{k}_interface": None for k in driver_registry.INTERFACE_TYPES}
    values.update(driver="fake-hardware", uuid="u-1")
    values.update(kw)
    return types.SimpleNamespace(**values)


def test_interfaces_are_singletons_and_defaults_follow_priority(drivers):
    reg = driver_registry.load()
    hw = reg.hardware_type("fake-hardware")
    # fake first: the hardware type prefers it over no-bios.
    assert hw.defaults["bios"] == "fake"
    assert hw.enabled["bios"] == ["fake", "no-bios"]
    one = reg.build_driver(_node())
    two = reg.build_driver(_node(uuid="u-2"))
    assert one.power is two.power
    assert isinstance(one.power, fake.FakePower)
    assert driver_registry.load() is reg


def test_configured_default_wins_over_priority(drivers):
    drivers(default_bios_interface="no-bios")
    driver_registry.reset()
    hw = driver_registry.load().hardware_type("fake-hardware")
    assert hw.defaults["bios"] == "no-bios"


def test_default_not_enabled_refuses_start(drivers):
    drivers(default_raid_interface="fake", enabled_raid_interfaces=["no-raid"])
    driver_registry.reset()
    with pytest.raises(exception.DriverLoadError) as e:
        driver_registry.load()
    assert "default_raid_interface" in str(e.value)


def test_unknown_interface_refuses_start(drivers):
    drivers(enabled_power_interfaces=["fake", "ipmitool-typo"])
    driver_registry.reset()
    with pytest.raises(exception.DriverLoadError) as e:
        driver_registry.load()
    assert "ipmitool-typo" in str(e.value)


def test_unknown_hardware_type_refuses_start(drivers):
    drivers(enabled_hardware_types=["fake-hardware", "nope"])
    driver_registry.reset()
    with pytest.raises(exception.DriverLoadError) as e:
        driver_registry.load()
    assert "nope" in str(e.value)


def test_hardware_type_without_usable_power_refuses_start(drivers):
    # ipmi supports only ipmitool power, which is not enabled here.
    drivers(enabled_hardware_types=["fake-hardware", "ipmi"],
            enabled_management_interfaces=["fake", "ipmitool"])
    driver_registry.reset()
    with pytest.raises(exception.DriverLoadError) as e:
        driver_registry.load()
    assert "ipmi" in str(e.value) and "power" in str(e.value)


def test_disabled_interface_is_none_with_reason(drivers):
    reg = driver_registry.load()
    drv = reg.build_driver(_node(power_interface="gone"))
    assert drv.power is None
    assert "gone" in drv.disabled["power"]
    task = types.SimpleNamespace(node=_node(power_interface="gone"),
                                 driver=drv)
    report = driver_registry.validate_driver_interfaces(task)
    assert report["power"]["result"] is False
    assert report["management"] == {"result": True}
    assert "vendor" not in report


def test_no_interfaces_validate_as_unsupported(drivers):
    reg = driver_registry.load()
    node = _node(bios_interface="no-bios")
    task = types.SimpleNamespace(node=node, driver=reg.build_driver(node))
    assert isinstance(task.driver.bios, noop.NoBIOS)
    report = driver_registry.validate_driver_interfaces(task)
    assert report["bios"]["result"] is False
    assert "does not support bios" in report["bios"]["reason"]


def test_records_mark_one_default_per_interface_type(drivers):
    rows = driver_registry.load().records()
    defaults = [(r["interface_type"]) for r in rows if r["default"]]
    assert sorted(defaults) == sorted(driver_registry.INTERFACE_TYPES)
    assert {r["hardware_type"] for r in rows} == {"fake-hardware"}


def test_build_driver_for_task_sets_driver(drivers):
    task = types.SimpleNamespace(node=_node())
    driver_registry.build_driver_for_task(task)
    assert isinstance(task.driver.deploy, fake.FakeDeploy)


def test_unknown_driver_of_node(drivers):
    with pytest.raises(exception.DriverNotFound):
        driver_registry.build_driver(_node(driver="ipmi"))


def test_register_hardware_warns_about_differing_peers(database, config,
                                                       caplog):
    import logging

    from ironic.db import api as db_api
    ifx.register_test_conductor("peer")
    config(enabled_rescue_interfaces=["no-rescue"])
    driver_registry.reset()
    dbapi = db_api.get_instance()
    row = dbapi.register_conductor({"hostname": "me", "drivers": []})
    with caplog.at_level(logging.WARNING):
        driver_registry.register_hardware(row.id, "me")
    assert any("peer" in r.getMessage() and "rescue" in r.getMessage()
               for r in caplog.records)
    mine = dbapi.list_conductor_hardware_interfaces(row.id)
    assert {r["interface_name"] for r in mine
            if r["interface_type"] == "rescue"} == {"no-rescue"}


def test_register_hardware_warns_about_peers_with_other_defaults(
        database, config, caplog):
    import logging

    from ironic.db import api as db_api
    ifx.register_test_conductor("peer")
    # Same enabled interfaces, another default for new nodes.
    config(default_rescue_interface="no-rescue")
    driver_registry.reset()
    row = db_api.get_instance().register_conductor(
        {"hostname": "me", "drivers": []})
    with caplog.at_level(logging.WARNING):
        driver_registry.register_hardware(row.id, "me")
    messages = [r.getMessage() for r in caplog.records
                if r.levelno == logging.WARNING]
    assert len(messages) == 1, messages
    assert "default interfaces" in messages[0]
    assert "rescue: no-rescue here, fake there" in messages[0]


def test_register_hardware_is_quiet_when_peers_agree(database, caplog):
    import logging

    from ironic.db import api as db_api
    ifx.register_test_conductor("peer")
    row = db_api.get_instance().register_conductor(
        {"hostname": "me", "drivers": []})
    with caplog.at_level(logging.WARNING):
        driver_registry.register_hardware(row.id, "me")
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_conductor_starts_on_public_defaults(database, config):
    # An operator who only enables nothing gets ipmi and redfish with the
    # public defaults (network boot, agent deploy, agent RAID...): every
    # one of them loads and the conductor starts, with the defaults the
    # public service computes.
    from ironic.conductor import base_manager
    from ironic.conf import CONF
    from ironic.db import api as db_api
    for kind in ifx.TEST_INTERFACES:
        CONF.clear_override(f"enabled_{kind}_interfaces")
    CONF.clear_override("enabled_hardware_types")
    driver_registry.reset()
    conductor = base_manager.ConductorService()
    conductor.start()
    try:
        live = db_api.get_instance().list_live_hardware(60)
    finally:
        conductor.stop(timeout=5)
    defaults = {(r["hardware_type"], r["interface_type"]): r["interface_name"]
                for r in live if r["default"]}
    assert {hw for hw, _kind in defaults} == {"ipmi", "redfish"}
    expected = {
        "ipmi": {"boot": "ipxe", "deploy": "direct", "inspect": "agent",
                 "management": "ipmitool", "power": "ipmitool",
                 "raid": "no-raid", "rescue": "no-rescue",
                 "bios": "no-bios", "vendor": "ipmitool"},
        "redfish": {"boot": "ipxe", "deploy": "direct", "inspect": "redfish",
                    "management": "redfish", "power": "redfish",
                    "raid": "redfish", "rescue": "no-rescue",
                    "bios": "redfish", "vendor": "redfish"},
    }
    for hw, kinds in expected.items():
        assert {k: defaults[(hw, k)] for k in kinds} == kinds, hw
    enabled = {(r["hardware_type"], r["interface_type"], r["interface_name"])
               for r in live}
    assert ("ipmi", "raid", "agent") in enabled
    assert ("redfish", "boot", "redfish-virtual-media") in enabled
    assert ("ipmi", "boot", "redfish-virtual-media") not in enabled
