"""A token issued before a ramdisk boot never reaches that boot's agent.

With ``[api]restrict_lookup = false`` a lookup is answered in any state, so
an agent (here the real agent's own API client) can be issued a token
while the node sits in manageable. A manual clean then boots the ramdisk
with a plain power on: the agent of that boot must be issued a new token
(not ``******``, on which the real agent locks itself down) and the clean
must finish. The all-in-one service runs with fake power and the ``direct``
deploy interface; the booted agent is ``ironic.tests.emulators.agent``.
"""

from __future__ import annotations

import pytest

from ironic.tests.emulators import agent as agent_emu
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.functional.test_agent_deploy import _mac, _until
from ironic.tests.functional.test_ipa_client import ipa

DRIVERS = dict(svc.TEST_DRIVERS, enabled_deploy_interfaces="fake,direct")
SECTIONS = {
    "api": {"restrict_lookup": "false"},
    "agent": {"post_deploy_get_power_state_retries": "0",
              "command_wait_interval": "1"},
    "conductor": {"check_provision_state_interval": "1"},
}


@pytest.fixture(scope="module")
def aio(tmp_path_factory):
    yield from fconf.run_service(tmp_path_factory, "aio-stale-token",
                                 drivers=DRIVERS, sections=SECTIONS)


@pytest.fixture(scope="module")
def conn(aio):
    connection = fconf.sdk_connection(aio.endpoint,
                                      baremetal_api_version="1.72")
    yield connection
    connection.close()


def test_manual_clean_after_a_lookup_in_manageable(aio, conn):
    mac = _mac()
    node = conn.baremetal.create_node(
        driver="fake-hardware", name="stale-token", deploy_interface="direct",
        boot_interface="fake", power_interface="fake",
        management_interface="fake", network_interface="noop")
    conn.baremetal.create_port(node_id=node.id, address=mac)
    conn.baremetal.set_node_provision_state(node.id, "manage")
    _until(conn, node.id, "manageable")
    conn.baremetal.set_node_power_state(node.id, "power off")

    # An agent left over (or started by hand) looks the node up: with
    # restrict_lookup off it is issued a token in manageable.
    early = ipa(aio.endpoint, "lookup", mac)["found"]
    old_token = early["config"]["agent_token"]
    assert old_token and old_token != "******"
    assert conn.baremetal.get_node(node.id).driver_internal_info[
        "agent_secret_token"] == "******"

    with agent_emu.AgentEmulator(aio.endpoint, [mac]) as agent:
        conn.baremetal.set_node_provision_state(
            node.id, "clean", clean_steps=[
                {"interface": "deploy", "step": "erase_devices_metadata"}])
        done = _until(conn, node.id, "manageable", "clean failed")
        assert done.provision_state == "manageable", done.last_error
        # One boot, one fresh token, the in-band step ran in it.
        assert agent.boots == 1
        assert [p["step"]["step"] for p in
                agent.posted_params("clean.execute_clean_step")] == \
            ["erase_devices_metadata"]
        # The step came with the fresh token, which the agent accepted. (The
        # agent's own copy is gone once cleaning ends: its next heartbeat
        # is refused and it drops the token.)
        used = [(r["query"].get("agent_token"), r["status"])
                for r in agent.received
                if r["name"] == "clean.execute_clean_step"]
        assert used and all(token not in (None, old_token) and status < 300
                            for token, status in used), used

    # The early agent's token was discarded with its boot.
    beat = ipa(aio.endpoint, "heartbeat", node.id, f"--token={old_token}",
               "--callback-url", "https://127.0.0.1:9999")
    assert beat["accepted"] is False
    conn.baremetal.delete_node(node.id)


def test_the_real_agents_lookup_in_the_new_boot_gets_a_fresh_token(aio,
                                                                   conn):
    """The lookup the real agent does when the ramdisk boots (its own
    client, ``ipa_client.py``): a fresh token, never ``******``, on which
    the agent would lock itself down."""
    mac = _mac()
    node = conn.baremetal.create_node(
        driver="fake-hardware", name="stale-token-ipa",
        deploy_interface="direct", boot_interface="fake",
        power_interface="fake", management_interface="fake",
        network_interface="noop")
    conn.baremetal.create_port(node_id=node.id, address=mac)
    conn.baremetal.set_node_provision_state(node.id, "manage")
    _until(conn, node.id, "manageable")
    conn.baremetal.set_node_power_state(node.id, "power off", wait=True,
                                        timeout=30)
    old_token = ipa(aio.endpoint, "lookup", mac)["found"]["config"][
        "agent_token"]
    conn.baremetal.set_node_provision_state(
        node.id, "clean", clean_steps=[
            {"interface": "deploy", "step": "erase_devices_metadata"}])
    _until(conn, node.id, "clean wait")
    assert conn.baremetal.get_node(node.id).power_state == "power on"
    booted = ipa(aio.endpoint, "lookup", mac)["found"]
    token = booted["config"]["agent_token"]
    assert booted["config"]["agent_token_required"] is True
    assert token not in (None, "******", old_token) and len(token) >= 32
    beat = ipa(aio.endpoint, "heartbeat", node.id, f"--token={token}",
               "--callback-url", "https://127.0.0.1:9")
    assert beat["accepted"] is True, beat
    # Nothing listens at that callback URL: the cleaning fails there.
    failed = _until(conn, node.id, "clean failed")
    assert "could not be reached" in failed.last_error
