"""redfish RAID: logical disk checks and volume sizes (sushy mocked)."""

from unittest import mock

import pytest

from ironic.common import exception
from ironic.drivers.modules import redfish_raid as rr

GiB = rr.GiB


@pytest.mark.parametrize("config,named", [
    ({}, "logical_disks"),
    ({"logical_disks": []}, "logical_disks"),
    ({"logical_disks": [{"size_gb": 1, "raid_level": "7"}]}, "raid_level"),
    ({"logical_disks": [{"size_gb": 0, "raid_level": "1"}]}, "size_gb"),
    ({"logical_disks": [{"size_gb": True, "raid_level": "1"}]}, "size_gb"),
    ({"logical_disks": [{"size_gb": "10", "raid_level": "1"}]}, "size_gb"),
])
def test_bad_configs_name_the_field(config, named):
    with pytest.raises(exception.InvalidParameterValue) as err:
        rr.check_logical_disks(config)
    assert named in str(err.value)


def _storage(*sizes_gib):
    return mock.Mock(drives=[mock.Mock(capacity_bytes=s * GiB)
                             for s in sizes_gib])


@pytest.mark.parametrize("level,sizes,expected_gib", [
    ("0", (100, 200), 200), ("1", (100, 200), 100), ("5", (100,) * 4, 300),
    ("6", (100,) * 4, 200), ("1+0", (100,) * 4, 200)])
def test_max_uses_the_smallest_drive_and_the_data_drives(level, sizes,
                                                        expected_gib):
    disk = {"size_gb": "MAX", "raid_level": level}
    assert rr._capacity(_storage(*sizes), disk) == expected_gib * GiB


def test_too_few_drives_is_refused():
    with pytest.raises(exception.InvalidParameterValue) as err:
        rr._capacity(_storage(100, 100), {"size_gb": 10, "raid_level": "5"})
    assert "needs 3 drives" in str(err.value)
