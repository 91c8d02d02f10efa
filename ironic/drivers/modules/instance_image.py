"""The instance image before the agent gets it: located, checked, converted.

``prepare(node)`` runs when a deployment starts, before the agent boots, so
a bad image fails the deployment at once with a clear ``last_error``
instead of after a ramdisk boot. It records what the agent is given under
``driver_internal_info/agent_image`` (URL, checksum, disk format), which
``agent_image.agent_image_info`` reads.

Two ways, chosen by ``image_download_source`` (the node's instance_info,
then its driver_info, then ``[agent]image_download_source``):

``local`` (and every ``file://`` image)
    The conductor downloads the image into the instance image cache
    (``[pxe]instance_master_path``), verifies its checksum, inspects its
    format (allowed by ``[conductor]permitted_image_formats``, matching a
    declared ``image_disk_format``, free of unsafe features such as qcow2
    backing files) and, with ``[DEFAULT]force_raw_images``, converts it to
    raw with ``qemu-img``. Only then is it published (a link) under
    ``[deploy]http_root``/``http_image_subdir``/<node UUID> and the agent is
    given its ``[deploy]http_url`` URL and the SHA-256 of what is served.
``http``
    The agent downloads an ``http(s)://`` image from its URL and verifies
    the checksum itself (and converts qcow2 as it writes). The conductor
    only makes sure the URL answers and resolves a checksum URL.

Any fault (wrong checksum, a missing or truncated image, a format that is
not allowed) raises ``ImageFault``; nothing of the faulty image stays in
the cache or under the HTTP root.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import subprocess
import tempfile
import urllib.parse
from typing import Any

import requests
from oslo_utils.imageutils import format_inspector

from ironic.common import exception
from ironic.conf import CONF
from ironic.drivers.modules import image_cache, oci_image

LOG = logging.getLogger(__name__)

#: driver_internal_info key: what the agent is given.
SERVED_KEY = "agent_image"
DOWNLOAD_SOURCES = ("swift", "http", "local")
_HASH_LENGTHS = {32: "md5", 40: "sha1", 64: "sha256", 128: "sha512"}
_HEX = re.compile(r"\b([0-9a-fA-F]{32}|[0-9a-fA-F]{40}|[0-9a-fA-F]{64}|"
                  r"[0-9a-fA-F]{128})\b")
# Formats served as they are even when raw images are forced: a GPT disk
# is raw, an ISO is written as it is.
_KEPT_AS_IS = ("raw", "gpt", "iso")


class ImageFault(exception.IronicException):
    _msg_fmt = "Image %(source)s cannot be deployed: %(reason)s"


# ---------------------------------------------------------------------------
# what the user asked for

def download_source(node: Any) -> str:
    value = ((node.instance_info or {}).get("image_download_source")
             or (node.driver_info or {}).get("image_download_source")
             or CONF.agent.image_download_source)
    if value not in DOWNLOAD_SOURCES:
        raise exception.InvalidParameterValue(
            err=f"Node {node.uuid}: image_download_source {value!r} is not "
                f"one of {', '.join(DOWNLOAD_SOURCES)}.")
    return value


def served_by_conductor(node: Any) -> bool:
    source = (getattr(node, "instance_info", None) or {}).get(
        "image_source") or ""
    return source.startswith("file://") or download_source(node) == "local"


def is_checksum_url(value: Any) -> bool:
    return isinstance(value, str) and \
        value.lower().startswith(("http://", "https://"))


def expected_checksum(node: Any) -> tuple[str, str] | None:
    """(algorithm, hex digest) the image must have, or None for a
    ``file://`` image without one (the conductor's own file is trusted).

    ``image_os_hash_algo``/``image_os_hash_value`` win over
    ``image_checksum``, which may be a digest, ``algo:digest`` or the URL
    of a checksum file listing the image's file name.
    """
    info = node.instance_info or {}
    source = info.get("image_source") or ""
    if info.get("image_os_hash_value"):
        algo = (info.get("image_os_hash_algo") or "sha256").lower()
        return _checked_algo(source, algo), \
            str(info["image_os_hash_value"]).lower()
    checksum = info.get("image_checksum")
    if not checksum:
        return None
    if is_checksum_url(checksum):
        if CONF.conductor.disable_support_for_checksum_files:
            raise ImageFault(source=source, reason=(
                "image_checksum is a URL and checksum files are disabled "
                "([conductor]disable_support_for_checksum_files)."))
        checksum = checksum_from_url(checksum, source)
    algo, _, digest = str(checksum).strip().rpartition(":")
    digest = digest.lower()
    algo = algo.lower() or _HASH_LENGTHS.get(len(digest), "")
    if not algo or not re.fullmatch(r"[0-9a-f]+", digest):
        raise ImageFault(source=source,
                         reason=f"unrecognized image_checksum {checksum!r}.")
    return _checked_algo(source, algo), digest


def _checked_algo(source: str, algo: str) -> str:
    if algo not in hashlib.algorithms_available:
        raise ImageFault(source=source,
                         reason=f"unknown checksum algorithm {algo!r}.")
    if algo == "md5" and not CONF.agent.allow_md5_checksum:
        raise ImageFault(source=source, reason=(
            "its checksum is MD5, which [agent]allow_md5_checksum "
            "forbids; give image_os_hash_algo/image_os_hash_value."))
    return algo


def checksum_from_url(url: str, source: str) -> str:
    """The checksum of ``source``'s file in the checksum file at ``url``:
    a lone digest, or the line naming the image's file name (the
    ``sha256sum`` and BSD ``SHA256 (name) = digest`` layouts)."""
    try:
        resp = requests.get(url, timeout=image_cache.HTTP_TIMEOUT)
    except requests.RequestException as e:
        raise ImageFault(source=source, reason=(
            f"its checksum file {url} cannot be read: {e}")) from e
    if resp.status_code != 200:
        raise ImageFault(source=source, reason=(
            f"its checksum file {url} answered {resp.status_code}."))
    lines = [line.strip() for line in resp.text.splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    if len(lines) == 1 and " " not in lines[0]:
        found = _HEX.fullmatch(lines[0])
        if found:
            return found.group(1)
    name = os.path.basename(urllib.parse.urlparse(source).path)
    for line in lines:
        words = re.split(r"[\s()=*]+", line)
        if name and name in words:
            found = _HEX.search(line)
            if found:
                return found.group(1)
    raise ImageFault(source=source, reason=(
        f"its checksum file {url} has no checksum for {name!r}."))


# ---------------------------------------------------------------------------
# preparing

def prepare(node: Any) -> dict:
    """Check (and, served by the conductor, fetch and convert) the image;
    record and return what the agent is given. Raises ImageFault."""
    info = node.instance_info or {}
    source = info["image_source"]
    mode = download_source(node)
    if mode == "swift":
        raise ImageFault(source=source, reason=(
            "image_download_source swift needs object storage, which this "
            "service does not use; use http or local."))
    declared = info.get("image_disk_format")
    url = source
    if oci_image.is_oci(source):
        # The registry's blob of the disk image; its digest is the
        # checksum.
        found = oci_image.resolve(source,
                                  (node.properties or {}).get("cpu_arch"),
                                  served_by_conductor(node))
        url, checksum = found["url"], found["checksum"]
        declared = found["disk_format"] or declared
    else:
        checksum = expected_checksum(node)
    if served_by_conductor(node):
        served = _serve(node, url, checksum, declared)
    else:
        _check_reachable(url)
        served = {"url": url, "disk_format": declared}
        if checksum:
            served["os_hash_algo"], served["os_hash_value"] = checksum
    node.driver_internal_info = dict(node.driver_internal_info or {},
                                     **{SERVED_KEY: served})
    LOG.info("Node %s: the agent gets image %s as %s (%s)", node.uuid,
             source, served["url"], served.get("disk_format") or "format "
             "detected by the agent")
    return served


def served(node: Any) -> dict | None:
    return (getattr(node, "driver_internal_info", None) or {}).get(
        SERVED_KEY)


def _check_reachable(source: str) -> None:
    try:
        with requests.get(source, stream=True,
                          timeout=image_cache.HTTP_TIMEOUT) as resp:
            status = resp.status_code
    except requests.RequestException as e:
        raise ImageFault(source=source,
                         reason=f"it cannot be reached: {e}") from e
    if status != 200:
        raise ImageFault(source=source,
                         reason=f"the image server answered {status}.")


def published_path(node: Any) -> str:
    return os.path.join(CONF.deploy.http_root, CONF.deploy.http_image_subdir,
                        node.uuid)


def published_url(node: Any) -> str:
    return "/".join((CONF.deploy.http_url.rstrip("/"),
                     CONF.deploy.http_image_subdir, node.uuid))


def _serve(node: Any, source: str, checksum: tuple[str, str] | None,
           declared: str | None) -> dict:
    if not CONF.deploy.http_url:
        raise ImageFault(source=source, reason=(
            "the conductor serves this image over HTTP; set "
            "[deploy]http_url and [deploy]http_root."))
    cache = InstanceImageCache()
    record = cache.fetch_checked(source, published_path(node), checksum,
                                 declared)
    return {"url": published_url(node), "os_hash_algo": "sha256",
            "os_hash_value": record["served_sha256"],
            "disk_format": record["disk_format"]}


def unpublish(node: Any) -> None:
    """Remove the node's published image (idempotent); the cache keeps its
    master until evicted."""
    with contextlib.suppress(FileNotFoundError, IsADirectoryError):
        os.unlink(published_path(node))


# ---------------------------------------------------------------------------
# the cache of checked (and converted) images

class InstanceImageCache(image_cache.ImageCache):
    """Masters are the images as served: checked, inspected and, with
    ``force_raw_images``, converted; their records keep the digests of
    the download (so a later deployment with the same checksum reuses
    them) and the SHA-256 of the served file."""

    def __init__(self) -> None:
        super().__init__(CONF.pxe.instance_master_path,
                         CONF.pxe.image_cache_size * 2**20,
                         CONF.pxe.image_cache_ttl * 60)
        self.force_raw = CONF.force_raw_images and \
            CONF.agent.stream_raw_images
        self._declared: str | None = None

    def fetch_checked(self, url: str, dest: str,
                      checksum: tuple[str, str] | None,
                      declared_format: str | None) -> dict:
        self._declared = declared_format
        text = ":".join(checksum) if checksum else None
        try:
            self.fetch(url, dest, text)
        except image_cache.ImageDownloadFailed as e:
            reason = str(e.kwargs.get("reason") or e)
            if not reason.startswith("its "):
                reason = f"the download failed ({reason})."
            raise ImageFault(source=url, reason=reason) from e
        except OSError as e:
            raise ImageFault(source=url, reason=f"the download failed "
                                                f"({e}).") from e
        record = image_cache._read_record(self._master_path(url)) or {}
        if "served_sha256" not in record:
            # Cannot happen with a master this class wrote; do not serve
            # an image whose checks are unknown.
            unpublish_path(dest)
            raise ImageFault(source=url, reason="the cached copy has no "
                             "record of its checks; try again.")
        return record

    def _master_path(self, url: str) -> str:
        # Converted and unconverted masters of one URL are different files.
        key = f"{url}\n{'raw' if self.force_raw else 'as-is'}"
        assert self.master_dir is not None  # only when caching
        return os.path.join(self.master_dir,
                            hashlib.sha256(key.encode()).hexdigest())

    def _download_to(self, url: str, dest: str, checksum: str | None
                     ) -> dict:
        record = super()._download_to(url, dest, checksum)
        try:
            record.update(_inspect_and_convert(url, dest, self._declared,
                                               self.force_raw))
        except BaseException:
            # Nothing of a faulty image stays: neither the file nor the
            # record of an earlier master of the same URL.
            for path in (dest, dest + ".json"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
            raise
        return record


def unpublish_path(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def detect_format(path: str) -> str:
    """The image format of the file at ``path`` after the safety checks
    (qcow2 backing or data files, VMDK extents... are refused)."""
    try:
        inspector = format_inspector.detect_file_format(path)
        inspector.safety_check()
    except format_inspector.SafetyCheckFailed as e:
        raise ValueError(f"the image failed the safety checks: {e}") from e
    except format_inspector.ImageFormatError as e:
        raise ValueError(f"the image format cannot be read: {e}") from e
    return str(inspector)


def _inspect_and_convert(url: str, path: str, declared: str | None,
                         force_raw: bool) -> dict:
    if CONF.conductor.disable_deep_image_inspection:
        fmt = declared or "raw"
    else:
        try:
            fmt = detect_format(path)
        except ValueError as e:
            raise ImageFault(source=url, reason=str(e)) from e
        permitted = CONF.conductor.permitted_image_formats
        if fmt not in permitted:
            raise ImageFault(source=url, reason=(
                f"its format is {fmt}, not one of the permitted formats "
                f"({', '.join(permitted)}; "
                f"[conductor]permitted_image_formats)."))
        if declared and declared != fmt and \
                not (declared == "raw" and fmt == "gpt"):
            raise ImageFault(source=url, reason=(
                f"image_disk_format says {declared} but the image is "
                f"{fmt}."))
    result: dict[str, Any] = {"source_format": fmt, "disk_format": fmt}
    if force_raw and fmt not in _KEPT_AS_IS:
        _convert_to_raw(url, path, fmt)
        result["disk_format"] = "raw"
    result["size"] = os.path.getsize(path)
    result["served_sha256"] = _sha256(path)
    return result


def _convert_to_raw(url: str, path: str, fmt: str) -> None:
    """Replace the image at ``path`` by its raw conversion."""
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".convert-")
    os.close(fd)
    try:
        subprocess.run(["qemu-img", "convert", "-f", fmt, "-O", "raw",
                        path, tmp], check=True, capture_output=True,
                       text=True)
        os.replace(tmp, path)
    except FileNotFoundError as e:
        raise ImageFault(source=url, reason=(
            "qemu-img is not installed (Debian: qemu-utils); it converts "
            f"{fmt} images to raw ([DEFAULT]force_raw_images).")) from e
    except subprocess.CalledProcessError as e:
        raise ImageFault(source=url, reason=(
            f"converting it from {fmt} to raw failed: "
            f"{(e.stderr or '').strip()[-500:]}")) from e
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    LOG.info("Converted %s from %s to raw", url, fmt)


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
