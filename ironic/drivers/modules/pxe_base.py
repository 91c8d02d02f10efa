"""What the ``pxe`` and ``ipxe`` boot interfaces share.

A node booting over the network gets, under the root its boot loader
reads from (``[pxe]tftp_root`` for PXE, ``[deploy]http_root`` for iPXE):

* ``<node uuid>/``: the kernel and ramdisk it boots next, hard links into
  the image cache, named by what they are (``deploy_kernel``,
  ``rescue_ramdisk``, ``kernel``...), and ``config``, the boot loader
  configuration booting them;
* links to ``<node uuid>/config`` named after the MAC address of each NIC
  it boots from, where the boot loader looks for them.

The node directory only ever holds the files of what ``config`` boots:
preparing the ramdisk removes the instance's files and the other way
round, so ``clean_up_ramdisk`` can tell whether the configuration is the
ramdisk's. Subclasses say where the files go and how the configuration
names them.
"""

from __future__ import annotations

import abc
import logging
import os

from ironic.common import boot_devices, boot_modes, dhcp, exception
from ironic.drivers import base
from ironic.drivers.modules import boot_config, image_cache, pxe_info
from ironic.task import Task

LOG = logging.getLogger(__name__)

CONFIG_NAME = "config"


class NetworkBoot(base.BootInterface):
    """Boot ramdisks (and ramdisk instances) from files the conductor
    serves; a deployed disk image boots from the disk."""

    capabilities = ("ramdisk_boot",)

    # --- what subclasses define ---------------------------------------------

    @abc.abstractmethod
    def root(self) -> str:
        """Directory the node's boot loader reads from."""

    @abc.abstractmethod
    def master_dir(self) -> str | None:
        """Directory of the image cache (None: no cache)."""

    @abc.abstractmethod
    def config_text(self, task: Task, kernel: str, ramdisk: str,
                    params: str) -> str:
        """The boot configuration booting the node's files ``kernel`` and
        ``ramdisk`` (labels) with kernel command line ``params``."""

    @abc.abstractmethod
    def mac_links(self, mac: str) -> list[str]:
        """Paths of the links the boot loader of NIC ``mac`` looks for."""

    @abc.abstractmethod
    def dhcp_options(self, task: Task) -> list[dict]:
        """What DHCP answers the node's boot NICs (see common.dhcp)."""

    def check_service(self) -> None:
        """MissingParameterValue when the configuration cannot serve."""

    #: The boot device the ramdisk (and a network-booted instance) boots
    #: from; see ``_network_boot_device``.
    boot_device = boot_devices.PXE

    def prepare_common(self) -> None:
        """Write what every node shares (before a node's files)."""

    # --- paths -----------------------------------------------------------------

    def node_dir(self, node_uuid: str) -> str:
        return os.path.join(self.root(), node_uuid)

    def node_file(self, node_uuid: str, label: str) -> str:
        return os.path.join(self.node_dir(node_uuid), label)

    def config_path(self, node_uuid: str) -> str:
        return self.node_file(node_uuid, CONFIG_NAME)

    # --- validation ----------------------------------------------------------

    def get_properties(self) -> dict[str, str]:
        return dict(pxe_info.PROPERTIES)

    def _validate_ramdisk(self, task: Task, mode: str) -> None:
        self.check_service()
        pxe_info.check_boot_nics(task)
        pxe_info.ramdisk_images(task.node, mode)
        pxe_info.boot_mode(task.node)
        pxe_info.persistence(task.node)
        dhcp.provider()

    def validate(self, task: Task) -> None:
        self._validate_ramdisk(task, "deploy")
        node = task.node
        if (node.instance_info or {}).get("image_source") and \
                (node.instance_info or {}).get("boot_iso"):
            raise exception.InvalidParameterValue(
                err=f"Node {node.uuid}: instance_info/image_source and "
                    f"instance_info/boot_iso cannot both be set.")
        if pxe_info.is_ramdisk_deploy(node):
            pxe_info.instance_images(node)

    def validate_inspection(self, task: Task) -> None:
        self._validate_ramdisk(task, "deploy")

    def validate_rescue(self, task: Task) -> None:
        self._validate_ramdisk(task, "rescue")

    # --- ramdisk -------------------------------------------------------------

    def prepare_ramdisk(self, task: Task, ramdisk_params: dict) -> None:
        node = task.node
        mode = pxe_info.ramdisk_mode(node)
        images = pxe_info.ramdisk_images(node, mode)
        params = pxe_info.ramdisk_kernel_params(node, ramdisk_params)
        self._place(task, images, params)
        _sync_boot_mode(task)
        _set_boot_device(task, self._network_boot_device(task),
                         pxe_info.persistence(node) == "Always")
        LOG.info("Node %s will boot its %s ramdisk over the network (%s)",
                 node.uuid, mode, self.config_path(node.uuid))

    def clean_up_ramdisk(self, task: Task) -> None:
        uuid = task.node.uuid
        if any(os.path.exists(self.node_file(uuid, label))
               for label in pxe_info.INSTANCE_IMAGES):
            # The configuration boots the instance: keep it.
            return
        self._remove_all(task)

    # --- instance ------------------------------------------------------------

    def prepare_instance(self, task: Task) -> None:
        node = task.node
        persistent = pxe_info.persistence(node) != "Never"
        if pxe_info.is_ramdisk_deploy(node):
            images = pxe_info.instance_images(node)
            params = pxe_info.instance_kernel_params(node)
            self._place(task, images, params)
            _set_boot_device(task, self._network_boot_device(task),
                             persistent)
            return
        # A disk image boots from the disk: nothing may answer its NICs
        # with a ramdisk any more.
        self._remove_all(task)
        _set_boot_device(task, boot_devices.DISK, persistent)

    def clean_up_instance(self, task: Task) -> None:
        self._remove_all(task)

    def _network_boot_device(self, task: Task) -> str:
        """``boot_device`` when the management interface can set it,
        else PXE (a BMC that cannot select UEFI HTTP boot explicitly
        still reaches it through its network boot order)."""
        if self.boot_device == boot_devices.PXE:
            return boot_devices.PXE
        try:
            supported = task.driver.management.get_supported_boot_devices(
                task)
        except exception.UnsupportedDriverExtension:
            supported = []
        if self.boot_device in supported:
            return self.boot_device
        LOG.info("Node %s: the management interface cannot select %s, "
                 "booting from the network (pxe) instead", task.node.uuid,
                 self.boot_device)
        return boot_devices.PXE

    # --- files -----------------------------------------------------------------

    def _place(self, task: Task, images: dict[str, str], params: str
               ) -> None:
        """Fetch ``images`` ({label: URL}, kernel first) into the node's
        directory and point its configuration and MAC links at them."""
        self.check_service()
        self.prepare_common()
        uuid = task.node.uuid
        cache = image_cache.boot_image_cache(self.master_dir())
        for label, url in images.items():
            cache.fetch(url, self.node_file(uuid, label))
        for label in pxe_info.ALL_IMAGES:
            if label not in images:
                boot_config.remove(self.node_file(uuid, label))
        kernel, ramdisk = images
        boot_config.write_file(self.config_path(uuid), self.config_text(
            task, kernel, ramdisk, params))
        for mac in pxe_info.boot_macs(task):
            for link in self.mac_links(mac):
                boot_config.relative_link(self.config_path(uuid), link)
        dhcp.provider().update_dhcp(task, self.dhcp_options(task))

    def _remove_all(self, task: Task) -> None:
        uuid = task.node.uuid
        for port in task.ports:
            if port.address:
                for link in self.mac_links(port.address.lower()):
                    boot_config.remove(link)
        for label in (CONFIG_NAME, *pxe_info.ALL_IMAGES):
            boot_config.remove(self.node_file(uuid, label))
        boot_config.remove_empty_dir(self.node_dir(uuid))
        try:
            dhcp.provider().clean_dhcp(task)
        except exception.InvalidParameterValue as e:
            # Nothing can have been configured through it either.
            LOG.debug("Node %s: no DHCP clean-up: %s", uuid, e)


def _set_boot_device(task: Task, device: str, persistent: bool) -> None:
    task.driver.management.set_boot_device(task, device,
                                           persistent=persistent)


def _sync_boot_mode(task: Task) -> None:
    """Switch the machine to the boot mode the node asks for, where the
    management interface can tell and change it."""
    wanted = pxe_info.requested_boot_mode(task.node)
    if wanted is None:
        return
    mgmt = task.driver.management
    try:
        current = mgmt.get_boot_mode(task)
    except exception.UnsupportedDriverExtension:
        return
    if current != wanted:
        LOG.info("Node %s: switching the boot mode from %s to %s",
                 task.node.uuid, current, wanted)
        mgmt.set_boot_mode(task, wanted)


def require_uefi_http(task: Task, interface: str, instead: str) -> None:
    """InvalidParameterValue unless the node boots UEFI: legacy BIOS
    firmware has no HTTP boot client. ``instead`` names the interfaces to
    use then."""
    if pxe_info.boot_mode(task.node) != boot_modes.UEFI:
        raise exception.InvalidParameterValue(
            err=f"Node {task.node.uuid}: the {interface} boot interface "
                f"needs UEFI; legacy BIOS firmware has no HTTP boot client "
                f"(use {instead}).")
