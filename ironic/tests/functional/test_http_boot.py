"""UEFI HTTP boot (``http``, ``http-ipxe``) prepared by the running service.

The all-in-one process (driven with openstacksdk) has its HTTP root in a temporary directory served
by a loopback web server. In-band inspection makes the conductor prepare
the node's ramdisk boot; the test then plays the UEFI HTTP boot client and
the boot loader it downloads: GRUB fetches the configuration of its MAC
address from the HTTP root and the kernel and ramdisk it names from the
same server (``http``); iPXE fetches boot.ipxe, its MAC's script and the
URLs in it (``http-ipxe``). Each file must be the image the node names.
"""

from __future__ import annotations

import re
import urllib.request

import pytest

from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.functional.test_network_boot import (
    KERNEL,
    RAMDISK,
    _Server,
    _until_state,
)

GRUB_MAC = "02:fc:00:00:01:01"
IPXE_MAC = "02:fc:00:00:01:02"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    images = tmp_path_factory.mktemp("images")
    (images / "ipa.kernel").write_bytes(KERNEL)
    (images / "ipa.initramfs").write_bytes(RAMDISK)
    root = tmp_path_factory.mktemp("http-root")
    image_server = _Server(images)
    boot_server = _Server(root)
    drivers = dict(svc.TEST_DRIVERS,
                   enabled_boot_interfaces="fake,http,http-ipxe",
                   enabled_inspect_interfaces="fake,no-inspect,agent")
    sections = {"pxe": {"tftp_master_path": str(root / "master_images")},
                "deploy": {"http_root": str(root),
                           "http_url": boot_server.url}}
    service = fconf.run_service(tmp_path_factory, "aio-httpboot",
                                drivers=drivers, sections=sections)
    server = next(service)
    conn = fconf.sdk_connection(server.endpoint)
    try:
        yield {"service": server, "root": root, "images": image_server.url,
               "http_url": boot_server.url, "conn": conn}
    finally:
        conn.close()
        next(service, None)
        image_server.close()
        boot_server.close()


def _fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return resp.read()


def _create(env, boot: str, name: str, mac: str, mode: str = "uefi"):
    bm = env["conn"].baremetal
    node = bm.create_node(
        driver="fake-hardware", name=name, boot_interface=boot,
        inspect_interface="agent",
        driver_info={"deploy_kernel": f"{env['images']}/ipa.kernel",
                     "deploy_ramdisk": f"{env['images']}/ipa.initramfs"},
        properties={"capabilities": f"boot_mode:{mode}"})
    bm.create_port(node_uuid=node.id, address=mac)
    return node


def _inspect(env, boot: str, name: str, mac: str) -> str:
    bm = env["conn"].baremetal
    node = _create(env, boot, name, mac)
    bm.set_node_provision_state(node, "manage", wait=True, timeout=30)
    assert bm.validate_node(node, required=("boot",))["boot"].result
    bm.set_node_provision_state(node, "inspect")
    _until_state(env["conn"], node.id, "inspect wait")
    return node.id


def _abort(env, uuid: str) -> None:
    env["conn"].baremetal.set_node_provision_state(uuid, "abort")
    _until_state(env["conn"], uuid, "inspect failed")


def test_grub_over_http_finds_kernel_and_ramdisk(env, unique):
    uuid = _inspect(env, "http", f"http-{unique}", GRUB_MAC)
    base = env["http_url"]
    # GRUB loaded over HTTP looks for the configuration of its MAC on the
    # server it came from; paths in it are on that server too.
    config = _fetch(f"{base}/grub.cfg-01-{GRUB_MAC.replace(':', '-')}"
                    ).decode()
    assert config == _fetch(f"{base}/{GRUB_MAC}.conf").decode()
    linux = re.search(r"^\s*linux (\S+) (.*)$", config, re.M)
    initrd = re.search(r"^\s*initrd (\S+)$", config, re.M).group(1)
    assert linux.group(1) == f"/{uuid}/deploy_kernel"
    assert _fetch(base + linux.group(1)) == KERNEL
    assert _fetch(base + initrd) == RAMDISK
    params = linux.group(2).split()
    assert f"ipa-api-url={env['service'].endpoint}" in params
    assert not any("token" in p for p in params)
    _abort(env, uuid)
    assert not (env["root"] / uuid).exists()
    assert not (env["root"] / f"{GRUB_MAC}.conf").exists()


def test_ipxe_over_http_finds_kernel_and_ramdisk(env, unique):
    uuid = _inspect(env, "http-ipxe", f"http-ipxe-{unique}", IPXE_MAC)
    base = env["http_url"]
    boot_script = _fetch(f"{base}/boot.ipxe").decode()
    chain = re.search(r"chain --autofree (\S+)/\$\{mac:hexhyp\}",
                      boot_script).group(1)
    script = _fetch(f"{base}/{chain}/{IPXE_MAC.replace(':', '-')}").decode()
    kernel_line = re.search(r"^kernel (\S+) (.*)$", script, re.M)
    initrd_url = re.search(r"^initrd (\S+)", script, re.M).group(1)
    assert kernel_line.group(1) == f"{base}/{uuid}/deploy_kernel"
    assert _fetch(kernel_line.group(1)) == KERNEL
    assert _fetch(initrd_url) == RAMDISK
    _abort(env, uuid)
    assert not (env["root"] / uuid).exists()


def test_bios_nodes_are_refused(env, unique):
    node = _create(env, "http", f"http-bios-{unique}", "02:fc:00:00:01:03",
                   mode="bios")
    boot = env["conn"].baremetal.validate_node(node, required=None)["boot"]
    assert boot.result is False
    assert "UEFI" in boot.reason
