"""The real ironic-python-agent (PyPI), booted by an emulated BMC.

An ``ipmi`` node whose BMC, at power on, starts the unmodified agent from
its own virtualenv (ironic.tests.realagent): isolated from the host (an
unprivileged user when run as root, commands that change anything refused,
no writes under /dev, /proc, /sys) and shown one file-backed disk and the
machine's NIC by its hardware manager. A manual clean with the in-band
step ``erase_devices_metadata`` must go through the agent's lookup, token,
heartbeats and command API and erase exactly the file disk's metadata,
even though a lookup while the node was manageable had issued a token
(``[api]restrict_lookup = false``): the agent must get a fresh one.

The agent's virtualenv is installed on first use (IRONIC_IPA_VENV, default
.tox/ipa-agent): without network access and without it, the test skips
(fails under CI=true).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time

import pytest

from ironic.tests.emulators.ipmi_bmc import machine_mac
from ironic.tests.emulators.launch import IpmiEmulator, require_ipmitool
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.functional.test_agent_deploy import _until
from ironic.tests.functional.test_ipa_client import ipa
from ironic.tests.functional.test_network_boot import _Server
from ironic.tests.realagent import agent_venv, launch

MIB = 1024 * 1024
DRIVERS = dict(svc.TEST_DRIVERS, enabled_hardware_types="ipmi,fake-hardware",
               enabled_deploy_interfaces="fake,direct",
               enabled_power_interfaces="fake,ipmitool",
               enabled_management_interfaces="fake,ipmitool",
               enabled_vendor_interfaces="fake,no-vendor,ipmitool",
               enabled_console_interfaces="fake,no-console",
               enabled_inspect_interfaces="fake,no-inspect,agent")


@pytest.fixture(scope="module")
def agent_python():
    try:
        return agent_venv.ensure()
    except (OSError, subprocess.CalledProcessError) as exc:
        message = f"cannot install ironic-python-agent: {exc}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    """A loopback HTTP server of instance images, and its directory."""
    directory = tmp_path_factory.mktemp("images")
    server = _Server(directory)
    yield server, directory
    server.close()


@pytest.fixture(scope="module")
def aio(tmp_path_factory, agent_python, images):
    http_root = tmp_path_factory.mktemp("httpboot")
    boot_server = _Server(http_root)
    sections = {
        # A lookup outside the waiting states issues a token: the stale
        # token case of test_bmc_boots_agent, with the real agent.
        "api": {"restrict_lookup": "false"},
        "agent": {"post_deploy_get_power_state_retries": "0",
                  "command_wait_interval": "1"},
        "ipmi": {"min_command_interval": "0"},
        "conductor": {"check_provision_state_interval": "1"},
        # Where the conductor serves the images it converts itself.
        "deploy": {"http_root": str(http_root),
                   "http_url": boot_server.url},
    }
    try:
        yield from fconf.run_service(tmp_path_factory, "aio-real-agent",
                                     drivers=DRIVERS, sections=sections)
    finally:
        boot_server.close()


def _machine(aio, *extra: str):
    require_ipmitool()
    workdir = launch.machine_dir()
    disk = os.path.join(workdir, "disk.img")
    command = " ".join([
        sys.executable, "-m", "ironic.tests.realagent.launch",
        "--api", aio.endpoint, "--mac", "{mac}", "--disk", disk, *extra])
    with IpmiEmulator(count=1, machine_cmd=command) as emu:
        yield emu, disk
    subprocess.run(["rm", "-rf", workdir], check=False)


@pytest.fixture(scope="module")
def machine(aio):
    yield from _machine(aio)


@pytest.fixture(scope="module")
def inspected_machine(aio):
    """A machine whose ramdisk was booted for in-band inspection."""
    yield from _machine(aio, "--inspection-url",
                        f"{aio.endpoint}/v1/continue_inspection")


def _agent_log(bmc) -> str:
    with open(f"{bmc.state_dir}/machine-{bmc.base_port}.log",
              encoding="utf-8", errors="replace") as f:
        return f.read()


@pytest.fixture(scope="module")
def conn(aio):
    connection = fconf.sdk_connection(aio.endpoint,
                                      baremetal_api_version="1.72")
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def node(conn, machine):
    """The machine's node, manageable; its disk is made by each test."""
    bmc, _disk = machine
    found = conn.baremetal.create_node(
        driver="ipmi", name="real-agent", boot_interface="fake",
        deploy_interface="direct", network_interface="noop",
        automated_clean=False,
        driver_info=bmc.driver_info())
    conn.baremetal.create_port(node_id=found.id,
                               address=machine_mac(bmc.base_port))
    conn.baremetal.set_node_provision_state(found.id, "manage")
    _until(conn, found.id, "manageable")
    return found


def _wait(conn, aio, bmc, uuid, *states):
    try:
        return _until(conn, uuid, *states, timeout=90)
    except BaseException:
        print(_agent_log(bmc)[-20000:])
        print(aio.logs()[-8000:])
        raise


def test_real_agent_erases_the_file_disk_metadata(aio, machine, conn, node):
    bmc, disk = machine
    middle = bytes(range(256)) * (2 * MIB // 256)
    content = b"\xab" * MIB + middle + b"\xcd" * MIB
    launch.make_disk(disk, len(content), content)
    boots = bmc.state(0)["boots"]
    # Someone looked the node up while it was manageable: a token exists
    # that the agent booted for cleaning cannot know.
    mac = machine_mac(bmc.base_port)
    stale = ipa(aio.endpoint, "lookup", mac)["found"]["config"]["agent_token"]
    assert stale and stale != "******"

    conn.baremetal.set_node_provision_state(
        node.id, "clean", clean_steps=[
            {"interface": "deploy", "step": "erase_devices_metadata"}])
    done = _wait(conn, aio, bmc, node.id, "manageable", "clean failed")
    log = _agent_log(bmc)
    assert done.provision_state == "manageable", (done.last_error, log)

    # The agent ran once, found the node by the machine's MAC and ran the
    # step through its lab hardware manager on the file disk only.
    assert bmc.state(0)["boots"] == boots + 1
    assert "Lookup succeeded, node UUID is " + node.id in log
    assert "LabMachineHardwareManager" in log
    with open(disk, "rb") as f:
        erased = f.read()
    assert erased == bytes(MIB) + middle + bytes(MIB)
    # Cleaning ended with the machine off: the agent is gone.
    deadline = time.monotonic() + 15
    while bmc.state(0)["running"] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert bmc.state(0)["running"] is False
    assert bmc.state(0)["power"] == "off"



def test_real_agent_inspects_the_lab_machine(aio, inspected_machine, conn):
    """In-band inspection: the agent posts its inventory, which shows the
    lab machine's file disk and NIC, not the host's."""
    bmc, disk = inspected_machine
    # Sparse; the agent proposes no root disk under 4 GiB.
    launch.make_disk(disk, 8 * 1024 * MIB)
    mac = machine_mac(bmc.base_port)
    node = conn.baremetal.create_node(
        driver="ipmi", name="real-agent-inspected", boot_interface="fake",
        inspect_interface="agent", network_interface="noop",
        driver_info=bmc.driver_info())
    conn.baremetal.create_port(node_id=node.id, address=mac)
    conn.baremetal.set_node_provision_state(node.id, "manage")
    _until(conn, node.id, "manageable")
    conn.baremetal.set_node_provision_state(node.id, "inspect")
    done = _wait(conn, aio, bmc, node.id, "manageable", "inspect failed")
    assert done.provision_state == "manageable", (
        done.last_error, _agent_log(bmc)[-5000:])
    newer = fconf.sdk_connection(aio.endpoint, baremetal_api_version="1.81")
    inventory = newer.baremetal.get_node_inventory(node.id)["inventory"]
    newer.close()
    assert [d["name"] for d in inventory["disks"]] == [disk]
    assert inventory["disks"][0]["size"] == 8 * 1024 * MIB
    assert [i["mac_address"] for i in inventory["interfaces"]] == [mac]
    # The ports hook found the machine's one NIC, already enrolled.
    assert [p.address for p in conn.baremetal.ports(node_id=node.id)] == [
        mac]


def _whole_disk_image(size: int) -> bytes:
    """A raw whole-disk image: an MBR with one Linux partition (the agent
    checks that a written disk has a partition table), then a pattern."""
    mbr = bytearray(512)
    mbr[440:444] = bytes.fromhex("efbeadde")
    mbr[446:462] = (b"\x00\x00\x00\x00\x83\x00\x00\x00"
                    + (2048).to_bytes(4, "little")
                    + ((size // 512) - 2048).to_bytes(4, "little"))
    mbr[510:512] = b"\x55\xaa"
    pattern = hashlib.sha256(b"lab image").digest() * (MIB // 32)
    body = (pattern * (size // len(pattern) + 1))[:size - 512]
    return bytes(mbr) + body


def _deploy(conn, aio, bmc, node_id: str, instance_info: dict):
    node = conn.baremetal.get_node(node_id)
    if node.provision_state == "manageable":
        conn.baremetal.set_node_provision_state(node_id, "provide")
        _until(conn, node_id, "available")
    conn.baremetal.patch_node(node_id, [
        {"op": "add", "path": "/instance_info", "value": instance_info},
        # BIOS: a whole-disk image then needs no boot loader installed
        # (the agent's efibootmgr would be refused in the lab).
        {"op": "add", "path": "/properties/capabilities",
         "value": "boot_mode:bios"}])
    boots = bmc.state(0)["boots"]
    conn.baremetal.set_node_provision_state(node_id, "active")
    done = _wait(conn, aio, bmc, node_id, "active", "deploy failed")
    assert done.provision_state == "active", (
        done.last_error, _agent_log(bmc)[-8000:])
    # One boot into the agent, one into the instance (the lab machine
    # starts the agent at every power on).
    assert bmc.state(0)["boots"] == boots + 2
    return done


def _undeploy(conn, node_id: str) -> None:
    conn.baremetal.set_node_provision_state(node_id, "deleted")
    _until(conn, node_id, "available")


def test_real_agent_streams_a_raw_image_byte_for_byte(aio, machine, conn,
                                                      node, images):
    bmc, disk = machine
    server, directory = images
    image = _whole_disk_image(8 * MIB)
    (directory / "lab.raw").write_bytes(image)
    launch.make_disk(disk, 64 * MIB)
    _deploy(conn, aio, bmc, node.id, {
        "image_source": f"{server.url}/lab.raw",
        "image_disk_format": "raw",
        "image_os_hash_algo": "sha256",
        "image_os_hash_value": hashlib.sha256(image).hexdigest()})
    log = _agent_log(bmc)
    # Streamed from the image server while checking its checksum.
    assert "Image streamed onto device " + disk in log
    with open(disk, "rb") as f:
        assert f.read(len(image)) == image
    _undeploy(conn, node.id)


def test_real_agent_writes_a_qcow2_image_the_conductor_converted(
        aio, machine, conn, node, images, tmp_path):
    bmc, disk = machine
    server, directory = images
    image = _whole_disk_image(6 * MIB)
    raw = tmp_path / "lab.raw"
    raw.write_bytes(image)
    subprocess.run(["qemu-img", "convert", "-f", "raw", "-O", "qcow2",
                    str(raw), str(directory / "lab.qcow2")], check=True)
    qcow2 = (directory / "lab.qcow2").read_bytes()
    launch.make_disk(disk, 64 * MIB)
    _deploy(conn, aio, bmc, node.id, {
        "image_source": f"{server.url}/lab.qcow2",
        "image_os_hash_algo": "sha512",
        "image_os_hash_value": hashlib.sha512(qcow2).hexdigest(),
        # The conductor fetches and checks it, converts it to raw
        # ([DEFAULT]force_raw_images) and serves that to the agent.
        "image_download_source": "local"})
    assert "Image streamed onto device " + disk in _agent_log(bmc)
    with open(disk, "rb") as f:
        assert f.read(len(image)) == image
    _undeploy(conn, node.id)

