"""The ``pxe`` boot interface: PXELINUX (legacy BIOS) or GRUB (UEFI) over
TFTP.

Files live under ``[pxe]tftp_root``; the image cache under
``[pxe]tftp_master_path``. The configuration is written with the template
of the node's boot mode and linked under the names each boot loader tries
for the booting NIC: ``pxelinux.cfg/01-<mac with dashes>`` (PXELINUX),
``grub.cfg-01-<mac with dashes>`` and ``<mac>.conf`` (GRUB).

The ``http`` boot interface (UEFI HTTP boot) is the same GRUB boot with
every file under ``[deploy]http_root`` and downloaded over HTTP.
"""

from __future__ import annotations

import os

from ironic.common import boot_devices, boot_modes, exception
from ironic.conf import CONF
from ironic.drivers.modules import boot_config, pxe_base, pxe_info
from ironic.task import Task


def tftp_options(bootfile: str) -> list[dict]:
    """DHCP options pointing a PXE client at ``bootfile`` on our TFTP
    server."""
    server = CONF.pxe.tftp_server
    return [{"opt_name": name, "opt_value": value, "ip_version": 4}
            for name, value in (("67", bootfile), ("66", server),
                                ("150", server),
                                ("server-ip-address", server))]


class PXEBoot(pxe_base.NetworkBoot):
    """Network boot with the firmware's PXE client and TFTP."""

    def root(self) -> str:
        return CONF.pxe.tftp_root

    def master_dir(self) -> str | None:
        return CONF.pxe.tftp_master_path or None

    def config_text(self, task: Task, kernel: str, ramdisk: str,
                    params: str) -> str:
        uuid = task.node.uuid
        if pxe_info.boot_mode(task.node) == boot_modes.UEFI:
            # GRUB resolves paths from the root of the TFTP server.
            template = boot_config.load_template(
                CONF.pxe.uefi_pxe_config_template,
                "uefi_pxe_config.template")
            prefix = f"/{uuid}/"
        else:
            # PXELINUX resolves them from the directory of pxelinux.0.
            template = boot_config.load_template(
                CONF.pxe.pxe_config_template, "pxe_config.template")
            prefix = f"{uuid}/"
        return boot_config.render(template, {
            "node_uuid": uuid, "kernel": prefix + kernel,
            "ramdisk": prefix + ramdisk, "ramdisk_name": ramdisk,
            "kernel_params": params, "fetch_options": ""})

    def mac_links(self, mac: str) -> list[str]:
        root = CONF.pxe.tftp_root
        dashed = mac.replace(":", "-")
        return [os.path.join(root, CONF.pxe.pxe_config_subdir,
                             f"01-{dashed}"),
                os.path.join(root, f"grub.cfg-01-{dashed}"),
                os.path.join(root, f"{mac}.conf")]

    def dhcp_options(self, task: Task) -> list[dict]:
        uefi = pxe_info.boot_mode(task.node) == boot_modes.UEFI
        return tftp_options(CONF.pxe.uefi_pxe_bootfile_name if uefi
                            else CONF.pxe.pxe_bootfile_name)


class HttpBoot(PXEBoot):
    """UEFI HTTP boot of GRUB: the firmware's HTTP client downloads the
    boot loader from ``[deploy]http_url`` (DHCP hands it the URL), and
    GRUB reads its configuration, kernel and ramdisk over HTTP from the
    same server, ``[deploy]http_root``.

    GRUB loaded over HTTP has that server as its root device, so the
    configuration names the files by their path from ``http_root`` and is
    linked as ``grub.cfg-01-<mac with dashes>`` and ``<mac>.conf`` there.
    UEFI only: legacy BIOS firmware has no HTTP client.
    """

    boot_device = boot_devices.UEFIHTTP

    def root(self) -> str:
        return CONF.deploy.http_root

    def master_dir(self) -> str | None:
        if not CONF.pxe.tftp_master_path:
            return None
        return os.path.join(CONF.deploy.http_root, "master_images")

    def check_service(self) -> None:
        if not CONF.deploy.http_url or not CONF.deploy.http_root:
            raise exception.MissingParameterValue(
                err="UEFI HTTP boot needs the conductor host's HTTP server: "
                    "set [deploy]http_url and [deploy]http_root.")

    def _validate_ramdisk(self, task: Task, mode: str) -> None:
        super()._validate_ramdisk(task, mode)
        pxe_base.require_uefi_http(task, "http", "pxe or ipxe")

    def config_text(self, task: Task, kernel: str, ramdisk: str,
                    params: str) -> str:
        uuid = task.node.uuid
        template = boot_config.load_template(
            CONF.pxe.uefi_pxe_config_template, "uefi_pxe_config.template")
        return boot_config.render(template, {
            "node_uuid": uuid, "kernel": f"/{uuid}/{kernel}",
            "ramdisk": f"/{uuid}/{ramdisk}", "ramdisk_name": ramdisk,
            "kernel_params": params, "fetch_options": ""})

    def mac_links(self, mac: str) -> list[str]:
        root = CONF.deploy.http_root
        return [os.path.join(root, f"grub.cfg-01-{mac.replace(':', '-')}"),
                os.path.join(root, f"{mac}.conf")]

    def dhcp_options(self, task: Task) -> list[dict]:
        return http_options(CONF.pxe.uefi_pxe_bootfile_name)


def http_options(bootfile: str) -> list[dict]:
    """DHCP options pointing a UEFI HTTP boot client at ``bootfile`` under
    ``[deploy]http_url``: the URL as boot file name, and the vendor class
    the firmware expects in an HTTP boot answer."""
    url = f"{CONF.deploy.http_url.rstrip('/')}/{bootfile}"
    return [{"opt_name": "67", "opt_value": url, "ip_version": 4},
            {"opt_name": "60", "opt_value": "HTTPClient", "ip_version": 4}]
