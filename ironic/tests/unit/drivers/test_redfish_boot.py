"""redfish-virtual-media validation: every missing or wrong field is named."""

import types

import pytest

from ironic.common import exception
from ironic.drivers.modules import redfish_boot

GOOD = {"redfish_address": "http://bmc", "redfish_deploy_iso":
        "http://images/deploy.iso"}


def _task(driver_info, instance_info=None):
    return types.SimpleNamespace(node=types.SimpleNamespace(
        uuid="1be26c0b-03f2-4d2e-ae87-c02d7f33c123",
        driver_info=driver_info, instance_info=instance_info or {}))


def test_valid_node_passes():
    redfish_boot.RedfishVirtualMediaBoot().validate(
        _task(GOOD, {"boot_iso": "https://images/instance.iso"}))


@pytest.mark.parametrize("driver_info,instance_info,field,error", [
    ({"redfish_address": "http://bmc"}, {}, "redfish_deploy_iso",
     exception.MissingParameterValue),
    ({"redfish_address": "http://bmc"}, {}, "driver_info/deploy_kernel",
     exception.MissingParameterValue),
    ({"redfish_address": "http://bmc", "deploy_iso": "ftp://x/d.iso"}, {},
     "driver_info/deploy_iso", exception.InvalidParameterValue),
    (dict(GOOD, redfish_deploy_iso="/local/deploy.iso"), {},
     "redfish_deploy_iso", exception.InvalidParameterValue),
    (GOOD, {"boot_iso": "nfs://x/y.iso"}, "instance_info/boot_iso",
     exception.InvalidParameterValue),
    ({"redfish_deploy_iso": "http://x/d.iso"}, {}, "redfish_address",
     exception.MissingParameterValue),
])
def test_bad_fields_are_named(driver_info, instance_info, field, error):
    with pytest.raises(error) as err:
        redfish_boot.RedfishVirtualMediaBoot().validate(
            _task(driver_info, instance_info))
    assert field in str(err.value)


def test_properties_name_the_ramdisk_sources():
    props = redfish_boot.RedfishVirtualMediaBoot().get_properties()
    for key in ("deploy_kernel", "deploy_ramdisk", "deploy_iso"):
        assert "Required" in props[key]
    assert "deploy_iso" in props["redfish_deploy_iso"]
    assert "bootloader" in props
