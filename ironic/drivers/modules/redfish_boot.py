"""The ``redfish-virtual-media`` boot interface: ISO images over the BMC.

The BMC itself fetches an ISO from an HTTP(S) URL and presents it to the
machine as a CD; the machine is then told to boot from that CD. Two ISOs
are used:

* ``driver_info/redfish_deploy_iso``: the agent ramdisk, booted for
  deployment, cleaning, inspection and servicing;
* ``instance_info/boot_iso``: a bootable instance (the ``ramdisk`` deploy
  interface), booted from the CD every time.

A whole-disk instance boots from its disk, with no media left inserted.
Ramdisk kernel parameters cannot be passed to a prebuilt ISO, so the ISO
must find the service on its own (e.g. by its embedded configuration).
"""

from __future__ import annotations

import logging
from typing import Any

import sushy

from ironic.common import boot_devices, exception
from ironic.drivers import base
from ironic.drivers.modules import redfish_client, redfish_vmedia
from ironic.drivers.modules.redfish_power import system_of

LOG = logging.getLogger(__name__)

PROPERTIES = {
    "redfish_deploy_iso": "URL (http or https) of the ISO image of the "
                          "deploy ramdisk the BMC inserts as virtual media. "
                          "Required.",
}

def check_iso_url(value: Any, field: str) -> str:
    return redfish_vmedia.check_url(value, field)


def _call(what: str, func, *args, **kwargs):
    try:
        return func(*args, **kwargs)
    except sushy.exceptions.SushyError as e:
        raise exception.IronicException(
            f"Redfish {what} failed: {e}") from e


def insert_cd(system, url: str) -> None:
    redfish_vmedia.insert(system, boot_devices.CDROM, url)


def eject_cd(system) -> int:
    return redfish_vmedia.eject(system, [boot_devices.CDROM])


def set_boot(system, target, persistent: bool) -> None:
    enabled = (sushy.BOOT_SOURCE_ENABLED_CONTINUOUS if persistent
               else sushy.BOOT_SOURCE_ENABLED_ONCE)
    _call("boot device change", system.set_system_boot_options, target,
          enabled=enabled)


class RedfishVirtualMediaBoot(base.BootInterface):
    """Boot ramdisks and ISO instances from BMC virtual media."""

    capabilities = ("ramdisk_boot",)

    def get_properties(self) -> dict[str, str]:
        return dict(PROPERTIES)

    @staticmethod
    def _deploy_iso(task: Any) -> str:
        info = task.node.driver_info or {}
        return check_iso_url(info.get("redfish_deploy_iso"),
                             "driver_info/redfish_deploy_iso")

    @staticmethod
    def _boot_iso(task: Any) -> str | None:
        value = (task.node.instance_info or {}).get("boot_iso")
        if value is None:
            return None
        return check_iso_url(value, "instance_info/boot_iso")

    def validate(self, task: Any) -> None:
        redfish_client.parse_driver_info(task.node.driver_info or {})
        self._deploy_iso(task)
        self._boot_iso(task)

    def validate_inspection(self, task: Any) -> None:
        self.validate(task)

    def prepare_ramdisk(self, task: Any, ramdisk_params: dict) -> None:
        url = self._deploy_iso(task)
        system = system_of(task)
        insert_cd(system, url)
        set_boot(system, sushy.BOOT_SOURCE_TARGET_CD, persistent=False)
        LOG.info("Node %s: deploy ISO %s inserted, next boot from CD",
                 getattr(task.node, "uuid", "?"), url)

    def clean_up_ramdisk(self, task: Any) -> None:
        eject_cd(system_of(task))

    def prepare_instance(self, task: Any) -> None:
        url = self._boot_iso(task)
        system = system_of(task)
        if url:
            insert_cd(system, url)
            set_boot(system, sushy.BOOT_SOURCE_TARGET_CD, persistent=True)
            return
        eject_cd(system)
        set_boot(system, sushy.BOOT_SOURCE_TARGET_HDD, persistent=True)

    def clean_up_instance(self, task: Any) -> None:
        eject_cd(system_of(task))
