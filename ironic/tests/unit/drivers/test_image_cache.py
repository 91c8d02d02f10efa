"""The boot image cache: real downloads (file:// and a loopback HTTP
server) into a real directory, links, freshness, checksums, eviction."""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import os
import threading
import time

import pytest

from ironic.common import exception
from ironic.drivers.modules import image_cache

MIB = 2**20


@pytest.fixture
def source(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "kernel").write_bytes(b"K" * 1000)
    (src / "ramdisk").write_bytes(b"R" * 3000)
    return src


@pytest.fixture
def http_server(source):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler,
                                directory=str(source))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _cache(tmp_path, max_size=MIB, ttl=3600):
    return image_cache.ImageCache(str(tmp_path / "master"), max_size, ttl)


def _masters(tmp_path):
    return sorted(p for p in os.listdir(tmp_path / "master") if "." not in p)


def test_fetch_links_the_node_file_to_one_master(tmp_path, source):
    cache = _cache(tmp_path)
    url = (source / "kernel").as_uri()
    cache.fetch(url, str(tmp_path / "n1" / "deploy_kernel"))
    cache.fetch(url, str(tmp_path / "n2" / "deploy_kernel"))
    [master] = _masters(tmp_path)
    master_path = tmp_path / "master" / master
    assert os.stat(master_path).st_nlink == 3
    assert (tmp_path / "n2" / "deploy_kernel").read_bytes() == b"K" * 1000
    record = json.loads((tmp_path / "master" / f"{master}.json").read_text())
    assert record["url"] == url and record["size"] == 1000
    assert record["sha256"] == hashlib.sha256(b"K" * 1000).hexdigest()


def test_changed_source_is_downloaded_again_old_links_keep_theirs(
        tmp_path, source):
    cache = _cache(tmp_path)
    url = (source / "kernel").as_uri()
    cache.fetch(url, str(tmp_path / "old" / "k"))
    (source / "kernel").write_bytes(b"new kernel")
    cache.fetch(url, str(tmp_path / "new" / "k"))
    assert (tmp_path / "new" / "k").read_bytes() == b"new kernel"
    assert (tmp_path / "old" / "k").read_bytes() == b"K" * 1000


def test_http_download_and_validators(tmp_path, source, http_server):
    cache = _cache(tmp_path)
    url = f"{http_server}/ramdisk"
    cache.fetch(url, str(tmp_path / "n1" / "ramdisk"))
    [master] = _masters(tmp_path)
    inode = os.stat(tmp_path / "master" / master).st_ino
    cache.fetch(url, str(tmp_path / "n2" / "ramdisk"))
    # Unchanged on the server (same Last-Modified): the same master.
    assert os.stat(tmp_path / "master" / master).st_ino == inode
    record = json.loads((tmp_path / "master" / f"{master}.json").read_text())
    assert record["last_modified"]
    # A newer file on the server is downloaded again.
    later = time.time() + 10
    (source / "ramdisk").write_bytes(b"changed")
    os.utime(source / "ramdisk", (later, later))
    cache.fetch(url, str(tmp_path / "n3" / "ramdisk"))
    assert (tmp_path / "n3" / "ramdisk").read_bytes() == b"changed"
    assert (tmp_path / "n1" / "ramdisk").read_bytes() == b"R" * 3000


def test_http_error_is_a_download_failure_and_leaves_nothing(
        tmp_path, http_server):
    cache = _cache(tmp_path)
    with pytest.raises(image_cache.ImageDownloadFailed) as err:
        cache.fetch(f"{http_server}/missing", str(tmp_path / "n" / "k"))
    assert "404" in str(err.value)
    assert _masters(tmp_path) == []
    assert not (tmp_path / "n" / "k").exists()


@pytest.mark.parametrize("checksum", [
    hashlib.sha256(b"K" * 1000).hexdigest(),
    "md5:" + hashlib.md5(b"K" * 1000).hexdigest(),
    "sha512:" + hashlib.sha512(b"K" * 1000).hexdigest(),
])
def test_checksum_verified(tmp_path, source, checksum):
    cache = _cache(tmp_path)
    cache.fetch((source / "kernel").as_uri(), str(tmp_path / "n" / "k"),
                checksum=checksum)
    assert (tmp_path / "n" / "k").read_bytes() == b"K" * 1000


def test_checksum_mismatch_keeps_nothing(tmp_path, source):
    cache = _cache(tmp_path)
    with pytest.raises(image_cache.ImageDownloadFailed) as err:
        cache.fetch((source / "kernel").as_uri(), str(tmp_path / "n" / "k"),
                    checksum="sha256:" + "0" * 64)
    assert "expected" in str(err.value)
    assert _masters(tmp_path) == []
    assert os.listdir(tmp_path / "master") == [
        p for p in os.listdir(tmp_path / "master") if p.endswith(".lock")]
    assert not (tmp_path / "n" / "k").exists()


def test_cached_master_with_other_checksum_is_fetched_again(tmp_path,
                                                           source):
    cache = _cache(tmp_path)
    url = (source / "kernel").as_uri()
    cache.fetch(url, str(tmp_path / "a" / "k"))
    with pytest.raises(image_cache.ImageDownloadFailed):
        cache.fetch(url, str(tmp_path / "b" / "k"), checksum="0" * 64)


def test_unused_masters_past_their_ttl_are_evicted(tmp_path, source):
    cache = _cache(tmp_path, ttl=60)
    cache.fetch((source / "kernel").as_uri(), str(tmp_path / "n1" / "k"))
    cache.fetch((source / "ramdisk").as_uri(), str(tmp_path / "n2" / "r"))
    os.unlink(tmp_path / "n1" / "k")   # the kernel is no longer in use
    old = time.time() - 120
    for name in _masters(tmp_path):
        os.utime(tmp_path / "master" / f"{name}.json", (old, old))
    evicted = cache.clean_up()
    assert evicted == [(source / "kernel").as_uri()]
    [left] = _masters(tmp_path)
    assert os.stat(tmp_path / "master" / left).st_size == 3000


def test_size_bound_evicts_least_recently_used_unused(tmp_path, source):
    (source / "big").write_bytes(b"B" * 2000)
    cache = _cache(tmp_path, max_size=5000)
    for name in ("kernel", "ramdisk"):
        cache.fetch((source / name).as_uri(), str(tmp_path / name))
        os.unlink(tmp_path / name)
    # kernel (1000) was used before ramdisk (3000); adding big (2000)
    # makes 6000 > 5000: evicting the least recently used unused one is
    # enough.
    past = time.time() - 30
    kernel_master = cache._master_path((source / "kernel").as_uri())
    os.utime(kernel_master + ".json", (past, past))
    cache.fetch((source / "big").as_uri(), str(tmp_path / "n" / "big"))
    urls = {json.loads(open(tmp_path / "master" / f"{m}.json").read())["url"]
            for m in _masters(tmp_path)}
    assert urls == {(source / "ramdisk").as_uri(), (source / "big").as_uri()}


def test_images_in_use_are_never_evicted(tmp_path, source):
    cache = _cache(tmp_path, max_size=10, ttl=0)
    cache.fetch((source / "kernel").as_uri(), str(tmp_path / "n" / "k"))
    assert cache.clean_up() == []
    assert (tmp_path / "n" / "k").read_bytes() == b"K" * 1000


def test_without_master_dir_the_image_goes_straight_to_its_place(
        tmp_path, source):
    cache = image_cache.ImageCache(None, MIB, 60)
    cache.fetch((source / "kernel").as_uri(), str(tmp_path / "n" / "k"))
    assert (tmp_path / "n" / "k").read_bytes() == b"K" * 1000
    assert os.stat(tmp_path / "n" / "k").st_nlink == 1


@pytest.mark.parametrize("value", [
    "0b3a3e29-1c55-4f3e-b1c4-1a2b3c4d5e6f", "nfs://host/k", "http://",
    "", None, 42])
def test_check_url_refuses_what_cannot_be_fetched(value):
    with pytest.raises(exception.InvalidParameterValue) as err:
        image_cache.check_url(value, "driver_info/deploy_kernel")
    assert "driver_info/deploy_kernel" in str(err.value)


@pytest.mark.parametrize("value", [
    "http://images/k", "https://images:8443/a/k", "file:///srv/k"])
def test_check_url_accepts_urls(value):
    assert image_cache.check_url(value, "x") == value


def test_unknown_checksum_format_is_refused():
    with pytest.raises(exception.InvalidParameterValue):
        image_cache.parse_checksum("abc")
