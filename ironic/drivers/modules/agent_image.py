"""The instance image as the agent gets it, and checks of what the user
gave in ``instance_info``.

``image_source`` is an ``http(s)://`` URL or a ``file://`` path on the
conductor host; ``instance_image`` checks (and for some, fetches and
converts) it when the deployment starts, and what the agent is given
comes from there. A checksum (``image_os_hash_algo``/``image_os_hash_value``
or ``image_checksum``, possibly the URL of a checksum file) is required for
http(s) sources.
"""

from __future__ import annotations

import hashlib
import logging
import os
import urllib.parse
from typing import Any

from ironic.common import exception
from ironic.conf import CONF
from ironic.drivers.modules import instance_image, oci_image

LOG = logging.getLogger(__name__)

SCHEMES = ("http", "https", "file", "oci")
WHOLE_DISK = "whole-disk"
PARTITION = "partition"
IMAGE_TYPES = (WHOLE_DISK, PARTITION)
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
    if scheme not in SCHEMES:
        raise exception.InvalidParameterValue(
            err=f"Node {node.uuid}: image_source {source!r} must be an "
                f"http://, https:// or file:// URL or an oci:// "
                f"reference.")
    kind = image_type(node)
    if kind not in IMAGE_TYPES:
        raise exception.InvalidParameterValue(
            err=f'Invalid image_type "{kind}", valid are '
                f'{", ".join(IMAGE_TYPES)}')
    if scheme == "file":
        _validate_file(node, source)
    elif scheme == "oci":
        try:
            oci_image.parse(source)
        except ValueError as e:
            raise exception.InvalidParameterValue(
                err=f"Node {node.uuid}: {e}") from e
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
    checksum = info.get("image_checksum")
    if not value and isinstance(checksum, str) and \
            checksum.lower().startswith(("http://", "https://")) and \
            CONF.conductor.disable_support_for_checksum_files:
        raise exception.InvalidParameterValue(
            err=f"Node {node.uuid}: image_checksum is the URL of a "
                f"checksum file, which "
                f"[conductor]disable_support_for_checksum_files refuses.")


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


def unpublish(node: Any) -> None:
    """Remove a published image (idempotent) and forget what the agent
    was given."""
    instance_image.unpublish(node)
    info = getattr(node, "driver_internal_info", None) or {}
    if instance_image.SERVED_KEY in info:
        node.driver_internal_info = {
            k: v for k, v in info.items() if k != instance_image.SERVED_KEY}


def agent_image_info(node: Any, stream_raw_images: bool) -> dict:
    """``image_info`` of standby.prepare_image and the write_image step."""
    info = _info(node)
    source = info["image_source"]
    # Prepared when the deployment started; a deployment that started
    # before an upgrade has it prepared now.
    served = instance_image.served(node) or instance_image.prepare(node)
    doc = _served_doc(node, source, served, stream_raw_images)
    if image_type(node) == PARTITION:
        for key in PARTITION_KEYS:
            doc[key] = info.get(key)
        doc["image_type"] = PARTITION
        doc["deploy_boot_mode"] = boot_mode(node)
        doc["boot_option"] = "local"
        if boot_mode(node) == "uefi":
            doc["disk_label"] = "gpt"
    return doc


def _served_doc(node: Any, source: str, served: dict,
                stream_raw_images: bool) -> dict:
    """What instance_image.prepare checked (and maybe converted)."""
    doc: dict[str, Any] = {
        "id": source.rstrip("/").split("/")[-1],
        "urls": [served["url"]],
        "disk_format": served.get("disk_format"),
        "container_format": _info(node).get("image_container_format"),
        "stream_raw_images": stream_raw_images,
        "node_uuid": node.uuid,
    }
    if served.get("os_hash_value"):
        doc["os_hash_algo"] = served["os_hash_algo"]
        doc["os_hash_value"] = served["os_hash_value"]
    elif _info(node).get("image_checksum"):
        doc["checksum"] = _info(node)["image_checksum"]
    return doc
