"""The instance image as the agent gets it, and checks of what the user
gave in ``instance_info``.

``image_source`` is an ``http(s)://`` URL the agent downloads itself, or a
``file://`` path on the conductor host, which is published under
``[deploy]http_root`` and given to the agent as a ``[deploy]http_url``
URL. A downloaded image is verified by the agent with
``image_os_hash_algo``/``image_os_hash_value`` or ``image_checksum``
(required for http(s) sources; computed here for file sources).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import urllib.parse
from typing import Any

from ironic.common import exception
from ironic.conf import CONF

LOG = logging.getLogger(__name__)

WHOLE_DISK = "whole-disk"
PARTITION = "partition"
IMAGE_TYPES = (WHOLE_DISK, PARTITION)
#: Where published file images live under [deploy]http_root.
HTTP_SUBDIR = "agent_images"
#: instance_info keys the agent needs to partition the disk itself.
PARTITION_KEYS = ("kernel", "ramdisk", "root_gb", "root_mb", "swap_mb",
                  "ephemeral_mb", "ephemeral_format", "configdrive",
                  "preserve_ephemeral", "image_type", "deploy_boot_mode")
#: Root device hints the agent understands (node properties.root_device).
ROOT_DEVICE_HINTS = ("size", "model", "wwn", "serial", "vendor",
                     "wwn_with_extension", "wwn_vendor_extension", "name",
                     "rotational", "hctl", "by_path", "tbd")


def _info(node: Any) -> dict:
    return node.instance_info or {}


def image_type(node: Any) -> str:
    """whole-disk or partition: as given, else partition when a kernel
    and ramdisk come with the image."""
    info = _info(node)
    given = info.get("image_type")
    if given:
        return given
    return PARTITION if info.get("kernel") and info.get("ramdisk") \
        else WHOLE_DISK


def boot_mode(node: Any) -> str:
    """The boot mode the instance will use (uefi or bios)."""
    mode = _info(node).get("deploy_boot_mode")
    if not mode:
        caps = (node.properties or {}).get("capabilities") or ""
        if isinstance(caps, str):
            pairs = dict(p.split(":", 1) for p in caps.split(",") if ":" in p)
            mode = pairs.get("boot_mode")
        elif isinstance(caps, dict):
            mode = caps.get("boot_mode")
    return mode or getattr(node, "boot_mode", None) or \
        CONF.deploy.default_boot_mode


# ---------------------------------------------------------------------------
# validation

def validate(node: Any) -> None:
    """Raise (400 before the deployment starts) when the image or the root
    device hints cannot work."""
    info = _info(node)
    source = info.get("image_source")
    if not source:
        raise exception.MissingParameterValue(
            err=f"Node {node.uuid} failed to validate deploy image info: "
                f"instance_info.image_source is missing.")
    scheme = urllib.parse.urlparse(source).scheme
    if scheme not in ("http", "https", "file"):
        raise exception.InvalidParameterValue(
            err=f"Node {node.uuid}: image_source {source!r} must be an "
                f"http://, https:// or file:// URL.")
    kind = image_type(node)
    if kind not in IMAGE_TYPES:
        raise exception.InvalidParameterValue(
            err=f'Invalid image_type "{kind}", valid are '
                f'{", ".join(IMAGE_TYPES)}')
    if scheme == "file":
        _validate_file(node, source)
    else:
        _validate_checksum(node, info)
    if kind == PARTITION:
        _validate_partition(node, info)
    validate_root_device_hints(node)


def _validate_checksum(node: Any, info: dict) -> None:
    algo = info.get("image_os_hash_algo")
    value = info.get("image_os_hash_value")
    if bool(algo) != bool(value) or not (value or info.get(
            "image_checksum")):
        raise exception.MissingParameterValue(
            err=f'image_source\'s "image_checksum", or '
                f'"image_os_hash_algo" and "image_os_hash_value" must be '
                f'provided in instance_info for node {node.uuid}')
    if algo and algo not in hashlib.algorithms_available:
        raise exception.InvalidParameterValue(
            err=f"Node {node.uuid}: unknown image_os_hash_algo {algo!r}.")


def _validate_file(node: Any, source: str) -> None:
    path = _file_path(source)
    if not os.path.isfile(path):
        raise exception.InvalidParameterValue(
            err=f"Node {node.uuid}: image file {path} does not exist on "
                f"this conductor.")
    if not CONF.deploy.http_url:
        raise exception.MissingParameterValue(
            err=f"Node {node.uuid}: a file:// image is served to the agent "
                f"over HTTP; set [deploy]http_url and [deploy]http_root.")


def _validate_partition(node: Any, info: dict) -> None:
    try:
        if int(info.get("root_gb") or 0) <= 0 and not info.get("root_mb"):
            raise ValueError
    except (TypeError, ValueError):
        raise exception.InvalidParameterValue(
            err=f"Node {node.uuid}: a partition image needs a positive "
                f"instance_info.root_gb.") from None


def validate_root_device_hints(node: Any) -> None:
    hints = (node.properties or {}).get("root_device")
    if hints is None:
        return
    if not isinstance(hints, dict):
        raise exception.InvalidParameterValue(
            err=f"Node {node.uuid}: properties.root_device must be an "
                f"object of root device hints.")
    unknown = sorted(set(hints) - set(ROOT_DEVICE_HINTS))
    if unknown:
        raise exception.InvalidParameterValue(
            err=f"Node {node.uuid}: unknown root device hints "
                f"{', '.join(unknown)}; valid are "
                f"{', '.join(ROOT_DEVICE_HINTS)}.")


# ---------------------------------------------------------------------------
# what the agent receives

def _file_path(source: str) -> str:
    return urllib.parse.unquote(urllib.parse.urlparse(source).path)


def image_url(node: Any) -> str:
    """The URL the agent downloads from (publishing a file image)."""
    source = _info(node)["image_source"]
    if urllib.parse.urlparse(source).scheme != "file":
        return source
    path = _file_path(source)
    name = os.path.basename(path)
    target_dir = os.path.join(CONF.deploy.http_root, HTTP_SUBDIR, node.uuid)
    os.makedirs(target_dir, exist_ok=True)
    target = os.path.join(target_dir, name)
    if os.path.exists(target):
        os.unlink(target)
    try:
        os.link(path, target)
    except OSError:
        # Another file system: a copy (images are not changed in place).
        shutil.copyfile(path, target)
    return "/".join((CONF.deploy.http_url.rstrip("/"), HTTP_SUBDIR,
                     node.uuid, urllib.parse.quote(name)))


def unpublish(node: Any) -> None:
    """Remove a published file image (idempotent)."""
    shutil.rmtree(os.path.join(CONF.deploy.http_root, HTTP_SUBDIR,
                               node.uuid), ignore_errors=True)


def _file_hash(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def agent_image_info(node: Any, stream_raw_images: bool) -> dict:
    """``image_info`` of standby.prepare_image and the write_image step."""
    info = _info(node)
    source = info["image_source"]
    doc: dict[str, Any] = {
        "id": source.rstrip("/").split("/")[-1],
        "urls": [image_url(node)],
        "disk_format": info.get("image_disk_format"),
        "container_format": info.get("image_container_format"),
        "stream_raw_images": stream_raw_images,
        "node_uuid": node.uuid,
    }
    if info.get("image_checksum"):
        doc["checksum"] = info["image_checksum"]
    if info.get("image_os_hash_algo") and info.get("image_os_hash_value"):
        doc["os_hash_algo"] = info["image_os_hash_algo"]
        doc["os_hash_value"] = info["image_os_hash_value"]
    elif urllib.parse.urlparse(source).scheme == "file" and \
            not info.get("image_checksum"):
        doc["os_hash_algo"] = "sha256"
        doc["os_hash_value"] = _file_hash(_file_path(source))
    if image_type(node) == PARTITION:
        for key in PARTITION_KEYS:
            doc[key] = info.get(key)
        doc["image_type"] = PARTITION
        doc["deploy_boot_mode"] = boot_mode(node)
        doc["boot_option"] = "local"
        if boot_mode(node) == "uefi":
            doc["disk_label"] = "gpt"
    return doc
