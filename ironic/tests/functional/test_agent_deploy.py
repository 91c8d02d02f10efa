"""The ``direct`` deploy and in-band cleaning with an emulated agent.

The all-in-one service runs as a process with fake power, management and
boot and the ``direct`` deploy interface; the agent is
``ironic.tests.emulators.agent``, which looks the node up and heartbeats
over HTTP like ironic-python-agent and records every command the service
sends it. The instance image is served by a loopback HTTP server; the
emulated agent downloads it and checks its checksum.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import threading
import time
import uuid as uuid_mod

import pytest

from ironic.tests.emulators import agent as agent_emu
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc

WAIT = 60.0
IMAGE = b"\x00" * 4096 + b"a whole disk image" + b"\x01" * 4096

DRIVERS = dict(svc.TEST_DRIVERS, enabled_deploy_interfaces="fake,direct,ramdisk")
SECTIONS = {
    # Fake power cannot see the agent shut the node down: do not wait.
    "agent": {"post_deploy_get_power_state_retries": "0",
              "command_wait_interval": "1"},
    "conductor": {"check_provision_state_interval": "1"},
}
DEPLOY_COMMANDS = ["deploy.get_deploy_steps", "deploy.execute_deploy_step",
                   "standby.get_partition_uuids", "image.install_bootloader",
                   "standby.power_off"]


@pytest.fixture(scope="module")
def image_server(tmp_path_factory):
    """Serves IMAGE as /disk.img on loopback."""
    root = tmp_path_factory.mktemp("images")
    (root / "disk.img").write_bytes(IMAGE)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler,
                                directory=str(root))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def aio(tmp_path_factory):
    yield from fconf.run_service(tmp_path_factory, "aio-agent",
                                 drivers=DRIVERS, sections=SECTIONS)


@pytest.fixture(scope="module")
def conn(aio):
    connection = fconf.sdk_connection(aio.endpoint,
                                      baremetal_api_version="1.68")
    yield connection
    connection.close()


def _mac() -> str:
    raw = uuid_mod.uuid4().bytes[:5]
    return "02:" + ":".join(f"{b:02x}" for b in raw)


def _instance_info(image_server: str) -> dict:
    return {"image_source": f"{image_server}/disk.img",
            "image_os_hash_algo": "sha256",
            "image_os_hash_value": hashlib.sha256(IMAGE).hexdigest(),
            "image_disk_format": "raw"}


def _node(conn, image_server, name, **fields):
    mac = _mac()
    node = conn.baremetal.create_node(
        driver="fake-hardware", name=name, deploy_interface="direct",
        boot_interface="fake", power_interface="fake",
        management_interface="fake", network_interface="noop",
        instance_info=_instance_info(image_server), **fields)
    conn.baremetal.create_port(node_id=node.id, address=mac)
    return node.id, mac


def _until(conn, uuid, *wanted, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while True:
        node = conn.baremetal.get_node(uuid)
        if node.provision_state in wanted and node.reservation is None:
            return node
        if time.monotonic() > deadline:
            pytest.fail(f"node {uuid} is {node.provision_state} "
                        f"({node.last_error}), expected {wanted}")
        time.sleep(0.1)


def _manageable(conn, uuid):
    conn.baremetal.set_node_provision_state(uuid, "manage")
    return _until(conn, uuid, "manageable")


def _available(conn, uuid, agent):
    """manage, provide: automated cleaning runs in the agent."""
    _manageable(conn, uuid)
    conn.baremetal.set_node_provision_state(uuid, "provide")
    node = _until(conn, uuid, "available", "clean failed")
    assert node.provision_state == "available", node.last_error
    return node


def test_provide_deploy_undeploy_with_the_agent(aio, conn, image_server):
    uuid, mac = _node(conn, image_server, "agent-deploy")
    with agent_emu.AgentEmulator(aio.endpoint, [mac]) as agent:
        _available(conn, uuid, agent)
        # Automated cleaning: the agent's erase steps by priority.
        assert agent.posted() == ["clean.get_clean_steps",
                                  "clean.execute_clean_step",
                                  "clean.execute_clean_step"]
        ran = [p["step"]["step"] for p in
               agent.posted_params("clean.execute_clean_step")]
        assert ran == ["erase_devices_metadata", "erase_devices"]
        before = len(agent.received)

        conn.baremetal.set_node_provision_state(uuid, "active")
        node = _until(conn, uuid, "active", "deploy failed")
        assert node.provision_state == "active", node.last_error
        assert node.power_state == "power on"
        sent = [r for r in agent.received[before:] if r["method"] == "POST"]
        assert [r["name"] for r in sent] == DEPLOY_COMMANDS
        # Every command carried the token the agent got on lookup.
        assert all(r["query"].get("agent_token") for r in sent)
        write = sent[1]["params"]["step"]
        assert write["step"] == "write_image"
        info = write["args"]["image_info"]
        assert info["urls"] == [f"{image_server}/disk.img"]
        assert info["os_hash_algo"] == "sha256"
        assert info["node_uuid"] == uuid
        assert agent.written, "the agent did not write the image"
        boot = sent[3]["params"]
        assert boot["root_uuid"] == "0x5a7e1d0c"
        assert boot["target_boot_mode"] == "uefi"
        internal = node.driver_internal_info
        assert internal["is_whole_disk_image"] is True
        assert internal["root_uuid_or_disk_id"] == "0x5a7e1d0c"
        assert "agent_url" not in internal

        before = len(agent.received)
        conn.baremetal.set_node_provision_state(uuid, "deleted")
        node = _until(conn, uuid, "available", "clean failed", "error")
        assert node.provision_state == "available", node.last_error
        assert agent.posted()[-3:] == ["clean.get_clean_steps",
                                       "clean.execute_clean_step",
                                       "clean.execute_clean_step"]
        assert node.power_state == "power off"
    conn.baremetal.delete_node(uuid)
