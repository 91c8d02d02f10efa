"""The ipmi and redfish hardware types compose their BMC interfaces."""

import types

from ironic import driver_registry
from ironic.drivers.modules import ipmitool
from ironic.tests import fixtures as ifx


def test_ipmi_node_gets_ipmitool_power_management_and_vendor(config):
    ifx.configure_test_drivers(
        config, hardware_types=["ipmi"], power=["ipmitool"],
        management=["ipmitool"], vendor=["ipmitool", "no-vendor"])
    try:
        registry = driver_registry.load()
        values = {f"{k}_interface": None
                  for k in driver_registry.INTERFACE_TYPES}
        node = types.SimpleNamespace(driver="ipmi", uuid="u-1", **values)
        driver = registry.build_driver(node)
        assert isinstance(driver.power, ipmitool.IPMIPower)
        assert isinstance(driver.management, ipmitool.IPMIManagement)
        assert isinstance(driver.vendor, ipmitool.VendorPassthru)
        hw = registry.hardware_type("ipmi")
        assert hw.defaults["power"] == "ipmitool"
        assert "ipmi_address" in driver.power.get_properties()
    finally:
        driver_registry.reset()


def test_redfish_node_gets_redfish_power_and_management(config):
    from ironic.drivers.modules import redfish_management, redfish_power
    ifx.configure_test_drivers(config, hardware_types=["redfish"],
                               power=["redfish"], management=["redfish"])
    try:
        registry = driver_registry.load()
        values = {f"{k}_interface": None
                  for k in driver_registry.INTERFACE_TYPES}
        driver = registry.build_driver(types.SimpleNamespace(
            driver="redfish", uuid="u-2", **values))
        assert isinstance(driver.power, redfish_power.RedfishPower)
        assert isinstance(driver.management,
                          redfish_management.RedfishManagement)
        assert "redfish_address" in driver.power.get_properties()
    finally:
        driver_registry.reset()


def test_redfish_type_offers_virtual_media_boot(config):
    from ironic.drivers.modules import redfish_boot
    ifx.configure_test_drivers(
        config, hardware_types=["redfish"], power=["redfish"],
        management=["redfish"], boot=["fake", "redfish-virtual-media"])
    try:
        registry = driver_registry.load()
        values = {f"{k}_interface": None
                  for k in driver_registry.INTERFACE_TYPES}
        values["boot_interface"] = "redfish-virtual-media"
        driver = registry.build_driver(types.SimpleNamespace(
            driver="redfish", uuid="u-3", **values))
        assert isinstance(driver.boot, redfish_boot.RedfishVirtualMediaBoot)
    finally:
        driver_registry.reset()
