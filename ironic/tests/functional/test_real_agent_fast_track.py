"""Fast track with the real ironic-python-agent: inspected, then deployed
by the same running agent, without a power cycle.

The lab machine of ``test_real_agent`` (the unmodified agent, fenced,
booted by an emulated IPMI BMC that counts its machine's power changes
and boots) with ``[deploy]fast_track = true``. In-band inspection boots
the agent; it posts its inventory, then stays up, looks the node up in
manageable and heartbeats. The deployment then writes the image through
that agent: the BMC sees only the power off at the end of the deployment
and the power on into the instance.
"""

from __future__ import annotations

import hashlib
import time

import pytest

from ironic.tests.emulators.ipmi_bmc import machine_mac
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional.test_real_agent import (
    DRIVERS,
    MIB,
    _agent_log,
    _machine,
    _until,
    _wait,
    _whole_disk_image,
    agent_python,  # noqa: F401 - fixture
    images,  # noqa: F401 - fixture
)
from ironic.tests.realagent import launch


@pytest.fixture(scope="module")
def aio(tmp_path_factory, agent_python):  # noqa: F811 - fixture
    sections = {
        "deploy": {"fast_track": "true"},
        "agent": {"post_deploy_get_power_state_retries": "0",
                  "command_wait_interval": "1"},
        "ipmi": {"min_command_interval": "0"},
        "conductor": {"check_provision_state_interval": "1"},
    }
    yield from fconf.run_service(tmp_path_factory, "aio-real-fast-track",
                                 drivers=DRIVERS, sections=sections)


@pytest.fixture(scope="module")
def machine(aio):
    yield from _machine(aio, "--inspection-url",
                        f"{aio.endpoint}/v1/continue_inspection")


def _heartbeated(conn, uuid: str) -> None:
    """Until the service has the running agent's heartbeat on record (the
    agent heartbeats right after its lookup, then every few minutes)."""
    deadline = time.monotonic() + 60
    while True:
        info = conn.baremetal.get_node(uuid).driver_internal_info or {}
        if info.get("agent_last_heartbeat") and info.get("agent_url"):
            return
        if time.monotonic() > deadline:
            pytest.fail(f"no agent heartbeat recorded: {info}")
        time.sleep(0.2)


def test_real_agent_deploys_after_inspection_without_a_power_cycle(
        aio, machine, images):  # noqa: F811 - fixture
    bmc, disk = machine
    server, directory = images
    # Sparse; the agent proposes no root disk under 4 GiB.
    launch.make_disk(disk, 8 * 1024 * MIB)
    image = _whole_disk_image(8 * MIB)
    (directory / "lab.raw").write_bytes(image)
    conn = fconf.sdk_connection(aio.endpoint, baremetal_api_version="1.72")
    node = conn.baremetal.create_node(
        driver="ipmi", name="real-fast-track", boot_interface="fake",
        deploy_interface="direct", inspect_interface="agent",
        network_interface="noop", automated_clean=False,
        driver_info=bmc.driver_info(),
        properties={"capabilities": "boot_mode:bios"},
        instance_info={"image_source": f"{server.url}/lab.raw",
                       "image_disk_format": "raw",
                       "image_os_hash_algo": "sha256",
                       "image_os_hash_value":
                           hashlib.sha256(image).hexdigest()})
    conn.baremetal.create_port(node_id=node.id,
                               address=machine_mac(bmc.base_port))
    conn.baremetal.set_node_provision_state(node.id, "manage")
    _until(conn, node.id, "manageable")

    conn.baremetal.set_node_provision_state(node.id, "inspect")
    done = _wait(conn, aio, bmc, node.id, "manageable", "inspect failed")
    assert done.provision_state == "manageable", done.last_error
    # Fast track: the machine and its agent keep running, and the agent
    # heartbeats in manageable.
    assert bmc.state(0)["power"] == "on" and bmc.state(0)["running"]
    assert bmc.state(0)["boots"] == 1
    _heartbeated(conn, node.id)
    changes = bmc.state(0)["power_changes"]

    conn.baremetal.set_node_provision_state(node.id, "provide")
    _until(conn, node.id, "available")
    conn.baremetal.set_node_provision_state(node.id, "active")
    done = _wait(conn, aio, bmc, node.id, "active", "deploy failed")
    assert done.provision_state == "active", (done.last_error,
                                              _agent_log(bmc)[-8000:])
    # The image came through the agent booted for inspection ...
    log = _agent_log(bmc)
    assert "Image streamed onto device " + disk in log
    with open(disk, "rb") as f:
        assert f.read(len(image)) == image
    # ... and the only power actions were the deployment's last two.
    assert bmc.state(0)["power_changes"] == changes + 2
    assert bmc.state(0)["boots"] == 2
    assert bmc.state(0)["power"] == "on"
