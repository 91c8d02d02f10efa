"""Instance images checked, converted and served before the agent gets them.

The all-in-one service deploys with the ``direct`` interface and the
emulated agent (``ironic.tests.emulators.agent``, which downloads what it is
given and checks its checksum). Images come from a loopback HTTP server
that can also answer 404 and cut a download short; the conductor's HTTP
root is served by another. ``image_download_source = local`` makes the
conductor fetch, verify and (``force_raw_images``) convert with the real
``qemu-img`` before serving; every fault fails the deployment with a clear
``last_error`` and leaves nothing in the cache or the HTTP root.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import os
import re
import shutil
import subprocess
import threading
import urllib.request

import pytest

from ironic.tests.emulators import agent as agent_emu
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.functional.test_agent_deploy import _mac, _until

RAW = b"an instance image " * 4096 + b"\x00" * 8192  # 144 sectors
DRIVERS = dict(svc.TEST_DRIVERS, enabled_deploy_interfaces="fake,direct")


class _ImageHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/truncated.img":
            # Announces more than it sends, then hangs up.
            self.send_response(200)
            self.send_header("Content-Length", str(len(RAW)))
            self.end_headers()
            self.wfile.write(RAW[:len(RAW) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        super().do_GET()


def _serve(directory, handler=http.server.SimpleHTTPRequestHandler):
    bound = functools.partial(handler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), bound)
    server.RequestHandlerClass.log_message = lambda *a: None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if shutil.which("qemu-img") is None:
        if os.environ.get("CI"):
            pytest.fail("qemu-img is missing (tools/install-system-deps.sh)")
        pytest.skip("qemu-img is missing")
    base = tmp_path_factory.mktemp("images")
    images, root = base / "images", base / "httpboot"
    images.mkdir()
    root.mkdir()
    (images / "disk.raw").write_bytes(RAW)
    subprocess.run(["qemu-img", "convert", "-f", "raw", "-O", "qcow2",
                    str(images / "disk.raw"), str(images / "disk.qcow2")],
                   check=True)
    subprocess.run(["qemu-img", "convert", "-f", "raw", "-O", "vmdk",
                    str(images / "disk.raw"), str(images / "disk.vmdk")],
                   check=True)
    sums = "".join(f"{hashlib.sha256((images / n).read_bytes()).hexdigest()}"
                   f"  {n}\n" for n in ("disk.raw", "disk.qcow2"))
    (images / "SHA256SUMS").write_text(sums)
    image_server, image_url = _serve(images, _ImageHandler)
    root_server, root_url = _serve(root)
    cache = base / "master_images"
    sections = {
        "deploy": {"http_url": root_url, "http_root": str(root)},
        "pxe": {"instance_master_path": str(cache)},
        "agent": {"post_deploy_get_power_state_retries": "0",
                  "command_wait_interval": "1",
                  "image_download_source": "local"},
        "conductor": {"check_provision_state_interval": "1"},
    }
    gen = fconf.run_service(tmp_path_factory, "aio-images",
                            drivers=DRIVERS, sections=sections)
    aio = next(gen)
    conn = fconf.sdk_connection(aio.endpoint, baremetal_api_version="1.72")
    yield type("Lab", (), {"aio": aio, "conn": conn, "images": image_url,
                           "root": root, "cache": cache,
                           "files": images})
    conn.close()
    for server in (image_server, root_server):
        server.shutdown()
        server.server_close()
    with pytest.raises(StopIteration):
        next(gen)


def _available(lab, name, **instance_info):
    conn, mac = lab.conn, _mac()
    node = conn.baremetal.create_node(
        driver="fake-hardware", name=name, deploy_interface="direct",
        boot_interface="fake", power_interface="fake",
        management_interface="fake", network_interface="noop",
        automated_clean=False, instance_info=instance_info)
    conn.baremetal.create_port(node_id=node.id, address=mac)
    conn.baremetal.set_node_provision_state(node.id, "manage")
    _until(conn, node.id, "manageable")
    conn.baremetal.set_node_provision_state(node.id, "provide")
    _until(conn, node.id, "available")
    return node.id, mac


def _masters(lab):
    """Image files in the cache (lock files are empty and stay)."""
    if not lab.cache.exists():
        return []
    return [p.name for p in lab.cache.iterdir()
            if not p.name.endswith(".lock")]


def _published(lab, uuid):
    return (lab.root / "agent_images" / uuid).exists()


def test_qcow2_is_verified_converted_and_served_raw(lab):
    uuid, mac = _available(
        lab, "image-qcow2", image_source=f"{lab.images}/disk.qcow2",
        image_checksum=f"{lab.images}/SHA256SUMS",
        image_disk_format="qcow2")
    with agent_emu.AgentEmulator(lab.aio.endpoint, [mac]) as agent:
        lab.conn.baremetal.set_node_provision_state(uuid, "active")
        node = _until(lab.conn, uuid, "active", "deploy failed")
        assert node.provision_state == "active", node.last_error
        info = agent.written[0]["image_info"]
    # The agent was sent to the conductor's HTTP root, with the digest of
    # the raw image it finds there.
    assert info["urls"][0].endswith(f"/agent_images/{uuid}")
    assert info["disk_format"] == "raw"
    assert info["os_hash_algo"] == "sha256"
    assert info["os_hash_value"] == hashlib.sha256(RAW).hexdigest()
    with urllib.request.urlopen(info["urls"][0], timeout=30) as resp:
        assert resp.read() == RAW
    assert len(_masters(lab)) == 2  # the master and its record
    lab.conn.baremetal.set_node_provision_state(uuid, "deleted")
    _until(lab.conn, uuid, "available")
    assert not _published(lab, uuid)
    lab.conn.baremetal.delete_node(uuid)


@pytest.mark.parametrize("name,instance_info,error", [
    ("wrong-checksum", {"image_source": "/disk.raw",
                        "image_checksum": "sha256:" + "0" * 64},
     "sha256 checksum is"),
    ("missing", {"image_source": "/no-such.img",
                 "image_checksum": "a" * 64},
     "answered 404"),
    ("missing-http", {"image_source": "/no-such.img",
                      "image_checksum": "a" * 64,
                      "image_download_source": "http"},
     "the image server answered 404"),
    ("truncated", {"image_source": "/truncated.img",
                   "image_checksum": hashlib.sha256(RAW).hexdigest()},
     r"the download failed \(.*IncompleteRead"),
    ("vmdk", {"image_source": "/disk.vmdk", "image_checksum": "vmdk"},
     "format is vmdk, not one of the permitted formats"),
    ("no-checksum-line", {"image_source": "/disk.vmdk",
                          "image_checksum": "/SHA256SUMS"},
     "has no checksum for 'disk.vmdk'"),
])
def test_image_faults_fail_the_deployment_cleanly(lab, name, instance_info,
                                                  error):
    info = dict(instance_info)
    info["image_source"] = lab.images + info["image_source"]
    if info["image_checksum"] == "vmdk":
        info["image_checksum"] = hashlib.sha256(
            (lab.files / "disk.vmdk").read_bytes()).hexdigest()
    elif info["image_checksum"].startswith("/"):
        info["image_checksum"] = lab.images + info["image_checksum"]
    before = sorted(_masters(lab))
    uuid, _ = _available(lab, f"image-{name}", **info)
    lab.conn.baremetal.set_node_provision_state(uuid, "active")
    node = _until(lab.conn, uuid, "deploy failed", "active")
    assert node.provision_state == "deploy failed"
    assert node.last_error.startswith("Failed to deploy: Image ")
    assert "cannot be deployed" in node.last_error
    assert re.search(error, node.last_error), node.last_error
    assert sorted(_masters(lab)) == before
    assert not _published(lab, uuid)
    assert node.power_state == "power off"
