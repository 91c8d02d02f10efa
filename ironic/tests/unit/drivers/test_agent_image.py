"""What the agent is told about the instance image, and what is refused."""

from __future__ import annotations

import hashlib
import types

import pytest

from ironic.common import exception
from ironic.drivers.modules import agent_image

UUID = "0cbf3c5e-5d2b-4d4c-9f0e-4a1f3d7e2b11"
SHA = "ab" * 32


def _node(instance_info=None, properties=None, boot_mode=None,
          served=None):
    internal = {"agent_image": served} if served else {}
    return types.SimpleNamespace(uuid=UUID, instance_info=instance_info or {},
                                 properties=properties or {},
                                 boot_mode=boot_mode, driver_info={},
                                 driver_internal_info=internal)


# What instance_image.prepare records for an http source.
SERVED = {"url": "https://images.test/os/disk.qcow2",
          "disk_format": "qcow2", "os_hash_algo": "sha256",
          "os_hash_value": SHA}


def _http(**extra):
    return dict({"image_source": "https://images.test/os/disk.qcow2",
                 "image_os_hash_algo": "sha256", "image_os_hash_value": SHA,
                 "image_disk_format": "qcow2"}, **extra)


def test_whole_disk_image_info():
    info = agent_image.agent_image_info(_node(_http(), served=SERVED), True)
    assert info == {"id": "disk.qcow2",
                    "urls": ["https://images.test/os/disk.qcow2"],
                    "disk_format": "qcow2", "container_format": None,
                    "stream_raw_images": True, "node_uuid": UUID,
                    "os_hash_algo": "sha256", "os_hash_value": SHA}


def test_partition_image_info_carries_the_layout(config):
    node = _node(_http(kernel="k", ramdisk="r", root_gb=20, swap_mb=512),
                 served=SERVED)
    info = agent_image.agent_image_info(node, False)
    assert info["image_type"] == "partition"
    assert (info["root_gb"], info["swap_mb"]) == (20, 512)
    assert info["os_hash_value"] == SHA
    assert info["deploy_boot_mode"] == "uefi"
    assert info["disk_label"] == "gpt" and info["boot_option"] == "local"
    config("deploy", default_boot_mode="bios")
    info = agent_image.agent_image_info(node, False)
    assert info["deploy_boot_mode"] == "bios" and "disk_label" not in info


@pytest.mark.parametrize("instance_info,error", [
    ({}, "image_source is missing"),
    ({"image_source": "glance-uuid"}, "must be an http://, https:// or"),
    ({"image_source": "http://i/d.img"}, "image_checksum"),
    ({"image_source": "http://i/d.img", "image_os_hash_algo": "sha256"},
     "image_checksum"),
    (_http(image_os_hash_algo="crc7"), "unknown image_os_hash_algo"),
    (_http(image_type="floppy"), 'Invalid image_type "floppy"'),
    (_http(kernel="k", ramdisk="r"), "needs a positive"),
])
def test_bad_image_information_is_refused(instance_info, error):
    with pytest.raises((exception.InvalidParameterValue,
                        exception.MissingParameterValue), match=error):
        agent_image.validate(_node(instance_info))


def test_root_device_hints_are_checked():
    agent_image.validate(_node(_http(), {"root_device": {"serial": "s1"}}))
    with pytest.raises(exception.InvalidParameterValue, match="colour"):
        agent_image.validate(_node(_http(), {"root_device": {"colour": 1}}))
    with pytest.raises(exception.InvalidParameterValue):
        agent_image.validate(_node(_http(), {"root_device": "sda"}))


def test_file_image_is_checked_cached_and_published(tmp_path, config):
    image = tmp_path / "my image.raw"
    image.write_bytes(b"disk" * 100)
    root = tmp_path / "httpboot"
    node = _node({"image_source": f"file://{image}"})
    with pytest.raises(exception.MissingParameterValue, match="http_url"):
        agent_image.validate(node)
    config("deploy", http_url="http://127.0.0.1:8080", http_root=str(root))
    config("pxe", instance_master_path=str(tmp_path / "cache"))
    agent_image.validate(node)
    # Not prepared yet (a deployment from before an upgrade): now.
    info = agent_image.agent_image_info(node, True)
    assert info["urls"] == [f"http://127.0.0.1:8080/agent_images/{UUID}"]
    assert info["os_hash_value"] == hashlib.sha256(b"disk" * 100).hexdigest()
    assert info["disk_format"] == "raw"
    published = root / "agent_images" / UUID
    assert published.read_bytes() == b"disk" * 100
    agent_image.unpublish(node)
    assert not published.exists()
    assert "agent_image" not in node.driver_internal_info
    with pytest.raises(exception.InvalidParameterValue, match="not exist"):
        agent_image.validate(_node({"image_source": "file:///no/such"}))
