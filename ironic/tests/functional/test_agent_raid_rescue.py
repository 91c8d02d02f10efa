"""The ``agent`` RAID and rescue interfaces with an emulated agent.

The all-in-one service runs as a process; ``ironic.tests.emulators.agent``
looks the node up and heartbeats over HTTP like ironic-python-agent and
records the commands it gets. Rescue boots the rescue ramdisk with the
``pxe`` boot interface (its files land in a temporary TFTP root) and hands
the agent the hashed password; RAID runs as manual cleaning and deploy
steps in the agent and ends in the node's ``raid_config``.
"""

from __future__ import annotations

import json
import time
import uuid as uuid_mod

import pytest

from ironic.common import password_hash
from ironic.tests.emulators import agent as agent_emu
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc

WAIT = 60.0
RAID_STEPS = [agent_emu._step("delete_configuration", interface="raid"),
              agent_emu._step("create_configuration", interface="raid")]
TARGET = {"logical_disks": [
    {"size_gb": 100, "raid_level": "1", "is_root_volume": True},
    {"size_gb": "MAX", "raid_level": "0"}]}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    images = tmp_path_factory.mktemp("rescue-images")
    for name in ("deploy.kernel", "deploy.initrd", "rescue.kernel",
                 "rescue.initrd"):
        (images / name).write_bytes(name.encode() * 100)
    tftp = tmp_path_factory.mktemp("tftp")
    drivers = dict(svc.TEST_DRIVERS,
                   enabled_boot_interfaces="fake,pxe",
                   enabled_deploy_interfaces="fake,direct",
                   enabled_raid_interfaces="fake,no-raid,agent",
                   enabled_rescue_interfaces="fake,no-rescue,agent")
    sections = {
        "pxe": {"tftp_root": str(tftp),
                "tftp_master_path": str(tftp / "master")},
        "conductor": {"check_provision_state_interval": "1"},
        "agent": {"command_wait_interval": "1"},
    }
    service = fconf.run_service(tmp_path_factory, "aio-raid-rescue",
                                drivers=drivers, sections=sections)
    server = next(service)
    conn = fconf.sdk_connection(server.endpoint,
                                baremetal_api_version="1.72")
    try:
        yield {"service": server, "conn": conn, "tftp": tftp,
               "image": lambda name: (images / name).as_uri()}
    finally:
        conn.close()
        next(service, None)


def _mac() -> str:
    return "02:" + ":".join(f"{b:02x}" for b in uuid_mod.uuid4().bytes[:5])


def _until(conn, uuid, *wanted):
    deadline = time.monotonic() + WAIT
    while True:
        node = conn.baremetal.get_node(uuid)
        if node.provision_state in wanted and node.reservation is None:
            return node
        if time.monotonic() > deadline:
            pytest.fail(f"node {uuid} is {node.provision_state} "
                        f"({node.last_error}), expected {wanted}")
        time.sleep(0.1)


def _node(env, **fields):
    conn = env["conn"]
    mac = _mac()
    node = conn.baremetal.create_node(
        driver="fake-hardware", power_interface="fake",
        management_interface="fake", network_interface="noop",
        automated_clean=False, **fields)
    conn.baremetal.create_port(node_id=node.id, address=mac)
    conn.baremetal.set_node_provision_state(node.id, "manage")
    _until(conn, node.id, "manageable")
    return node.id, mac


def _set_target(env, uuid):
    # openstacksdk has no call for it; the CLI has.
    svc.Cli(env["service"].endpoint).run(
        "node", "set", uuid, "--target-raid-config", json.dumps(TARGET))


def test_rescue_boots_the_rescue_ramdisk_and_hands_over_the_hash(env):
    conn, tftp = env["conn"], env["tftp"]
    uuid, mac = _node(env, boot_interface="pxe", deploy_interface="fake",
                      rescue_interface="agent", driver_info={
                          "deploy_kernel": env["image"]("deploy.kernel"),
                          "deploy_ramdisk": env["image"]("deploy.initrd"),
                          "rescue_kernel": env["image"]("rescue.kernel"),
                          "rescue_ramdisk": env["image"]("rescue.initrd")})
    conn.baremetal.set_node_provision_state(uuid, "provide")
    _until(conn, uuid, "available")
    conn.baremetal.set_node_provision_state(uuid, "active")
    _until(conn, uuid, "active")
    conn.baremetal.set_node_provision_state(uuid, "rescue",
                                            rescue_password="s3cret!")
    node = _until(conn, uuid, "rescue wait", "rescue failed")
    assert node.provision_state == "rescue wait", node.last_error
    # The node boots the rescue ramdisk over the network...
    assert (tftp / uuid / "rescue_kernel").read_bytes() == \
        b"rescue.kernel" * 100
    assert "rescue_kernel" in (tftp / uuid / "config").read_text()
    # ... and its agent gets the password hashed, never in the clear.
    with agent_emu.AgentEmulator(env["service"].endpoint, [mac]) as agent:
        node = _until(conn, uuid, "rescue", "rescue failed")
        assert node.provision_state == "rescue", node.last_error
        [params] = agent.posted_params("rescue.finalize_rescue")
    assert params["hashed"] is True
    hashed = params["rescue_password"]
    assert hashed.startswith("$5$") and "s3cret!" not in hashed
    salt = hashed.split("$")[2]
    assert password_hash.sha_crypt("s3cret!", "sha256", salt) == hashed
    assert "rescue_password" not in node.instance_info
    assert "hashed_rescue_password" not in node.instance_info
    assert not (tftp / uuid).exists()
    conn.baremetal.set_node_provision_state(uuid, "unrescue")
    node = _until(conn, uuid, "active", "unrescue failed")
    assert node.provision_state == "active", node.last_error
    assert node.power_state == "power on"


def test_raid_clean_steps_run_in_the_agent(env):
    conn = env["conn"]
    uuid, mac = _node(env, boot_interface="fake", deploy_interface="direct",
                      raid_interface="agent")
    conn.baremetal.patch_node(uuid, [{"op": "add", "path": "/properties",
                                      "value": {"local_gb": 10}}])
    _set_target(env, uuid)
    with agent_emu.AgentEmulator(env["service"].endpoint, [mac],
                                 clean_steps=RAID_STEPS) as agent:
        conn.baremetal.set_node_provision_state(uuid, "clean", clean_steps=[
            {"interface": "raid", "step": "delete_configuration"},
            {"interface": "raid", "step": "create_configuration",
             "args": {"create_nonroot_volumes": False}}])
        node = _until(conn, uuid, "manageable", "clean failed")
        assert node.provision_state == "manageable", node.last_error
        sent = agent.posted_params("clean.execute_clean_step")
    assert [p["step"]["step"] for p in sent] == ["delete_configuration",
                                                 "create_configuration"]
    # The agent was handed the root volume only, and builds nothing else.
    assert sent[1]["node"]["target_raid_config"] == {
        "logical_disks": [TARGET["logical_disks"][0]]}
    assert sent[1]["step"]["args"] == {}
    assert node.raid_config["logical_disks"] == [TARGET["logical_disks"][0]]
    assert node.properties["local_gb"] == 100
    assert "raid_level:1" in node.properties["capabilities"]


def test_failed_raid_step_fails_cleaning_with_the_agent_error(env):
    conn = env["conn"]
    uuid, mac = _node(env, boot_interface="fake", deploy_interface="direct",
                      raid_interface="agent")
    _set_target(env, uuid)
    with agent_emu.AgentEmulator(
            env["service"].endpoint, [mac], clean_steps=RAID_STEPS,
            failing_steps={"create_configuration": "no disks"}):
        conn.baremetal.set_node_provision_state(uuid, "clean", clean_steps=[
            {"interface": "raid", "step": "create_configuration"}])
        node = _until(conn, uuid, "clean failed")
    assert "no disks" in node.last_error
    assert not node.raid_config
