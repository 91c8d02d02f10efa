"""Building and publishing virtual media ISOs from a kernel and ramdisk:
what goes on the image, where it is served, what is refused and why."""

from __future__ import annotations

import os
import time
import types

import pytest

from ironic.common import agent_token, boot_iso, exception
from ironic.drivers.modules import vmedia_image

UUID = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"


class _Node(types.SimpleNamespace):
    saved = 0

    def save(self):
        self.saved += 1


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, size in (("kernel", 3000), ("ramdisk", 70000), ("esp", 4096)):
        path = tmp_path / name
        path.write_bytes(os.urandom(size))
        out[name] = path
    return out


@pytest.fixture
def served(tmp_path, config):
    root = tmp_path / "httpboot"
    root.mkdir()
    config("redfish", use_swift=False)
    config("deploy", http_root=str(root), http_url="http://192.0.2.1:8080")
    config("pxe", tftp_master_path="")
    return root


def _task(files, **driver_info):
    info = {"deploy_kernel": f"file://{files['kernel']}",
            "deploy_ramdisk": f"file://{files['ramdisk']}",
            "bootloader": f"file://{files['esp']}", **driver_info}
    node = _Node(uuid=UUID, driver_info=info, driver_internal_info={},
                 instance_info={}, properties={}, boot_mode=None,
                 provision_state="cleaning")
    return types.SimpleNamespace(node=node)


def test_the_iso_holds_kernel_ramdisk_and_parameters(files, served, config):
    config("redfish", kernel_append_params="console=ttyS0")
    task = _task(files, kernel_append_params="%default% quiet")
    url = vmedia_image.build_and_publish(task, "deploy",
                                         vmedia_image.kernel_params(
                                             task.node, {"a": "1", "b": None}))
    assert url == f"http://192.0.2.1:8080/redfish/boot-{UUID}.iso"
    iso = served / "redfish" / f"boot-{UUID}.iso"
    assert oct(iso.stat().st_mode & 0o777) == "0o644"
    assert boot_iso.read_file(str(iso), "vmlinuz") == \
        files["kernel"].read_bytes()
    assert boot_iso.read_file(str(iso), "initrd") == \
        files["ramdisk"].read_bytes()
    assert boot_iso.read_file(str(iso), "images/efiboot.img") == \
        files["esp"].read_bytes()
    grub = boot_iso.read_file(str(iso), "EFI/BOOT/grub.cfg").decode()
    assert "linux /vmlinuz console=ttyS0 quiet a=1 b\n" in grub
    # Nothing but the image is left in the published directory.
    assert os.listdir(served / "redfish") == [iso.name]


def test_external_url_of_the_node_wins(files, served, config):
    config("deploy", external_http_url="http://198.51.100.1")
    task = _task(files)
    assert vmedia_image.image_url(task.node).startswith(
        "http://198.51.100.1/redfish/")
    task.node.driver_info["external_http_url"] = "https://203.0.113.9/x/"
    assert vmedia_image.image_url(task.node) == \
        f"https://203.0.113.9/x/redfish/boot-{UUID}.iso"


def test_uefi_needs_an_esp_image(files, served):
    task = _task(files)
    del task.node.driver_info["bootloader"]
    with pytest.raises(exception.MissingParameterValue) as err:
        vmedia_image.check_images(task.node, "deploy")
    assert "driver_info/bootloader" in str(err.value)


def test_swift_is_refused_by_name(files, served, config):
    config("redfish", use_swift=True)
    with pytest.raises(exception.InvalidParameterValue) as err:
        vmedia_image.check_service(_task(files).node)
    assert "[redfish]use_swift" in str(err.value)


def test_http_url_is_required(files, served, config):
    config("deploy", http_url=None)
    with pytest.raises(exception.MissingParameterValue) as err:
        vmedia_image.check_service(_task(files).node)
    assert "[deploy]http_url" in str(err.value)


def test_bios_without_isolinux_is_a_clear_error(files, served, config):
    config(isolinux_bin="/nonexistent/isolinux.bin")
    task = _task(files)
    task.node.properties = {"capabilities": "boot_mode:bios"}
    with pytest.raises(exception.InvalidParameterValue) as err:
        vmedia_image.build_and_publish(task, "deploy", "x")
    assert "isolinux" in str(err.value)
    assert not os.path.exists(vmedia_image.image_path(UUID))


def test_missing_kernel_leaves_nothing(files, served):
    task = _task(files, deploy_kernel="file:///nonexistent/kernel")
    with pytest.raises(exception.IronicException):
        vmedia_image.build_and_publish(task, "deploy", "x")
    assert os.listdir(served / "redfish") == []


def test_token_is_new_pregenerated_and_saved(files):
    task = _task(files)
    first = vmedia_image.issue_token(task)
    second = vmedia_image.issue_token(task)
    assert first != second
    assert agent_token.matches(task.node, second)
    assert not agent_token.matches(task.node, first)
    assert task.node.driver_internal_info[agent_token.PREGENERATED_KEY]
    assert task.node.saved == 2


def test_unpublish_and_stale_sweep(files, served):
    task = _task(files)
    vmedia_image.build_and_publish(task, "deploy", "x")
    assert vmedia_image.unpublish(UUID) is True
    assert vmedia_image.unpublish(UUID) is False
    other = "2be26c0b-03f2-4d2e-ae87-c02d7f33c123"
    vmedia_image.build_and_publish(task, "deploy", "x")
    orphan = served / "redfish" / f"boot-{other}.iso"
    orphan.write_bytes(b"old")
    unrelated = served / "redfish" / "keep.txt"
    unrelated.write_bytes(b"x")
    exists = {UUID}.__contains__
    # Too young to be swept.
    assert vmedia_image.remove_stale(exists, min_age=600) == []
    old = time.time() - 3600
    os.utime(orphan, (old, old))
    assert vmedia_image.remove_stale(exists, min_age=600) == [orphan.name]
    assert sorted(os.listdir(served / "redfish")) == sorted(
        [f"boot-{UUID}.iso", "keep.txt"])


def test_periodic_sweep_keeps_images_of_existing_nodes(files, served,
                                                       database):
    from ironic.drivers import periodic
    from ironic.drivers.modules import redfish_boot
    from ironic.objects.node import Node

    node = Node(driver="fake-hardware")
    node.create()
    boot = redfish_boot.RedfishVirtualMediaBoot()
    assert boot.remove_stale_images in [
        method for method, _info in periodic.tasks_of(boot)]
    publish = served / "redfish"
    publish.mkdir()
    kept = publish / f"boot-{node.uuid}.iso"
    gone = publish / f"boot-{UUID}.iso"
    old = time.time() - 3600
    for path in (kept, gone):
        path.write_bytes(b"iso")
        os.utime(path, (old, old))
    boot.remove_stale_images(None, None)
    assert sorted(os.listdir(publish)) == [kept.name]
