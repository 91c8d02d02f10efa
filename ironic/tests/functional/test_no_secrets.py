"""No agent token and no BMC password in the service's log or answers.

An agent whose callback URL cannot be reached makes the conductor fail a
command whose URL carries the agent token
(``.../v1/commands/?wait=true&agent_token=<token>``); a Redfish BMC that
cannot be reached fails a power change of a node whose password is known.
Afterwards every line the service logged and every answer this module
received is searched for the token and the password.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.request

import pytest

from ironic.tests.emulators import agent as agent_emu
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc

WAIT = 60.0
BMC_PASSWORD = "bmc-Secret-7d1f"
DRIVERS = dict(svc.TEST_DRIVERS,
               enabled_hardware_types="fake-hardware,redfish",
               enabled_deploy_interfaces="fake,direct",
               enabled_power_interfaces="fake,redfish",
               enabled_management_interfaces="fake,redfish",
               enabled_boot_interfaces="fake,redfish-virtual-media",
               enabled_inspect_interfaces="fake,no-inspect",
               enabled_bios_interfaces="fake,no-bios",
               enabled_firmware_interfaces="fake,no-firmware",
               enabled_raid_interfaces="fake,no-raid",
               enabled_vendor_interfaces="fake,no-vendor")
SECTIONS = {"agent": {"command_wait_interval": "1",
                      "max_command_attempts": "2"},
            "conductor": {"check_provision_state_interval": "1"},
            "redfish": {"connection_attempts": "1"}}


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class UnreachableAgent(agent_emu.AgentEmulator):
    """Heartbeats with a callback URL nobody listens on; keeps the tokens
    it was given."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tokens: list[str] = []
        self._dead = f"https://127.0.0.1:{_closed_port()}"

    @property
    def callback_url(self) -> str:
        return getattr(self, "_dead", None) or super().callback_url

    def _boot(self, node, token):
        self.tokens.append(token)
        super()._boot(node, token)


@pytest.fixture(scope="module")
def aio(tmp_path_factory):
    yield from fconf.run_service(tmp_path_factory, "aio-secrets",
                                 drivers=DRIVERS, sections=SECTIONS)


class Recorder:
    """GETs through the API, keeping every answer."""

    def __init__(self, endpoint: str):
        self.endpoint = endpoint
        self.answers: list[str] = []

    def get(self, path: str) -> dict:
        req = urllib.request.Request(
            self.endpoint + path,
            headers={"X-OpenStack-Ironic-API-Version": "latest"})
        with urllib.request.urlopen(req, timeout=10) as answer:
            text = answer.read().decode()
        self.answers.append(text)
        return json.loads(text)

    def until(self, uuid: str, *states: str) -> dict:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            node = self.get(f"/v1/nodes/{uuid}")
            if node["provision_state"] in states and not node["reservation"]:
                return node
            time.sleep(0.2)
        pytest.fail(f"node {uuid} never reached {states}")


def test_no_token_or_password_in_logs_or_answers(aio):
    conn = fconf.sdk_connection(aio.endpoint, baremetal_api_version="1.72")
    api = Recorder(aio.endpoint)
    node = conn.baremetal.create_node(
        driver="fake-hardware", name="leaky-agent", deploy_interface="direct",
        boot_interface="fake", network_interface="noop")
    mac = "02:5e:c2:e7:00:01"
    conn.baremetal.create_port(node_id=node.id, address=mac)
    conn.baremetal.set_node_provision_state(node.id, "manage")
    api.until(node.id, "manageable")
    with UnreachableAgent(aio.endpoint, [mac]) as agent:
        conn.baremetal.set_node_provision_state(
            node.id, "clean", clean_steps=[
                {"interface": "deploy", "step": "burnin_cpu"}])
        failed = api.until(node.id, "clean failed")
    assert agent.tokens, "the agent never got a token"
    assert "agent" in (failed["last_error"] or "").lower()
    api.get(f"/v1/nodes/{node.id}/history")

    bmc = conn.baremetal.create_node(
        driver="redfish", name="leaky-bmc", driver_info={
            "redfish_address": f"http://127.0.0.1:{_closed_port()}",
            "redfish_system_id": "/redfish/v1/Systems/1",
            "redfish_username": "admin",
            "redfish_password": BMC_PASSWORD})
    conn.baremetal.set_node_power_state(bmc.id, "power on")
    time.sleep(1)
    api.until(bmc.id, "enroll")
    api.get(f"/v1/nodes/{bmc.id}")
    api.get(f"/v1/nodes/{bmc.id}/history")
    api.get("/v1/nodes/detail")
    conn.close()

    secrets = [*agent.tokens, BMC_PASSWORD]
    logs = aio.logs_whole()
    for secret in secrets:
        assert secret not in logs, "a secret in the service log"
        for answer in api.answers:
            assert secret not in answer, "a secret in an API answer"
