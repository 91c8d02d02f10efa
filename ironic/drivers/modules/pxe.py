"""The ``pxe`` boot interface: PXELINUX (legacy BIOS) or GRUB (UEFI) over
TFTP.

Files live under ``[pxe]tftp_root``; the image cache under
``[pxe]tftp_master_path``. The configuration is written with the template
of the node's boot mode and linked under the names each boot loader tries
for the booting NIC: ``pxelinux.cfg/01-<mac with dashes>`` (PXELINUX),
``grub.cfg-01-<mac with dashes>`` and ``<mac>.conf`` (GRUB).
"""

from __future__ import annotations

import os
from typing import Any

from ironic.common import boot_modes
from ironic.conf import CONF
from ironic.drivers.modules import boot_config, pxe_base, pxe_info


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

    def config_text(self, task: Any, kernel: str, ramdisk: str,
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

    def dhcp_options(self, task: Any) -> list[dict]:
        uefi = pxe_info.boot_mode(task.node) == boot_modes.UEFI
        return tftp_options(CONF.pxe.uefi_pxe_bootfile_name if uefi
                            else CONF.pxe.pxe_bootfile_name)
