"""The redfish-virtual-media boot interface against the Redfish emulator:
after each call the emulator's own CD drive and boot override are read."""

from __future__ import annotations

import pytest
import sushy

from ironic.common import exception
from ironic.drivers.modules import redfish_boot
from ironic.tests.emulators.launch import RedfishEmulator
from ironic.tests.functional.redfish_helpers import (
    ImageServer,
    emulator_cd,
    emulator_system,
    make_task,
)


@pytest.fixture(scope="module")
def emulator():
    with RedfishEmulator(count=2, user="admin", password="pw") as emu:
        yield emu


@pytest.fixture(scope="module")
def images():
    with ImageServer() as server:
        yield server


@pytest.fixture
def task(emulator, images, config):
    config("redfish", connection_retry_interval=0, connection_attempts=1)
    return make_task(emulator, redfish_deploy_iso=images.url("deploy.iso"))


def test_ramdisk_is_inserted_booted_once_and_ejected(emulator, task,
                                                     images):
    boot = redfish_boot.RedfishVirtualMediaBoot()
    boot.validate(task)
    boot.prepare_ramdisk(task, {})
    cd = emulator_cd(emulator)
    assert cd.inserted is True
    assert cd.image == images.url("deploy.iso")
    assert emulator_system(emulator).boot.target == \
        sushy.BOOT_SOURCE_TARGET_CD
    # The other system's drive is untouched.
    assert emulator_cd(emulator, 1).inserted is False
    boot.clean_up_ramdisk(task)
    cd = emulator_cd(emulator)
    assert cd.inserted is False
    assert not cd.image


def test_instance_iso_replaces_the_ramdisk(emulator, task, images):
    boot = redfish_boot.RedfishVirtualMediaBoot()
    boot.prepare_ramdisk(task, {})
    task.node.instance_info = {"boot_iso": images.url("boot.iso")}
    boot.prepare_instance(task)
    assert emulator_cd(emulator).image == images.url("boot.iso")
    assert emulator_system(emulator).boot.target == \
        sushy.BOOT_SOURCE_TARGET_CD
    boot.clean_up_instance(task)
    assert emulator_cd(emulator).inserted is False


def test_whole_disk_instance_boots_from_disk_without_media(emulator, task):
    boot = redfish_boot.RedfishVirtualMediaBoot()
    boot.prepare_ramdisk(task, {})
    boot.prepare_instance(task)
    assert emulator_cd(emulator).inserted is False
    assert emulator_system(emulator).boot.target == \
        sushy.BOOT_SOURCE_TARGET_HDD


def test_unreachable_iso_is_an_error_and_nothing_is_left(emulator, task,
                                                         images):
    task.node.driver_info["redfish_deploy_iso"] = images.url("missing.iso")
    with pytest.raises(exception.IronicException) as err:
        redfish_boot.RedfishVirtualMediaBoot().prepare_ramdisk(task, {})
    assert "virtual media insert failed" in str(err.value)
    assert emulator_cd(emulator).inserted is False
