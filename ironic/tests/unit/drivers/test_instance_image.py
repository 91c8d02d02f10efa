"""Instance images checked, converted and served by the conductor.

Real files, a real cache directory and the real ``qemu-img`` (Debian
``qemu-utils``, installed by tools/install-system-deps.sh); only the HTTP
answers of checksum files are stubbed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import types

import pytest

from ironic.drivers.modules import instance_image

UUID = "1d7b6c1e-8e0a-4f55-9b7e-6a4f9d2c3b10"
RAW = b"disk image bytes" * 1056  # 33 sectors: qemu-img keeps the size


def _qemu_img():
    if shutil.which("qemu-img") is None:
        if os.environ.get("CI"):
            pytest.fail("qemu-img is missing (tools/install-system-deps.sh)")
        pytest.skip("qemu-img is missing")


def _node(**instance_info):
    return types.SimpleNamespace(uuid=UUID, instance_info=instance_info,
                                 driver_info={}, driver_internal_info={})


@pytest.fixture
def dirs(tmp_path, config):
    root, cache = tmp_path / "httpboot", tmp_path / "master_images"
    config("deploy", http_url="http://127.0.0.1:8080", http_root=str(root))
    config("pxe", instance_master_path=str(cache))
    return types.SimpleNamespace(root=root, cache=cache, tmp=tmp_path,
                                 published=root / "agent_images" / UUID)


def _image(dirs, data=RAW, name="disk.raw"):
    path = dirs.tmp / name
    path.write_bytes(data)
    return path


def _qcow2(dirs, raw_path, name="disk.qcow2"):
    _qemu_img()
    out = dirs.tmp / name
    subprocess.run(["qemu-img", "convert", "-f", "raw", "-O", "qcow2",
                    str(raw_path), str(out)], check=True)
    return out


def _cache_files(dirs):
    if not dirs.cache.exists():
        return []
    return sorted(p.name for p in dirs.cache.iterdir()
                  if not p.name.endswith(".lock"))


def test_file_image_is_served_with_the_digest_of_what_is_served(dirs):
    path = _image(dirs)
    node = _node(image_source=f"file://{path}")
    served = instance_image.prepare(node)
    assert served == {"url": f"http://127.0.0.1:8080/agent_images/{UUID}",
                      "os_hash_algo": "sha256",
                      "os_hash_value": hashlib.sha256(RAW).hexdigest(),
                      "disk_format": "raw"}
    assert node.driver_internal_info["agent_image"] == served
    assert dirs.published.read_bytes() == RAW
    # The published image is a link to the cache's master.
    assert os.stat(dirs.published).st_nlink == 2
    instance_image.unpublish(node)
    assert not dirs.published.exists()
    instance_image.unpublish(node)


def test_qcow2_is_converted_to_raw_and_cached_converted(dirs, config):
    raw = _image(dirs)
    qcow = _qcow2(dirs, raw)
    node = _node(image_source=f"file://{qcow}", image_disk_format="qcow2",
                 image_os_hash_algo="sha512",
                 image_os_hash_value=hashlib.sha512(
                     qcow.read_bytes()).hexdigest())
    served = instance_image.prepare(node)
    assert served["disk_format"] == "raw"
    assert dirs.published.read_bytes() == RAW
    assert served["os_hash_value"] == hashlib.sha256(RAW).hexdigest()
    # Without force_raw_images the agent gets the qcow2 as it is.
    config(force_raw_images=False)
    served = instance_image.prepare(node)
    assert served["disk_format"] == "qcow2"
    assert dirs.published.read_bytes() == qcow.read_bytes()


def test_wrong_checksum_leaves_nothing_behind(dirs):
    path = _image(dirs)
    node = _node(image_source=f"file://{path}",
                 image_checksum="sha256:" + "0" * 64)
    with pytest.raises(instance_image.ImageFault,
                       match="sha256 checksum is .* expected 0000"):
        instance_image.prepare(node)
    assert _cache_files(dirs) == []
    assert not dirs.published.exists()
    assert "agent_image" not in node.driver_internal_info


def test_a_format_not_permitted_leaves_nothing_behind(dirs, config):
    qcow = _qcow2(dirs, _image(dirs))
    config("conductor", permitted_image_formats=["raw"])
    node = _node(image_source=f"file://{qcow}")
    with pytest.raises(instance_image.ImageFault,
                       match="format is qcow2, not one of the permitted"):
        instance_image.prepare(node)
    assert _cache_files(dirs) == []
    assert not dirs.published.exists()


def test_declared_format_must_match(dirs):
    qcow = _qcow2(dirs, _image(dirs))
    node = _node(image_source=f"file://{qcow}", image_disk_format="raw")
    with pytest.raises(instance_image.ImageFault,
                       match="image_disk_format says raw but the image is "
                             "qcow2"):
        instance_image.prepare(node)
    assert _cache_files(dirs) == []


def test_qcow2_with_a_backing_file_is_refused(dirs):
    _qemu_img()
    base = _image(dirs)
    top = dirs.tmp / "top.qcow2"
    subprocess.run(["qemu-img", "create", "-f", "qcow2", "-F", "raw", "-b",
                    str(base), str(top)], check=True, capture_output=True)
    node = _node(image_source=f"file://{top}")
    with pytest.raises(instance_image.ImageFault, match="safety checks"):
        instance_image.prepare(node)
    assert _cache_files(dirs) == []


def test_swift_and_unknown_download_sources_are_refused(dirs):
    node = _node(image_source="https://images.test/d.img",
                 image_download_source="swift", image_checksum="a" * 64)
    with pytest.raises(instance_image.ImageFault, match="object storage"):
        instance_image.prepare(node)


@pytest.mark.parametrize("checksum,algo", [
    ("a" * 64, "sha256"), ("b" * 128, "sha512"), ("sha384:" + "c" * 96,
                                                   "sha384"),
    ("d" * 32, "md5")])
def test_checksum_forms(checksum, algo):
    node = _node(image_source="https://images.test/d.img",
                 image_checksum=checksum)
    assert instance_image.expected_checksum(node) == \
        (algo, checksum.rpartition(":")[2])


def test_md5_is_refused_when_disallowed(config):
    config("agent", allow_md5_checksum=False)
    node = _node(image_source="https://images.test/d.img",
                 image_checksum="d" * 32)
    with pytest.raises(instance_image.ImageFault, match="MD5"):
        instance_image.expected_checksum(node)


def test_os_hash_wins_over_image_checksum():
    node = _node(image_source="https://images.test/d.img",
                 image_checksum="d" * 32, image_os_hash_algo="sha512",
                 image_os_hash_value="E" * 128)
    assert instance_image.expected_checksum(node) == ("sha512", "e" * 128)


def _checksum_file(monkeypatch, text, status=200):
    def get(url, timeout=None):
        return types.SimpleNamespace(status_code=status, text=text)
    monkeypatch.setattr(instance_image.requests, "get", get)


@pytest.mark.parametrize("text", [
    f"{'1' * 64}  other.img\n{'2' * 64}  disk.img\n",
    f"# comment\n{'2' * 64} *disk.img\n",
    f"SHA256 (other.img) = {'1' * 64}\nSHA256 (disk.img) = {'2' * 64}\n",
    f"{'2' * 64}\n",
])
def test_checksum_file_is_resolved(monkeypatch, text):
    _checksum_file(monkeypatch, text)
    node = _node(image_source="https://images.test/os/disk.img",
                 image_checksum="https://images.test/os/SHA256SUMS")
    assert instance_image.expected_checksum(node) == ("sha256", "2" * 64)


def test_checksum_file_faults(monkeypatch, config):
    node = _node(image_source="https://images.test/os/disk.img",
                 image_checksum="https://images.test/os/SHA256SUMS")
    _checksum_file(monkeypatch, f"{'1' * 64}  other.img\n")
    with pytest.raises(instance_image.ImageFault,
                       match="no checksum for 'disk.img'"):
        instance_image.expected_checksum(node)
    _checksum_file(monkeypatch, "", status=404)
    with pytest.raises(instance_image.ImageFault, match="answered 404"):
        instance_image.expected_checksum(node)
    config("conductor", disable_support_for_checksum_files=True)
    with pytest.raises(instance_image.ImageFault, match="disabled"):
        instance_image.expected_checksum(node)
