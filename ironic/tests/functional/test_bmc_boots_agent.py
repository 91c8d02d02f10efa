"""The stale token case with a BMC whose power on boots the agent.

An ``ipmi`` node driven with ipmitool against the emulated BMC, whose
machine runs the emulated agent (``ipmi_bmc --machine-cmd``) while it is on:
a power on really starts an agent process that looks the node up, a power
off really stops it. ``[api]restrict_lookup = false``: the real agent's
client is issued a token while the node is manageable; the manual clean's
plain power on must then boot an agent that gets a fresh token and runs
the in-band step; the machine is off (its agent gone) afterwards.
"""

from __future__ import annotations

import sys
import time

import pytest

from ironic.tests.emulators.launch import IpmiEmulator, require_ipmitool
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.functional.test_agent_deploy import _mac, _until
from ironic.tests.functional.test_ipa_client import ipa

MAC = _mac()
DRIVERS = dict(svc.TEST_DRIVERS, enabled_hardware_types="ipmi,fake-hardware",
               enabled_deploy_interfaces="fake,direct",
               enabled_power_interfaces="fake,ipmitool",
               enabled_management_interfaces="fake,ipmitool",
               enabled_vendor_interfaces="fake,no-vendor,ipmitool",
               enabled_console_interfaces="fake,no-console")


@pytest.fixture(scope="module")
def aio(tmp_path_factory):
    sections = {
        "api": {"restrict_lookup": "false"},
        "ipmi": {"min_command_interval": "0"},
        "agent": {"post_deploy_get_power_state_retries": "0",
                  "command_wait_interval": "1"},
        "conductor": {"check_provision_state_interval": "1"},
    }
    yield from fconf.run_service(tmp_path_factory, "aio-bmc-agent",
                                 drivers=DRIVERS, sections=sections)


@pytest.fixture(scope="module")
def bmc(aio):
    require_ipmitool()
    command = (f"{sys.executable} -m ironic.tests.emulators.agent "
               f"--api {aio.endpoint} --mac {MAC}")
    with IpmiEmulator(count=1, machine_cmd=command) as emu:
        yield emu


def test_plain_power_on_boots_an_agent_with_a_fresh_token(aio, bmc):
    conn = fconf.sdk_connection(aio.endpoint, baremetal_api_version="1.72")
    node = conn.baremetal.create_node(
        driver="ipmi", name="bmc-agent", boot_interface="fake",
        deploy_interface="direct", network_interface="noop",
        driver_info=bmc.driver_info())
    conn.baremetal.create_port(node_id=node.id, address=MAC)
    conn.baremetal.set_node_provision_state(node.id, "manage")
    _until(conn, node.id, "manageable")
    conn.baremetal.set_node_power_state(node.id, "power off", wait=True,
                                        timeout=30)
    assert bmc.state(0)["running"] is False
    boots = bmc.state(0)["boots"]
    old = ipa(aio.endpoint, "lookup", MAC)["found"]["config"]["agent_token"]
    assert old and old != "******"

    conn.baremetal.set_node_provision_state(
        node.id, "clean", clean_steps=[
            {"interface": "deploy", "step": "erase_devices_metadata"}])
    done = _until(conn, node.id, "manageable", "clean failed")
    assert done.provision_state == "manageable", done.last_error
    # One boot of the machine ran the step; cleaning ended powered off.
    state = bmc.state(0)
    assert state["boots"] == boots + 1
    assert state["power"] == "off"
    deadline = time.monotonic() + 15
    while bmc.state(0)["running"] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert bmc.state(0)["running"] is False
    with open(f"{bmc.state_dir}/machine-{bmc.base_port}.log",
              encoding="utf-8") as f:
        assert "agent for" in f.read()
