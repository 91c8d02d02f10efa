"""A cache of downloaded images (kernels, ramdisks) shared by nodes.

Every node booting the same deploy ramdisk needs the same two files in its
own directory; downloading them once per node would be slow and fill the
disk. The cache keeps one master copy per URL in its directory and gives
each node a hard link to it (a copy when the node's directory is on
another file system), so a master is in use exactly while its link count
is above one.

Masters are named by a hash of their URL and carry a ``.json`` record (the
URL, size, SHA-256 and the server's validators). A master is downloaded
again when its source changed (``Last-Modified``/``ETag`` of an HTTP HEAD,
mtime and size of a file), and evicted when unused for longer than the TTL
or, least recently used first, when the cache outgrows its size bound.
Downloads land in a temporary file and enter the cache only once complete
and verified, so a failed download never leaves a truncated image behind.
File locks (one per master) let several conductor processes on one host
share a cache directory.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
import urllib.parse
from typing import IO, Any, Iterator

import requests

from ironic.common import exception
from ironic.conf import CONF

LOG = logging.getLogger(__name__)

#: Seconds to connect to, and between two reads from, an image server.
HTTP_TIMEOUT = (10, 60)
_CHUNK = 1024 * 1024
_ALGORITHMS_BY_LENGTH = {32: "md5", 40: "sha1", 64: "sha256", 128: "sha512"}
URL_SCHEMES = ("http", "https", "file")


class ImageDownloadFailed(exception.IronicException):
    _msg_fmt = "Failed to download image %(url)s: %(reason)s"


def check_url(value: Any, field: str) -> str:
    """``value`` when it is an image URL the cache can fetch, else a 400
    naming ``field``."""
    parsed = urllib.parse.urlparse(value) if isinstance(value, str) \
        else None
    if parsed is None or parsed.scheme not in URL_SCHEMES or \
            not (parsed.netloc or parsed.scheme == "file") or \
            not parsed.path:
        raise exception.InvalidParameterValue(
            err=f"{field} must be an http://, https:// or file:// URL of "
                f"the image (image service IDs are not supported), got "
                f"{value!r}.")
    return value


def parse_checksum(checksum: str) -> tuple[str, str]:
    """("sha256", "ab12...") from "sha256:ab12..." or a bare hex digest
    (its length tells the algorithm)."""
    algo, _, digest = checksum.strip().rpartition(":")
    digest = digest.lower()
    algo = algo.lower() or _ALGORITHMS_BY_LENGTH.get(len(digest), "")
    if algo not in hashlib.algorithms_available or not digest:
        raise exception.InvalidParameterValue(
            err=f"Unrecognized image checksum {checksum!r}: use "
                f"'<algorithm>:<hex digest>' or a bare md5, sha256 or "
                f"sha512 hex digest.")
    return algo, digest


class ImageCache:
    """Master copies of images under ``master_dir`` (None: no caching,
    every fetch downloads straight to its destination)."""

    def __init__(self, master_dir: str | None, max_size: int,
                 ttl: float, file_mode: int | None = None) -> None:
        self.master_dir = master_dir or None
        self.max_size = max_size
        self.ttl = ttl
        self.file_mode = file_mode

    # --- public --------------------------------------------------------------

    def fetch(self, url: str, dest: str, checksum: str | None = None
              ) -> None:
        """Place the image at ``url`` at path ``dest`` (replacing it)."""
        if self.master_dir is None:
            self._download_to(url, dest, checksum)
            return
        os.makedirs(self.master_dir, exist_ok=True)
        master = self._master_path(url)
        with self._locked(master):
            if not self._is_fresh(master, url, checksum):
                _write_record(master,
                              self._download_to(url, master, checksum))
            _touch(master + ".json")
            _link_or_copy(master, dest)
        self.clean_up()

    def clean_up(self) -> list[str]:
        """Evict unused masters: those past the TTL, then the least
        recently used while the cache is over its size bound. Returns the
        URLs evicted."""
        if self.master_dir is None or not os.path.isdir(self.master_dir):
            return []
        entries = self._entries()
        total = sum(e["size"] for e in entries)
        now = time.time()
        evicted = []
        for entry in sorted(entries, key=lambda e: e["used"]):
            expired = now - entry["used"] > self.ttl
            if not expired and total <= self.max_size:
                continue
            if entry["links"] > 1 or not self._evict(entry["path"]):
                continue
            total -= entry["size"]
            evicted.append(entry["url"])
        if total > self.max_size:
            LOG.warning("Image cache %s holds %d MiB of images in use, over "
                        "its bound of %d MiB", self.master_dir,
                        total // 2**20, self.max_size // 2**20)
        return evicted

    # --- masters ------------------------------------------------------------

    def _master_path(self, url: str) -> str:
        assert self.master_dir is not None  # only when caching
        name = hashlib.sha256(url.encode()).hexdigest()
        return os.path.join(self.master_dir, name)

    @contextlib.contextmanager
    def _locked(self, master: str, blocking: bool = True
                ) -> Iterator[bool]:
        with open(master + ".lock", "a") as lock:
            flags = fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB)
            try:
                fcntl.flock(lock, flags)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _is_fresh(self, master: str, url: str, checksum: str | None
                  ) -> bool:
        record = _read_record(master)
        if record is None or record.get("url") != url or \
                not os.path.exists(master) or \
                os.path.getsize(master) != record.get("size"):
            return False
        if checksum and not _record_matches(master, record, checksum):
            LOG.info("Cached image of %s does not match checksum %s; "
                     "downloading it again", url, checksum)
            return False
        return _source_unchanged(url, record)

    def _entries(self) -> list[dict]:
        assert self.master_dir is not None  # clean_up() checked
        entries = []
        for name in os.listdir(self.master_dir):
            path = os.path.join(self.master_dir, name)
            if "." in name or not os.path.isfile(path):
                continue
            record = _read_record(path) or {}
            stat = os.stat(path)
            used = _mtime(path + ".json", default=stat.st_mtime)
            entries.append({"path": path, "url": record.get("url", name),
                            "size": stat.st_size, "links": stat.st_nlink,
                            "used": used})
        return entries

    def _evict(self, master: str) -> bool:
        """Remove an unused master unless someone holds its lock."""
        with self._locked(master, blocking=False) as got:
            if not got or os.stat(master).st_nlink > 1:
                return False
            for path in (master, master + ".json"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
        # The lock file stays: removing it would let a process still
        # waiting on it and a newcomer each hold "the" lock.
        LOG.info("Evicted %s from image cache %s", master, self.master_dir)
        return True

    # --- downloads ----------------------------------------------------------

    def _download_to(self, url: str, dest: str, checksum: str | None
                     ) -> dict:
        """Download ``url`` to ``dest`` through a temporary file; the
        record of what was downloaded."""
        directory = os.path.dirname(dest) or "."
        os.makedirs(directory, exist_ok=True)
        algo = parse_checksum(checksum)[0] if checksum else "sha256"
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".download-")
        try:
            with os.fdopen(fd, "wb") as out:
                record = _download(url, out, algo)
            _verify(url, record, checksum)
            if self.file_mode is not None:
                os.chmod(tmp, self.file_mode)
            os.replace(tmp, dest)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        LOG.info("Downloaded %s (%d bytes) to %s", url, record["size"],
                 dest)
        return record


def _download(url: str, out: IO[bytes], algo: str) -> dict:
    """Copy the image at ``url`` into ``out``; its record (size, sha256
    and ``algo`` digests, the source's validators)."""
    hashers = {name: hashlib.new(name) for name in {"sha256", algo}}
    size = 0
    validators: dict[str, Any] = {}
    try:
        for chunk in _chunks(url, validators):
            out.write(chunk)
            for hasher in hashers.values():
                hasher.update(chunk)
            size += len(chunk)
    except (OSError, requests.RequestException) as e:
        raise ImageDownloadFailed(url=url, reason=str(e)) from e
    digests = {name: h.hexdigest() for name, h in hashers.items()}
    return {"url": url, "size": size, **digests, **validators}


def _chunks(url: str, validators: dict) -> Iterator[bytes]:
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme == "file":
        path = urllib.parse.unquote(parsed.path)
        validators.update(_file_validators(path))
        with open(path, "rb") as src:
            while chunk := src.read(_CHUNK):
                yield chunk
        return
    with requests.get(url, stream=True, timeout=HTTP_TIMEOUT) as resp:
        if resp.status_code != 200:
            raise ImageDownloadFailed(
                url=url, reason=f"the server answered {resp.status_code}")
        validators.update(_http_validators(resp.headers))
        yield from resp.iter_content(_CHUNK)


def _file_validators(path: str) -> dict:
    stat = os.stat(path)
    return {"source_mtime": stat.st_mtime, "source_size": stat.st_size}


def _http_validators(headers: Any) -> dict:
    return {key: headers[name] for key, name in
            (("etag", "ETag"), ("last_modified", "Last-Modified"))
            if headers.get(name)}


def _source_unchanged(url: str, record: dict) -> bool:
    """Whether the source still is what the master was made from. An
    unreachable source keeps the master: it is the best copy there is."""
    parsed = urllib.parse.urlparse(url)
    try:
        if parsed.scheme == "file":
            now = _file_validators(urllib.parse.unquote(parsed.path))
            keys = ("source_mtime", "source_size")
        else:
            resp = requests.head(url, timeout=HTTP_TIMEOUT,
                                 allow_redirects=True)
            if resp.status_code != 200:
                raise OSError(f"HEAD answered {resp.status_code}")
            now = _http_validators(resp.headers)
            keys = ("etag", "last_modified")
    except (OSError, requests.RequestException) as e:
        LOG.warning("Cannot check whether %s changed (%s); using the "
                    "cached copy", url, e)
        return True
    return all(now.get(k) == record.get(k) for k in keys
               if now.get(k) is not None or record.get(k) is not None)


def _verify(url: str, record: dict, checksum: str | None) -> None:
    if not checksum:
        return
    algo, digest = parse_checksum(checksum)
    if record[algo] != digest:
        raise ImageDownloadFailed(
            url=url, reason=f"its {algo} checksum is {record[algo]}, "
                            f"expected {digest}")


def _record_matches(master: str, record: dict, checksum: str) -> bool:
    algo, digest = parse_checksum(checksum)
    known = record.get(algo)
    if known is None:
        hasher = hashlib.new(algo)
        with open(master, "rb") as f:
            while chunk := f.read(_CHUNK):
                hasher.update(chunk)
        known = hasher.hexdigest()
    return known == digest


def _read_record(master: str) -> dict | None:
    try:
        with open(master + ".json", encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _write_record(master: str, record: dict) -> None:
    tmp = master + ".json.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(record, f)
    os.replace(tmp, master + ".json")


def _touch(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.utime(path)


def _mtime(path: str, default: float) -> float:
    try:
        return os.stat(path).st_mtime
    except FileNotFoundError:
        return default


def _link_or_copy(master: str, dest: str) -> None:
    """Atomically make ``dest`` the master's content."""
    os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
    tmp = f"{dest}.{os.getpid()}.tmp"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    try:
        os.link(master, tmp)
    except OSError:
        # Another file system (or one without hard links): a copy costs
        # space, never correctness.
        shutil.copyfile(master, tmp)
        shutil.copymode(master, tmp)
    os.replace(tmp, dest)


def boot_image_cache(master_dir: str | None) -> ImageCache:
    """The cache of network boot kernels and ramdisks under
    ``master_dir``, bounded by the [pxe] image_cache options."""
    return ImageCache(master_dir, CONF.pxe.image_cache_size * 2**20,
                      CONF.pxe.image_cache_ttl * 60,
                      CONF.pxe.file_permission)

