"""The ``redfish-virtual-media`` boot interface: ISO images over the BMC.

The BMC itself fetches an ISO from an HTTP(S) URL and presents it to the
machine as a CD; the machine is then told to boot from that CD. The agent
ramdisk (deployment, cleaning, inspection, servicing; rescue with the
``rescue_*`` fields) comes either

* prebuilt, from ``driver_info/deploy_iso`` (or the older
  ``redfish_deploy_iso``): kernel parameters cannot be passed to it, so it
  must find the service on its own; or
* built by the conductor for every boot from ``deploy_kernel`` and
  ``deploy_ramdisk`` (driver_info, else [conductor]), with the kernel
  parameters, the API URL and a pre-generated agent token inside, plus the
  EFI system partition image of ``bootloader`` for UEFI (see
  ``vmedia_image``), and served from ``[deploy]http_root``.

A bootable instance (the ``ramdisk`` deploy interface) is booted from
``instance_info/boot_iso`` every time. A whole-disk instance boots from its
disk, with no media left inserted.

``redfish-https`` boots the same ISOs through the BMC's UEFI HTTP boot
client (``HttpBootUri``) instead of a virtual CD.
"""

from __future__ import annotations

import logging
from typing import Any

import sushy

from ironic.common import boot_devices, exception, utils
from ironic.conf import CONF
from ironic.drivers import base
from ironic.drivers.modules import (
    pxe_info,
    redfish_client,
    redfish_vmedia,
    vmedia_image,
)
from ironic.drivers.modules.redfish_client import system_of
from ironic.drivers.periodic import periodic
from ironic.objects.node import Node
from ironic.task import Task

LOG = logging.getLogger(__name__)

PROPERTIES = {
    "deploy_kernel": "URL (http, https or file) of the kernel of the deploy "
                     "ramdisk; the conductor builds the ISO the BMC boots "
                     "from it. Required unless deploy_iso is set.",
    "deploy_ramdisk": "URL of the deploy ramdisk (initramfs with the "
                      "agent). Required unless deploy_iso is set.",
    "deploy_iso": "URL (http or https) of a prebuilt ISO of the deploy "
                  "ramdisk the BMC inserts as is. Required unless "
                  "deploy_kernel and deploy_ramdisk are set.",
}
OPTIONAL_PROPERTIES = {
    "redfish_deploy_iso": "Older name of deploy_iso.",
    "bootloader": "URL of the EFI system partition image (FAT, with "
                  "EFI/BOOT/BOOTX64.EFI) put into the built ISO for UEFI "
                  "boot; [conductor]bootloader when unset.",
    "kernel_append_params": "Kernel parameters of the built ISO, replacing "
                            "[redfish]kernel_append_params; %default% "
                            "stands for that option's value.",
    "external_http_url": "Base URL the BMC downloads built images from, "
                         "replacing [deploy]external_http_url and "
                         "http_url.",
    "rescue_kernel": "URL of the kernel of the rescue ramdisk. Required "
                     "for rescue unless rescue_iso is set.",
    "rescue_ramdisk": "URL of the rescue ramdisk. Required for rescue "
                      "unless rescue_iso is set.",
    "rescue_iso": "URL of a prebuilt rescue ISO.",
}


def check_iso_url(value: Any, field: str) -> str:
    return redfish_vmedia.check_url(value, field)


def prebuilt_iso(node: Any, mode: str) -> str | None:
    """The URL of the node's prebuilt ``mode`` ISO, None when it has none."""
    info = node.driver_info or {}
    for key in (f"{mode}_iso", f"redfish_{mode}_iso"):
        if info.get(key) is not None:
            return check_iso_url(info[key], f"driver_info/{key}")
    return None


def check_ramdisk(node: Any, mode: str) -> str | None:
    """The prebuilt ISO of ``mode``, or None after checking that the
    conductor can build one; a 400 naming what to set otherwise."""
    iso = prebuilt_iso(node, mode)
    if iso is not None:
        return iso
    kernel, ramdisk = pxe_info.RAMDISK_IMAGES[mode]
    info = node.driver_info or {}
    if not (info.get(kernel) or getattr(CONF.conductor, kernel)) or \
            not (info.get(ramdisk) or getattr(CONF.conductor, ramdisk)):
        raise exception.MissingParameterValue(
            err=f"Node {node.uuid} cannot boot its {mode} ramdisk from "
                f"virtual media: set driver_info/{kernel} and "
                f"driver_info/{ramdisk} (the conductor builds the ISO), or "
                f"driver_info/{mode}_iso (or the older "
                f"redfish_{mode}_iso) to a prebuilt ISO.")
    vmedia_image.check_service(node)
    vmedia_image.check_images(node, mode)
    return None


def insert_cd(system, url: str) -> None:
    redfish_vmedia.insert(system, boot_devices.CDROM, url)


def eject_cd(system) -> int:
    return redfish_vmedia.eject(system, [boot_devices.CDROM])


def set_boot(system, target, persistent: bool) -> None:
    enabled = (sushy.BOOT_SOURCE_ENABLED_CONTINUOUS if persistent
               else sushy.BOOT_SOURCE_ENABLED_ONCE)
    redfish_client.call("boot device change",
                        system.set_system_boot_options, target,
                        enabled=enabled)


class RedfishVirtualMediaBoot(base.BootInterface):
    """Boot ramdisks and ISO instances from BMC virtual media."""

    capabilities = ("ramdisk_boot",)

    def get_properties(self) -> dict[str, str]:
        return {**PROPERTIES, **OPTIONAL_PROPERTIES}

    @staticmethod
    def _boot_iso(task: Task) -> str | None:
        value = (task.node.instance_info or {}).get("boot_iso")
        if value is None:
            return None
        return check_iso_url(value, "instance_info/boot_iso")

    def validate(self, task: Task) -> None:
        redfish_client.parse_driver_info(task.node.driver_info or {})
        check_ramdisk(task.node, "deploy")
        if self._boot_iso(task) is None and _builds_instance_iso(task.node):
            vmedia_image.check_service(task.node)
            vmedia_image.check_images(task.node, "instance")

    def instance_url(self, task: Task) -> str | None:
        """The ISO an instance boots from every time: instance_info/
        boot_iso, or one built from instance_info/kernel and ramdisk for a
        ramdisk deployment; None for an instance booting from its disk."""
        url = self._boot_iso(task)
        if url is not None:
            return url
        node = task.node
        if not _builds_instance_iso(node):
            vmedia_image.unpublish(node.uuid)
            return None
        return vmedia_image.build_and_publish(
            task, "instance", vmedia_image.instance_kernel_params(node))

    def validate_inspection(self, task: Task) -> None:
        self.validate(task)

    def validate_rescue(self, task: Task) -> None:
        redfish_client.parse_driver_info(task.node.driver_info or {})
        check_ramdisk(task.node, "rescue")

    def ramdisk_url(self, task: Task, ramdisk_params: dict) -> str:
        """The URL of the ISO the node's ramdisk boots from: the prebuilt
        one, or one built now with a new agent token."""
        node = task.node
        mode = pxe_info.ramdisk_mode(node)
        iso = check_ramdisk(node, mode)
        if iso is not None:
            return iso
        params = dict(ramdisk_params or {})
        params.setdefault("ipa-api-url", _api_url())
        if CONF.debug:
            params.setdefault("ipa-debug", "1")
        # The agent finds its configuration on the media it booted from.
        params["boot_method"] = "vmedia"
        # The token travels on the ISO; lookup will not reveal it.
        params["ipa-agent-token"] = vmedia_image.issue_token(task)
        return vmedia_image.build_and_publish(
            task, mode, vmedia_image.kernel_params(node, params))

    def prepare_ramdisk(self, task: Task, ramdisk_params: dict) -> None:
        url = self.ramdisk_url(task, ramdisk_params)
        system = system_of(task)
        insert_cd(system, url)
        self.set_ramdisk_boot(system, url)
        LOG.info("Node %s: deploy ISO %s inserted, next boot from CD",
                 getattr(task.node, "uuid", "?"), url)

    def set_ramdisk_boot(self, system, url: str) -> None:
        set_boot(system, sushy.BOOT_SOURCE_TARGET_CD, persistent=False)

    def clean_up_ramdisk(self, task: Task) -> None:
        eject_cd(system_of(task))
        vmedia_image.unpublish(task.node.uuid)

    def prepare_instance(self, task: Task) -> None:
        url = self.instance_url(task)
        system = system_of(task)
        if url:
            insert_cd(system, url)
            set_boot(system, sushy.BOOT_SOURCE_TARGET_CD, persistent=True)
            return
        eject_cd(system)
        set_boot(system, sushy.BOOT_SOURCE_TARGET_HDD, persistent=True)

    def clean_up_instance(self, task: Task) -> None:
        eject_cd(system_of(task))
        vmedia_image.unpublish(task.node.uuid)

    @periodic(spacing=3600, run_immediately=True)
    def remove_stale_images(self, manager: Any, context: Any) -> None:
        """Remove the ISOs of deleted nodes and of interrupted builds."""
        removed = vmedia_image.remove_stale(_node_exists, min_age=600)
        if removed:
            LOG.info("Removed stale virtual media images: %s",
                     ", ".join(removed))


#: driver_internal_info key of the URL the BMC boots over UEFI HTTP.
HTTP_URL_KEY = "redfish_uefi_http_url"


class RedfishHttpsBoot(RedfishVirtualMediaBoot):
    """The ISO of ``redfish-virtual-media`` booted by the BMC's UEFI HTTP
    boot client instead of a virtual CD: the boot override is set to
    ``UefiHttp`` with the ISO's URL as ``HttpBootUri`` (https when the
    URL is). Nothing is inserted; the BMC must list ``UefiHttp`` among its
    boot targets."""

    def prepare_ramdisk(self, task: Task, ramdisk_params: dict) -> None:
        url = self.ramdisk_url(task, ramdisk_params)
        self._boot_url(task, url, persistent=False)
        LOG.info("Node %s: next boot over UEFI HTTP from %s",
                 task.node.uuid, url)

    def _boot_url(self, task: Task, url: str, persistent: bool) -> None:
        system = system_of(task)
        allowed = [getattr(v, "value", v)
                   for v in getattr(system.boot, "allowed_values", None) or []]
        if sushy.BOOT_SOURCE_TARGET_UEFI_HTTP.value not in allowed:
            raise exception.InvalidParameterValue(
                err=f"Node {task.node.uuid}: the BMC does not offer UEFI "
                    f"HTTP boot (UefiHttp is not among its boot targets); "
                    f"use the redfish-virtual-media boot interface.")
        enabled = (sushy.BOOT_SOURCE_ENABLED_CONTINUOUS if persistent
                   else sushy.BOOT_SOURCE_ENABLED_ONCE)
        redfish_client.call("UEFI HTTP boot setting",
                            system.set_system_boot_options,
                            sushy.BOOT_SOURCE_TARGET_UEFI_HTTP,
                            enabled=enabled, http_boot_uri=url)
        _set_internal(task.node, HTTP_URL_KEY, url)

    def clean_up_ramdisk(self, task: Task) -> None:
        vmedia_image.unpublish(task.node.uuid)
        _set_internal(task.node, HTTP_URL_KEY, None)

    def prepare_instance(self, task: Task) -> None:
        url = self.instance_url(task)
        if url:
            self._boot_url(task, url, persistent=True)
            return
        _set_internal(task.node, HTTP_URL_KEY, None)
        set_boot(system_of(task), sushy.BOOT_SOURCE_TARGET_HDD,
                 persistent=True)

    def clean_up_instance(self, task: Task) -> None:
        self.clean_up_ramdisk(task)


def _set_internal(node: Any, key: str, value: Any) -> None:
    info = dict(node.driver_internal_info or {})
    if value is None:
        if info.pop(key, None) is None:
            return
    else:
        info[key] = value
    node.driver_internal_info = info
    if hasattr(node, "save"):
        node.save()


def _builds_instance_iso(node: Any) -> bool:
    """Whether the instance is a ramdisk deployment from instance_info/
    kernel and ramdisk (the conductor builds its ISO)."""
    info = node.instance_info or {}
    return getattr(node, "deploy_interface", None) == "ramdisk" and bool(
        info.get("kernel") or info.get("ramdisk"))


def _api_url() -> str:
    return utils.ramdisk_api_url()


def _node_exists(uuid: str) -> bool:
    try:
        Node.get(uuid)
    except exception.NodeNotFound:
        return False
    return True
