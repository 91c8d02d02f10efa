"""Fast track: a deployment after inspection uses the running agent.

An ``ipmi`` node (ipmitool against the emulated BMC, which counts the
power changes of its machine) with the agent inspect and ``direct`` deploy
interfaces, ``[deploy]fast_track = true``. Inspection powers the machine on;
the inspection data comes from the real agent's inspection client; the
node ends in manageable with the machine still on. The agent (emulated)
then looks the node up in manageable and heartbeats; automated cleaning
and the deployment use it without powering the machine off or rebooting
it: the BMC sees only the power off at the end of the deployment and the
power on into the instance.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from ironic.tests import data
from ironic.tests.emulators import agent as agent_emu
from ironic.tests.emulators.launch import IpmiEmulator, require_ipmitool
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.functional.test_agent_deploy import (
    IMAGE,
    _until,
    image_server,  # noqa: F401 - fixture
)
from ironic.tests.functional.test_ipa_client import ipa

MAC = "02:fc:00:00:00:01"  # the NIC of the sample inspection data
DRIVERS = dict(svc.TEST_DRIVERS, enabled_hardware_types="ipmi,fake-hardware",
               enabled_deploy_interfaces="fake,direct",
               enabled_inspect_interfaces="fake,no-inspect,agent",
               enabled_power_interfaces="fake,ipmitool",
               enabled_management_interfaces="fake,ipmitool",
               enabled_vendor_interfaces="fake,no-vendor,ipmitool",
               enabled_console_interfaces="fake,no-console")


@pytest.fixture(scope="module")
def bmc():
    require_ipmitool()
    with IpmiEmulator(count=1) as emu:
        yield emu


@pytest.fixture(scope="module")
def aio(tmp_path_factory, bmc):
    sections = {
        "deploy": {"fast_track": "true"},
        "ipmi": {"min_command_interval": "0"},
        "agent": {"post_deploy_get_power_state_retries": "0",
                  "command_wait_interval": "1"},
        "conductor": {"check_provision_state_interval": "1"},
        "inspector": {"hooks": "$default_hooks,memory,root-device"},
    }
    yield from fconf.run_service(tmp_path_factory, "aio-fast-track",
                                 drivers=DRIVERS, sections=sections)


def test_deploy_after_inspection_without_a_power_cycle(
        aio, bmc, image_server, tmp_path):  # noqa: F811 - fixture
    conn = fconf.sdk_connection(aio.endpoint, baremetal_api_version="1.72")
    node = conn.baremetal.create_node(
        driver="ipmi", name="fast-track", boot_interface="fake",
        deploy_interface="direct", inspect_interface="agent",
        network_interface="noop", automated_clean=False,
        driver_info=bmc.driver_info(),
        instance_info={"image_source": f"{image_server}/disk.img",
                       "image_os_hash_algo": "sha256",
                       "image_os_hash_value":
                           hashlib.sha256(IMAGE).hexdigest()})
    conn.baremetal.create_port(node_id=node.id, address=MAC)
    conn.baremetal.set_node_provision_state(node.id, "manage")
    _until(conn, node.id, "manageable")
    conn.baremetal.set_node_power_state(node.id, "power off", wait=True,
                                        timeout=30)
    assert bmc.state(0)["power"] == "off"
    start = bmc.state(0)["power_changes"]

    conn.baremetal.set_node_provision_state(node.id, "inspect")
    _until(conn, node.id, "inspect wait")
    assert bmc.state(0)["power"] == "on"
    at_wait = bmc.state(0)["power_changes"]
    assert at_wait > start
    sample = tmp_path / "inspection.json"
    sample.write_text(json.dumps(data.ipa_inspection_data()))
    assert ipa(aio.endpoint, "inspect", str(sample))["error"] is None
    done = _until(conn, node.id, "manageable", "inspect failed")
    assert done.last_error is None
    # Fast track: the machine (and its agent) keeps running.
    assert bmc.state(0)["power"] == "on"
    assert bmc.state(0)["power_changes"] == at_wait

    conn.baremetal.update_node(node.id, automated_clean=True)
    with agent_emu.AgentEmulator(aio.endpoint, [MAC]) as agent:
        # The agent looks the node up in manageable and heartbeats.
        _heartbeated(conn, node.id, agent)
        # Automated cleaning runs in it, without a power action.
        conn.baremetal.set_node_provision_state(node.id, "provide")
        done = _until(conn, node.id, "available", "clean failed")
        assert done.provision_state == "available", done.last_error
        assert [p["step"]["step"] for p in agent.posted_params(
            "clean.execute_clean_step")] == ["erase_devices_metadata",
                                             "erase_devices"]
        assert bmc.state(0)["power_changes"] == at_wait
        before = bmc.state(0)["power_changes"]
        conn.baremetal.set_node_provision_state(node.id, "active")
        done = _until(conn, node.id, "active", "deploy failed")
        assert done.provision_state == "active", done.last_error
        assert agent.boots == 1
        assert agent.written, "the running agent wrote no image"
    # Only the power off at the end and the power on into the instance.
    assert bmc.state(0)["power_changes"] == before + 2
    assert bmc.state(0)["power"] == "on"


def _heartbeated(conn, uuid, agent):
    import time
    deadline = time.monotonic() + 30
    while agent.heartbeats < 1 or not conn.baremetal.get_node(
            uuid).driver_internal_info.get("agent_last_heartbeat"):
        if time.monotonic() > deadline:
            pytest.fail("the agent never heartbeated")
        time.sleep(0.1)
