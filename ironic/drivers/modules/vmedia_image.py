"""ISO images the conductor builds for virtual media and serves over HTTP.

When a node gives ``deploy_kernel``/``deploy_ramdisk`` (or the rescue
pair) instead of a prebuilt ISO, the virtual media boot interfaces build
one per node (``boot_iso.build``): the kernel, the ramdisk, the kernel
command line with the API URL and a pre-generated agent token
(``ipa-agent-token``), and a boot loader (the EFI system partition image
of ``driver_info/bootloader`` or ``[conductor]bootloader`` for UEFI,
ISOLINUX for legacy BIOS).

The image is published as ``<[deploy]http_root>/redfish/boot-<node
uuid>.iso`` and handed to the BMC as ``<base URL>/redfish/boot-<node
uuid>.iso``, the base URL being ``driver_info/external_http_url``, else
``[deploy]external_http_url``, else ``[deploy]http_url``. A node has at
most one such file: a new build replaces it atomically (so a BMC still
reading the old one is not cut short), ejecting the media removes it, and
``remove_stale`` removes those of nodes that no longer exist.

Kernels and ramdisks are downloaded through the network boot image cache
(one master copy per URL). Swift publishing (``[redfish]use_swift``) is
not supported; nodes that need a built ISO fail validation while it is
enabled, naming the option.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import tempfile
import time
from typing import Any, Callable

from ironic.common import agent_token, boot_iso, boot_modes, exception
from ironic.conf import CONF
from ironic.drivers.modules import image_cache, pxe_info
from ironic.task import Task

LOG = logging.getLogger(__name__)

#: Sub-directory of [deploy]http_root holding the published images.
IMAGE_SUBDIR = "redfish"
MASTER_SUBDIR = "master_images"
_NAME = re.compile(r"^boot-([0-9a-fA-F-]{36})\.iso$")
_DEBIAN_ISOLINUX = "/usr/lib/ISOLINUX/isolinux.bin"
_LDLINUX_PLACES = ("/usr/lib/syslinux/modules/bios/ldlinux.c32",
                   "/usr/share/syslinux/ldlinux.c32",
                   "/usr/lib/syslinux/ldlinux.c32")


def image_name(node_uuid: str) -> str:
    return f"boot-{node_uuid}.iso"


def publish_dir() -> str:
    return os.path.join(CONF.deploy.http_root, IMAGE_SUBDIR)


def image_path(node_uuid: str) -> str:
    return os.path.join(publish_dir(), image_name(node_uuid))


def base_url(node: Any) -> str | None:
    info = node.driver_info or {}
    return (info.get("external_http_url") or CONF.deploy.external_http_url
            or CONF.deploy.http_url)


def image_url(node: Any) -> str:
    # (publish() checked that the node has a base URL)
    return (f"{base_url(node).rstrip('/')}/"  # type: ignore[union-attr]
            f"{IMAGE_SUBDIR}/"
            f"{image_name(node.uuid)}")


# --- validation --------------------------------------------------------------


def bootloader_url(node: Any) -> str | None:
    """The EFI system partition image: the node's, else the conductor's."""
    return (node.driver_info or {}).get("bootloader") or \
        CONF.conductor.bootloader


def check_service(node: Any) -> None:
    """MissingParameterValue/InvalidParameterValue when this conductor
    cannot build and serve an ISO for ``node``."""
    if CONF.redfish.use_swift:
        raise exception.InvalidParameterValue(
            err=f"Node {node.uuid}: building a virtual media ISO from "
                f"deploy_kernel/deploy_ramdisk needs [redfish]use_swift = "
                f"false (images are served from [deploy]http_root; Swift "
                f"is not supported), or give driver_info/deploy_iso.")
    if not base_url(node) or not CONF.deploy.http_root:
        raise exception.MissingParameterValue(
            err=f"Node {node.uuid}: the ISO built for virtual media is "
                f"served over HTTP: set [deploy]http_url (or "
                f"external_http_url) and [deploy]http_root.")
    url = (node.driver_info or {}).get("external_http_url")
    if url is not None:
        image_cache.check_url(url, "driver_info/external_http_url")


def check_images(node: Any, mode: str) -> dict[str, str]:
    """{label: URL} of what the ISO of ``mode`` (``deploy``, ``rescue``,
    or ``instance`` for a ramdisk deployment from instance_info/kernel and
    ramdisk) is built from, checked: ``kernel``, ``ramdisk`` and, for
    UEFI, ``bootloader`` (absent when [DEFAULT]esp_image stands in)."""
    if mode == "instance":
        found = pxe_info.instance_images(node)
    else:
        found = pxe_info.ramdisk_images(node, mode)
    images = dict(zip(("kernel", "ramdisk"), found.values(), strict=True))
    if pxe_info.boot_mode(node) == boot_modes.UEFI:
        loader = bootloader_url(node)
        if loader:
            images["bootloader"] = image_cache.check_url(
                loader, "driver_info/bootloader")
        elif not CONF.esp_image:
            raise exception.MissingParameterValue(
                err=f"Node {node.uuid} boots in UEFI mode: building its "
                    f"virtual media ISO needs an EFI system partition "
                    f"image; set driver_info/bootloader (or [conductor]"
                    f"bootloader, [DEFAULT]esp_image).")
    return images


def _isolinux() -> tuple[str, str]:
    loader = CONF.isolinux_bin
    if not os.path.isfile(loader) and \
            loader == "/usr/lib/syslinux/isolinux.bin" and \
            os.path.isfile(_DEBIAN_ISOLINUX):
        loader = _DEBIAN_ISOLINUX
    ldlinux = CONF.ldlinux_c32 or next(
        (p for p in _LDLINUX_PLACES if os.path.isfile(p)), None)
    if not os.path.isfile(loader) or not ldlinux:
        raise exception.InvalidParameterValue(
            err=f"Legacy BIOS virtual media needs ISOLINUX on the conductor "
                f"host: {loader} and ldlinux.c32 ([DEFAULT]isolinux_bin, "
                f"ldlinux_c32; Debian package isolinux and syslinux-common).")
    return loader, ldlinux


# --- kernel command line ----------------------------------------------------


def instance_kernel_params(node: Any) -> str:
    """The command line of an instance booted from a built ISO (ramdisk
    deployment): the ramdisk as root, and its own arguments."""
    extra = (node.instance_info or {}).get("ramdisk_kernel_arguments") or ""
    return " ".join(p for p in ("root=/dev/ram0 text", str(extra)) if p)


def kernel_params(node: Any, ramdisk_params: dict[str, Any]) -> str:
    """The command line of a ramdisk booted from a built ISO: the node's
    or [redfish] append parameters, then the agent's parameters."""
    configured = CONF.redfish.kernel_append_params or ""
    override = (node.driver_info or {}).get("kernel_append_params")
    base = str(override).replace("%default%", configured) if override \
        else configured
    parts = [key if value is None else f"{key}={value}"
             for key, value in ramdisk_params.items()]
    return " ".join(p for p in (base, *parts) if p)


def issue_token(task: Task) -> str:
    """A new agent token for the ramdisk about to boot from the ISO,
    recorded as pre-generated (lookup will not reveal it) and saved."""
    node = task.node
    info = dict(node.driver_internal_info or {})
    info.pop(agent_token.KEY, None)
    info.pop(agent_token.PREGENERATED_KEY, None)
    node.driver_internal_info = info
    token = agent_token.issue(node, pregenerated=True)
    node.save()
    # The old token was dropped above: issue() gave a new one.
    return token  # type: ignore[return-value]


# --- building and publishing ---------------------------------------------------


def _cache() -> image_cache.ImageCache:
    master = (os.path.join(CONF.deploy.http_root, MASTER_SUBDIR)
              if CONF.pxe.tftp_master_path else None)
    return image_cache.boot_image_cache(master)


def build_and_publish(task: Task, mode: str, params: str,
                      inject: dict[str, bytes] | None = None) -> str:
    """Build the node's ISO of ``mode`` (see ``check_images``) booting
    with ``params`` and publish it; its URL."""
    node = task.node
    check_service(node)
    images = check_images(node, mode)
    uefi = pxe_info.boot_mode(node) == boot_modes.UEFI
    isolinux = None if uefi else _isolinux()
    os.makedirs(publish_dir(), exist_ok=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(dir=publish_dir(),
                                     prefix=".build-") as work:
        local: dict[str, str] = {}
        cache = _cache()
        for label, url in images.items():
            local[label] = os.path.join(work, label)
            cache.fetch(url, local[label])
        esp = local.get("bootloader") or (CONF.esp_image if uefi else None)
        kernel, ramdisk = local["kernel"], local["ramdisk"]
        built = os.path.join(work, "boot.iso")
        try:
            boot_iso.build(built, kernel, ramdisk, params, esp_image=esp,
                           isolinux=isolinux,
                           grub_config_path=CONF.grub_config_path,
                           inject=inject)
        except boot_iso.BuildError as e:
            raise exception.IronicException(
                f"Node {node.uuid}: {e}") from e
        os.chmod(built, CONF.redfish.file_permission)
        os.replace(built, image_path(node.uuid))
    LOG.info("Node %s: built its %s ISO in %.2f s, published as %s",
             node.uuid, mode, time.monotonic() - started, image_url(node))
    return image_url(node)


def unpublish(node_uuid: str) -> bool:
    """Remove the node's published ISO; whether there was one."""
    try:
        os.unlink(image_path(node_uuid))
    except FileNotFoundError:
        return False
    LOG.info("Node %s: removed its virtual media ISO", node_uuid)
    return True


def remove_stale(node_exists: Callable[[str], bool], min_age: float = 0
                 ) -> list[str]:
    """Remove the published ISOs of nodes that do not exist, and the
    leftovers of interrupted builds, older than ``min_age`` seconds."""
    removed: list[str] = []
    now = time.time()
    try:
        entries = list(os.scandir(publish_dir()))
    except FileNotFoundError:
        return removed
    for entry in entries:
        match = _NAME.match(entry.name)
        stale_build = entry.name.startswith(".build-")
        with contextlib.suppress(FileNotFoundError):
            if now - entry.stat(follow_symlinks=False).st_mtime < min_age:
                continue
            if not stale_build and (not match or node_exists(match.group(1))):
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
            removed.append(entry.name)
    return removed
