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
import json
import threading
import time
import urllib.request
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
                                      baremetal_api_version="1.72")
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


def _deployable(conn, image_server, name, **fields):
    """An available node that skips automated cleaning."""
    uuid, mac = _node(conn, image_server, name, automated_clean=False,
                      **fields)
    _manageable(conn, uuid)
    conn.baremetal.set_node_provision_state(uuid, "provide")
    _until(conn, uuid, "available")
    return uuid, mac


def _deploy(conn, uuid, **kwargs):
    conn.baremetal.set_node_provision_state(uuid, "active", **kwargs)
    return _until(conn, uuid, "active", "deploy failed")


def test_templates_add_inband_steps_between_41_and_99(aio, conn,
                                                      image_server):
    trait = "CUSTOM_AGENT_STEPS"
    conn.baremetal.create_deploy_template(name=trait, steps=[
        # In the agent's window: runs after deploy, before write_image.
        {"interface": "deploy", "step": "erase_devices_metadata",
         "args": {}, "priority": 90},
        # After tear_down_agent the agent is gone: ignored.
        {"interface": "deploy", "step": "inject_files", "args": {},
         "priority": 30}])
    uuid, mac = _deployable(conn, image_server, "agent-template")
    conn.baremetal.add_node_trait(uuid, trait)
    conn.baremetal.update_node(
        uuid, instance_info=dict(_instance_info(image_server),
                                 traits=[trait]))
    with agent_emu.AgentEmulator(aio.endpoint, [mac]) as agent:
        node = _deploy(conn, uuid)
        assert node.provision_state == "active", node.last_error
        assert agent.posted() == [
            "deploy.get_deploy_steps", "deploy.execute_deploy_step",
            "deploy.execute_deploy_step", "standby.get_partition_uuids",
            "image.install_bootloader", "standby.power_off"]
        ran = [p["step"] for p in
               agent.posted_params("deploy.execute_deploy_step")]
        assert [(s["step"], s.get("priority")) for s in ran] == [
            ("erase_devices_metadata", 90), ("write_image", None)]
        # The agent's step version check gets what it reported.
        assert agent.posted_params("deploy.execute_deploy_step")[0][
            "deploy_version"] == agent_emu.HW_VERSIONS
    conn.baremetal.delete_deploy_template(trait)


def test_unknown_inband_step_fails_once_the_agent_reported(aio, conn,
                                                           image_server):
    uuid, mac = _deployable(conn, image_server, "agent-unknown-step")
    with agent_emu.AgentEmulator(aio.endpoint, [mac]) as agent:
        # Accepted by the API: the agent may offer it...
        node = _deploy(conn, uuid, deploy_steps=[
            {"interface": "deploy", "step": "no_such_step", "args": {},
             "priority": 70}])
        # ... but it does not.
        assert node.provision_state == "deploy failed"
        assert "no_such_step" in node.last_error
        assert agent.posted() == ["deploy.get_deploy_steps"]


def test_failing_inband_step_fails_the_deployment(aio, conn, image_server):
    uuid, mac = _deployable(conn, image_server, "agent-failing")
    with agent_emu.AgentEmulator(aio.endpoint, [mac], failing_steps={
            "write_image": "No space left on device"}) as agent:
        node = _deploy(conn, uuid)
        assert node.provision_state == "deploy failed"
        assert "deploy.write_image" in node.last_error
        assert "No space left on device" in node.last_error
        # The agent's logs were collected ([agent]deploy_logs_collect
        # on_failure by default).
        assert agent.posted() == ["deploy.get_deploy_steps",
                                  "deploy.execute_deploy_step",
                                  "log.collect_system_logs"]


def test_agent_without_write_image_step_writes_a_partition_image(
        aio, conn, image_server):
    uuid, mac = _deployable(conn, image_server, "agent-legacy")
    conn.baremetal.update_node(uuid, instance_info=dict(
        _instance_info(image_server), kernel="http://127.0.0.1:1/k",
        ramdisk="http://127.0.0.1:1/r", root_gb=10))
    with agent_emu.AgentEmulator(aio.endpoint, [mac],
                                 deploy_steps=[]) as agent:
        node = _deploy(conn, uuid)
        assert node.provision_state == "active", node.last_error
        assert agent.posted() == [
            "deploy.get_deploy_steps", "standby.prepare_image",
            "standby.get_partition_uuids", "image.install_bootloader",
            "standby.power_off"]
        info = agent.posted_params("standby.prepare_image")[0]["image_info"]
        assert info["image_type"] == "partition" and info["root_gb"] == 10
        boot = agent.posted_params("image.install_bootloader")[0]
        written = agent.written[0]
        assert boot["root_uuid"] and boot["efi_system_part_uuid"]
        assert written["image_info"]["id"] == "disk.img"
        assert node.driver_internal_info["is_whole_disk_image"] is False
        assert node.driver_internal_info["root_uuid_or_disk_id"] == \
            boot["root_uuid"]


def test_manual_clean_in_band_over_tls(aio, conn, image_server):
    uuid, mac = _node(conn, image_server, "agent-clean-tls")
    _manageable(conn, uuid)
    with agent_emu.AgentEmulator(aio.endpoint, [mac], tls=True) as agent:
        assert agent.callback_url.startswith("https://")
        conn.baremetal.set_node_provision_state(
            uuid, "clean", clean_steps=[
                {"interface": "deploy", "step": "burnin_cpu"}])
        node = _until(conn, uuid, "manageable", "clean failed")
        assert node.provision_state == "manageable", node.last_error
        assert node.power_state == "power off"
        assert agent.posted() == ["clean.get_clean_steps",
                                  "clean.execute_clean_step"]
        step = agent.posted_params("clean.execute_clean_step")[0]["step"]
        assert step["step"] == "burnin_cpu"
        # The erase settings travel with the node the agent receives.
        sent = agent.posted_params("clean.execute_clean_step")[0]["node"]
        assert sent["driver_internal_info"][
            "agent_erase_devices_iterations"] == 1
    conn.baremetal.delete_node(uuid)


def test_clean_step_asking_for_a_reboot(aio, conn, image_server):
    uuid, mac = _node(conn, image_server, "agent-clean-reboot")
    _manageable(conn, uuid)
    steps = [dict(agent_emu.DEFAULT_CLEAN_STEPS[2], reboot_requested=True),
             agent_emu.DEFAULT_CLEAN_STEPS[0]]
    with agent_emu.AgentEmulator(aio.endpoint, [mac],
                                 clean_steps=steps) as agent:
        conn.baremetal.set_node_provision_state(
            uuid, "clean", clean_steps=[
                {"interface": "deploy", "step": "burnin_cpu"},
                {"interface": "deploy", "step": "erase_devices"}])
        node = _until(conn, uuid, "manageable", "clean failed")
        assert node.provision_state == "manageable", node.last_error
        # The second step ran in the agent booted after the reboot.
        assert agent.boots == 2
        assert agent.posted() == ["clean.get_clean_steps",
                                  "clean.execute_clean_step",
                                  "clean.execute_clean_step"]
    conn.baremetal.delete_node(uuid)


def test_abort_in_clean_wait(aio, conn, image_server):
    uuid, mac = _node(conn, image_server, "agent-abort")
    _manageable(conn, uuid)
    with agent_emu.AgentEmulator(aio.endpoint, [mac],
                                 step_seconds=60) as agent:
        conn.baremetal.set_node_provision_state(
            uuid, "clean", clean_steps=[
                {"interface": "deploy", "step": "burnin_cpu"}])
        deadline = time.monotonic() + WAIT
        while "clean.execute_clean_step" not in agent.posted():
            assert time.monotonic() < deadline, agent.posted()
            time.sleep(0.1)
        _until(conn, uuid, "clean wait")
        conn.baremetal.set_node_provision_state(uuid, "abort")
        node = _until(conn, uuid, "clean failed")
        assert "Aborted" in node.last_error
        assert node.power_state == "power off"
        # Powered off: the agent is gone, nothing more was sent to it.
        assert agent.posted() == ["clean.get_clean_steps",
                                  "clean.execute_clean_step"]
    _manageable(conn, uuid)
    conn.baremetal.delete_node(uuid)


def test_ramdisk_deploy_boots_without_the_agent(aio, conn, image_server):
    uuid, _mac = _deployable(conn, image_server, "ramdisk-deploy",
                             )
    conn.baremetal.update_node(uuid, deploy_interface="ramdisk",
                               instance_info={"kernel": "http://x/k",
                                              "ramdisk": "http://x/r"})
    node = _deploy(conn, uuid)
    assert node.provision_state == "active", node.last_error
    assert node.power_state == "power on"


# ---------------------------------------------------------------------------
# services of their own: a short call-back timeout, a restart

def test_wait_call_back_times_out(tmp_path_factory, image_server):
    sections = dict(SECTIONS, conductor={
        "check_provision_state_interval": "1",
        "deploy_callback_timeout": "2"})
    for aio in fconf.run_service(tmp_path_factory, "aio-agent-timeout",
                                 drivers=DRIVERS, sections=sections):
        conn = fconf.sdk_connection(aio.endpoint,
                                    baremetal_api_version="1.68")
        uuid, _mac = _deployable(conn, image_server, "agent-never-comes")
        conn.baremetal.set_node_provision_state(uuid, "active")
        node = _until(conn, uuid, "deploy failed")
        assert "Timeout reached while waiting for deploy" in \
            node.last_error
        conn.close()


def test_conductor_restart_resumes_at_the_recorded_step(tmp_path_factory,
                                                         image_server):
    workdir = tmp_path_factory.mktemp("aio-agent-restart")
    first = svc.Service(workdir, drivers=DRIVERS, sections=SECTIONS).start()
    conn = fconf.sdk_connection(first.endpoint, baremetal_api_version="1.68")
    uuid, mac = _deployable(conn, image_server, "agent-restart")
    with agent_emu.AgentEmulator(first.endpoint, [mac],
                                 step_seconds=4) as agent:
        conn.baremetal.set_node_provision_state(uuid, "active")
        deadline = time.monotonic() + WAIT
        while "deploy.execute_deploy_step" not in agent.posted():
            assert time.monotonic() < deadline, agent.posted()
            time.sleep(0.05)
        waiting = _until(conn, uuid, "wait call-back")
        assert waiting.deploy_step["step"] == "write_image"
        assert first.stop() == 0
        second = svc.Service(workdir, port=first.port, drivers=DRIVERS,
                             sections=SECTIONS).start()
        try:
            node = _until(conn, uuid, "active", "deploy failed")
            assert node.provision_state == "active", node.last_error
            # The image was written once: the new conductor polled the
            # command the old one started.
            assert agent.posted() == DEPLOY_COMMANDS
        finally:
            conn.close()
            assert second.stop() == 0


def _service(endpoint, uuid, service_steps):
    req = urllib.request.Request(
        f"{endpoint}/v1/nodes/{uuid}/states/provision", method="PUT",
        data=json.dumps({"target": "service",
                         "service_steps": service_steps}).encode(),
        headers={"Content-Type": "application/json",
                 "X-OpenStack-Ironic-API-Version": "1.87"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        assert resp.status == 202


def test_service_an_active_node_in_band(aio, conn, image_server):
    uuid, mac = _deployable(conn, image_server, "agent-service")
    with agent_emu.AgentEmulator(aio.endpoint, [mac]) as agent:
        assert _deploy(conn, uuid).provision_state == "active"
        before = len(agent.posted())
        _service(aio.endpoint, uuid, [{"interface": "deploy",
                                       "step": "burnin_cpu"}])
        node = _until(conn, uuid, "active", "service failed")
        assert node.provision_state == "active", node.last_error
        assert agent.posted()[before:] == ["service.get_service_steps",
                                           "service.execute_service_step"]
        # Back to the instance.
        assert node.power_state == "power on"
