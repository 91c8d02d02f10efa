"""The public RAID configuration schema and what it tells the drivers
API."""

from __future__ import annotations

import copy

import pytest

from ironic.common import exception, raid

DISK = {"size_gb": 100, "raid_level": "1+0", "is_root_volume": True}


def test_a_full_configuration_is_valid():
    raid.validate_configuration({"logical_disks": [
        dict(DISK, volume_name="root", share_physical_disks=False,
             disk_type="hdd", interface_type="sas",
             number_of_physical_disks=4, controller="RAID.Integrated.1-1",
             physical_disks=["Disk.0", "Disk.1", "Disk.2", "Disk.3"]),
        {"size_gb": "MAX", "raid_level": "JBOD"}]})


@pytest.mark.parametrize("change,where", [
    ({"number_of_physical_disks": 0}, "number_of_physical_disks"),
    ({"disk_type": "nvme"}, "disk_type"),
    ({"interface_type": "usb"}, "interface_type"),
    ({"size_gb": -1}, "size_gb"),
    ({"volume_name": 5}, "volume_name"),
])
def test_errors_are_the_references_words(change, where):
    with pytest.raises(exception.InvalidParameterValue) as err:
        raid.validate_configuration({"logical_disks": [dict(DISK,
                                                            **change)]})
    assert str(err.value).startswith("RAID config validation error: ")
    assert repr(change[where]) in str(err.value)


def test_an_interface_may_extend_the_schema():
    schema = copy.deepcopy(raid.RAID_CONFIG_SCHEMA)
    disk = schema["properties"]["logical_disks"]["items"]
    disk["properties"]["cache"] = {"type": "string",
                                   "description": "Cache policy."}
    raid.validate_configuration({"logical_disks": [dict(DISK, cache="wb")]},
                                schema)
    with pytest.raises(exception.InvalidParameterValue):
        raid.validate_configuration(
            {"logical_disks": [dict(DISK, cache="wb")]})
    props = raid.logical_disk_properties(schema)
    assert props["cache"] == "Cache policy."
    assert "cache" not in raid.logical_disk_properties()
