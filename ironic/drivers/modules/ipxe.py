"""The ``ipxe`` boot interface: iPXE scripts, kernels and ramdisks over
HTTP.

Firmware without iPXE gets an iPXE image over TFTP first
(``[pxe]ipxe_bootfile_name`` or ``uefi_ipxe_bootfile_name``); iPXE then
fetches ``boot.ipxe`` from ``[deploy]http_url``, which chains to the
node's script, linked as ``pxelinux.cfg/<mac with dashes>`` under
``[deploy]http_root``. The script downloads the kernel and ramdisk over
HTTP, which is much faster than TFTP for large ramdisks.

``boot.ipxe`` is written (and its directory created) when the first node
is prepared and rewritten whenever its template or the fallback script
option changed, so a fresh host needs no manual step.
"""

from __future__ import annotations

import os

from ironic.common import boot_devices, boot_modes, exception
from ironic.conf import CONF
from ironic.drivers.modules import boot_config, pxe, pxe_base, pxe_info
from ironic.task import Task

BOOT_SCRIPT = "boot.ipxe"
#: Under http_root, on the file system of the node links it serves.
MASTER_SUBDIR = "master_images"


def boot_script_text() -> str:
    """The rendered boot.ipxe."""
    template = boot_config.load_template(CONF.pxe.ipxe_boot_script,
                                         "boot_ipxe.template")
    fallback = CONF.pxe.ipxe_fallback_script
    line = (f"chain --autofree {fallback} || echo Fallback script "
            f"{fallback} failed." if fallback else
            "# No fallback script ([pxe]ipxe_fallback_script) is set.")
    return boot_config.render(template, {
        "config_dir": CONF.pxe.pxe_config_subdir, "fallback": line})


class iPXEBoot(pxe_base.NetworkBoot):  # noqa: N801 - the public class name
    """Network boot with iPXE over HTTP."""

    def root(self) -> str:
        return CONF.deploy.http_root

    def master_dir(self) -> str | None:
        # An empty tftp_master_path disables caching for both interfaces.
        if not CONF.pxe.tftp_master_path:
            return None
        return os.path.join(CONF.deploy.http_root, MASTER_SUBDIR)

    def check_service(self) -> None:
        if not CONF.deploy.http_url or not CONF.deploy.http_root:
            raise exception.MissingParameterValue(
                err="iPXE boot needs the conductor host's HTTP server: set "
                    "[deploy]http_url and [deploy]http_root.")

    def prepare_common(self) -> None:
        path = os.path.join(CONF.deploy.http_root, BOOT_SCRIPT)
        boot_config.write_if_changed(path, boot_script_text())

    def config_text(self, task: Task, kernel: str, ramdisk: str,
                    params: str) -> str:
        uuid = task.node.uuid
        base_url = f"{CONF.deploy.http_url.rstrip('/')}/{uuid}/"
        timeout = CONF.pxe.ipxe_timeout
        template = boot_config.load_template(CONF.pxe.ipxe_config_template,
                                             "ipxe_config.template")
        return boot_config.render(template, {
            "node_uuid": uuid, "kernel": base_url + kernel,
            "ramdisk": base_url + ramdisk, "ramdisk_name": ramdisk,
            "kernel_params": params,
            "fetch_options": f"--timeout {timeout * 1000} " if timeout
            else ""})

    def mac_links(self, mac: str) -> list[str]:
        return [os.path.join(CONF.deploy.http_root,
                             CONF.pxe.pxe_config_subdir,
                             mac.replace(":", "-"))]

    def dhcp_options(self, task: Task) -> list[dict]:
        uefi = pxe_info.boot_mode(task.node) == boot_modes.UEFI
        chainload = (CONF.pxe.uefi_ipxe_bootfile_name if uefi
                     else CONF.pxe.ipxe_bootfile_name)
        options = pxe.tftp_options(chainload)
        # Clients that already run iPXE get the script instead.
        options[0] = dict(options[0], opt_name="tag:!ipxe,67")
        script = f"{CONF.deploy.http_url.rstrip('/')}/{BOOT_SCRIPT}"
        options.append({"opt_name": "tag:ipxe,67", "opt_value": script,
                        "ip_version": 4})
        return options


class iPXEHttpBoot(iPXEBoot):  # noqa: N801 - the public class name
    """iPXE loaded by UEFI HTTP boot instead of TFTP: DHCP hands the
    firmware's HTTP client the URL of ``[pxe]uefi_ipxe_bootfile_name``
    under ``[deploy]http_url`` (the operator puts the iPXE EFI image in
    ``http_root``); iPXE then chains to ``boot.ipxe`` and the node's
    script as with ``ipxe``."""

    boot_device = boot_devices.UEFIHTTP

    def _validate_ramdisk(self, task: Task, mode: str) -> None:
        super()._validate_ramdisk(task, mode)
        pxe_base.require_uefi_http(task, "http-ipxe", "ipxe")

    def dhcp_options(self, task: Task) -> list[dict]:
        options = [dict(option, opt_name=f"tag:!ipxe,{option['opt_name']}")
                   for option in pxe.http_options(
                       CONF.pxe.uefi_ipxe_bootfile_name)]
        script = f"{CONF.deploy.http_url.rstrip('/')}/{BOOT_SCRIPT}"
        options.append({"opt_name": "tag:ipxe,67", "opt_value": script,
                        "ip_version": 4})
        return options
