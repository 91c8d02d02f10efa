"""Network boot (pxe, ipxe) prepared by the running service.

An image server on loopback serves a deploy kernel and ramdisk; the
all-in-one process has its TFTP and HTTP roots in a temporary directory.
In-band inspection, started with the real CLI, makes the conductor prepare
the node's ramdisk boot: the test then checks what a PXE client would find
under the TFTP root, and follows an iPXE client's path over HTTP (boot.ipxe,
the script of its MAC, the kernel and ramdisk URLs in it) on a second
loopback server serving the HTTP root. Finishing or aborting the
inspection must remove the node's files.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import threading
import time
import urllib.request

import pytest

from ironic.tests import data
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.functional.test_ipa_client import ipa

# The MAC address of the inspection sample, so that its data finds the node.
MAC = "02:fc:00:00:00:01"
OTHER_MAC = "52:54:00:00:00:0a"
WAIT = 30.0
KERNEL = b"\x7fkernel image " * 4096
RAMDISK = b"\x1f\x8bramdisk image " * 8192


class _Server:
    """A loopback HTTP server of one directory, in a thread."""

    def __init__(self, directory):
        handler = functools.partial(http.server.SimpleHTTPRequestHandler,
                                    directory=str(directory))
        handler.log_message = lambda *a, **k: None
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                     handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever,
                         daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    images = tmp_path_factory.mktemp("images")
    (images / "ipa.kernel").write_bytes(KERNEL)
    (images / "ipa.initramfs").write_bytes(RAMDISK)
    root = tmp_path_factory.mktemp("boot-roots")
    (root / "httpboot").mkdir()
    image_server = _Server(images)
    boot_server = _Server(root / "httpboot")
    drivers = dict(svc.TEST_DRIVERS,
                   enabled_boot_interfaces="fake,pxe,ipxe",
                   enabled_inspect_interfaces="fake,no-inspect,agent")
    sections = {
        "pxe": {"tftp_root": str(root / "tftpboot"),
                "tftp_master_path": str(root / "tftpboot" / "master"),
                "tftp_server": "127.0.0.1"},
        "deploy": {"http_root": str(root / "httpboot"),
                   "http_url": boot_server.url},
    }
    service = fconf.run_service(tmp_path_factory, "aio-netboot",
                                drivers=drivers, sections=sections)
    server = next(service)
    conn = fconf.sdk_connection(server.endpoint)
    try:
        yield {"service": server, "root": root, "images": image_server.url,
               "http_url": boot_server.url,
               "cli": svc.Cli(server.endpoint), "conn": conn}
    finally:
        conn.close()
        next(service, None)
        image_server.close()
        boot_server.close()


def _until_state(conn, uuid: str, wanted: str):
    deadline = time.monotonic() + WAIT
    while True:
        node = conn.baremetal.get_node(uuid)
        if node.provision_state == wanted:
            return node
        if time.monotonic() > deadline:
            pytest.fail(f"node {uuid} stayed {node.provision_state} "
                        f"({node.last_error}), expected {wanted}")
        time.sleep(0.2)


def _inspect(env, boot: str, name: str, mac: str) -> str:
    cli = env["cli"]
    node = cli.json(
        "node", "create", "--driver", "fake-hardware", "--name", name,
        "--boot-interface", boot, "--inspect-interface", "agent",
        "--driver-info", f"deploy_kernel={env['images']}/ipa.kernel",
        "--driver-info", f"deploy_ramdisk={env['images']}/ipa.initramfs",
        "--property", "capabilities=boot_mode:bios")
    cli.run("port", "create", mac, "--node", node["uuid"])
    cli.run("node", "manage", name, "--wait", "30")
    cli.run("node", "validate", name)
    cli.run("node", "inspect", name)
    _until_state(env["conn"], node["uuid"], "inspect wait")
    return node["uuid"]


def _fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return resp.read()


def test_pxe_ramdisk_boot_files_then_abort_removes_them(env, unique):
    uuid = _inspect(env, "pxe", f"pxe-{unique}", OTHER_MAC)
    tftp = env["root"] / "tftpboot"
    link = tftp / "pxelinux.cfg" / f"01-{OTHER_MAC.replace(':', '-')}"
    config = link.read_text()
    assert os.path.realpath(link) == str(tftp / uuid / "config")
    kernel = re.search(r"^\s*kernel (\S+)$", config, re.M).group(1)
    initrd = re.search(r"append initrd=(\S+) (.*)$", config, re.M)
    # What a TFTP client would fetch, relative to the TFTP root.
    assert (tftp / kernel).read_bytes() == KERNEL
    assert (tftp / initrd.group(1)).read_bytes() == RAMDISK
    params = initrd.group(2).split()
    assert f"ipa-api-url=http://127.0.0.1:{env['service'].port}" in params
    assert any(p.startswith("ipa-inspection-callback-url=") for p in params)
    assert not any("token" in p for p in params)
    env["cli"].run("node", "abort", uuid)
    _until_state(env["conn"], uuid, "inspect failed")
    assert not (tftp / uuid).exists()
    assert not os.path.lexists(link)
    # The cache keeps the images for the next node.
    assert len([p for p in os.listdir(tftp / "master")
                if "." not in p]) == 2


def test_ipxe_client_path_over_http_then_inspection_cleans_up(
        env, unique, tmp_path):
    uuid = _inspect(env, "ipxe", f"ipxe-{unique}", MAC)
    http_root = env["root"] / "httpboot"
    base = f"{env['service'].endpoint}"
    # What iPXE does: boot.ipxe, then the script of its MAC (hexhyp).
    boot_script = _fetch(f"{env['http_url']}/boot.ipxe").decode()
    chain = re.search(r"chain --autofree (\S+)/\$\{mac:hexhyp\}",
                      boot_script).group(1)
    script = _fetch(f"{env['http_url']}/{chain}/"
                    f"{MAC.replace(':', '-')}").decode()
    assert script.startswith("#!ipxe")
    kernel_line = re.search(r"^kernel (\S+) (.*)$", script, re.M)
    initrd_url = re.search(r"^initrd (\S+)", script, re.M).group(1)
    assert _fetch(kernel_line.group(1)) == KERNEL
    assert _fetch(initrd_url) == RAMDISK
    assert f"ipa-api-url={base}" in kernel_line.group(2).split()
    # The ramdisk posts its data; the inspection ends and cleans up.
    sample = tmp_path / "inspection.json"
    sample.write_text(json.dumps(data.ipa_inspection_data()))
    assert ipa(base, "inspect", str(sample))["error"] is None
    _until_state(env["conn"], uuid, "manageable")
    assert not (http_root / uuid).exists()
    assert not os.path.lexists(http_root / "pxelinux.cfg" /
                               MAC.replace(":", "-"))
    assert (http_root / "boot.ipxe").exists()

