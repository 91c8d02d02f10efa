"""Lookup and heartbeat driven by the real ramdisk agent's API client.

``ipa_client.py`` runs ironic-python-agent's ``APIClient`` (never the agent
itself) in its own process against the service over HTTP:

- against an in-process API on the built-in HTTP server with a real
  conductor behind the ``none`` RPC transport, every microversion allowed,
  so the whole agent token protocol (1.62) and agent_verify_ca (1.68) run
  as a real agent would drive them;
- against the all-in-one ``ironic`` process at the version it advertises:
  the agent negotiates that version, and below 1.62 gets no token and its
  heartbeats are refused, as the public API does.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from ironic import hash_ring
from ironic.api import app as api_app
from ironic.api.controllers.v1 import versions
from ironic.common import rpc, states
from ironic.conductor import base_manager, rpcapi
from ironic.db import api as db_api
from ironic.objects.node import Node
from ironic.serving.server import ServerThread
from ironic.tests import builders
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc

CLIENT = pathlib.Path(__file__).resolve().parent / "ipa_client.py"
CALLBACK = "https://127.0.0.1:9999"
DEADLINE = 60


def ipa(endpoint: str, *args: str) -> dict:
    """Run the agent's client once; its JSON answer."""
    result = subprocess.run(
        [sys.executable, str(CLIENT), "--api", endpoint, *args],
        capture_output=True, text=True, timeout=DEADLINE,
        env=svc._child_env())
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture
def server(database, config, monkeypatch):
    """The API over HTTP with an in-process conductor, every version on."""
    config(rpc_transport="none", host="test-conductor")
    config("conductor", node_locked_retry_attempts=0)
    config("agent", certificates_path=str(pathlib.Path(database).parent
                                          / "certificates"))
    rpc.reset()
    hash_ring.reset()
    monkeypatch.setattr(rpcapi, "_API", None)
    conductor = base_manager.ConductorService()
    conductor.start()
    httpd = ServerThread(api_app.setup_app()).start()
    yield httpd.endpoint
    httpd.stop()
    conductor.stop(timeout=5)
    rpc.reset()


def _node(macs: tuple[str, ...], **values) -> Node:
    values.setdefault("provision_state", states.CLEANWAIT)
    node = builders.make_node(**values)
    for mac in macs:
        db_api.get_instance().create_port({"address": mac,
                                           "node_id": node.id})
    return node


def test_agent_client_token_protocol(server):
    macs = ("52:54:00:ab:00:00", "52:54:00:ab:00:01")
    node = _node(macs, properties={"root_device": {"name": "/dev/vda"}})
    first = ipa(server, "lookup", ",".join(macs))
    assert first["api_version"] == f"1.{versions.NEWEST_KNOWN}"
    found = first["found"]
    assert found["node"]["uuid"] == node.uuid
    assert found["node"]["properties"] == {"root_device":
                                           {"name": "/dev/vda"}}
    token = found["config"]["agent_token"]
    assert token and token != "******"
    assert found["config"]["agent_token_required"] is True

    beat = ipa(server, "heartbeat", node.uuid, f"--token={token}")
    assert beat["accepted"], beat
    info = Node.get(node.uuid).driver_internal_info
    assert info["agent_url"] == CALLBACK
    assert info["agent_version"]  # the client's own version
    assert info["agent_last_heartbeat"]

    again = ipa(server, "lookup", macs[1], "--node-uuid", node.uuid)
    assert again["found"]["config"]["agent_token"] == "******"

    wrong = ipa(server, "heartbeat", node.uuid,
                f"--token={token[::-1]}")
    assert not wrong["accepted"]
    assert wrong["error_type"] == "HeartbeatError"
    assert "400" in wrong["error"] and "token" in wrong["error"]


def test_agent_client_sends_its_certificate(server, tmp_path):
    node = _node(("52:54:00:ab:01:00",))
    token = ipa(server, "lookup", "52:54:00:ab:01:00")[
        "found"]["config"]["agent_token"]
    cert = tmp_path / "agent.crt"
    cert.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n"
                    "-----END CERTIFICATE-----\n")
    beat = ipa(server, "heartbeat", node.uuid, f"--token={token}",
               "--cert", str(cert))
    assert beat["accepted"], beat
    stored = Node.get(node.uuid).driver_internal_info["agent_verify_ca"]
    assert pathlib.Path(stored).read_text() == cert.read_text()


def test_agent_client_sees_lock_conflicts_and_misses(server, config):
    node = _node(("52:54:00:ab:02:00",))
    token = ipa(server, "lookup", "52:54:00:ab:02:00")[
        "found"]["config"]["agent_token"]
    db_api.get_instance().reserve_node("elsewhere", node.id)
    locked = ipa(server, "heartbeat", node.uuid, f"--token={token}")
    assert locked["error_type"] == "HeartbeatConflictError", locked
    db_api.get_instance().release_node("elsewhere", node.id)

    config("agent", require_tls=True)
    plain = ipa(server, "heartbeat", node.uuid, f"--token={token}",
                "--callback-url", "http://127.0.0.1:9999")
    assert not plain["accepted"] and "TLS" in plain["error"]

    _node(("52:54:00:ab:03:00",), provision_state=states.ACTIVE)
    missed = ipa(server, "lookup", "52:54:00:ab:03:00", "--timeout", "0.5")
    assert missed["found"] is None


# -- the all-in-one process at its advertised version -------------------


@pytest.fixture(scope="module")
def aio(tmp_path_factory):
    # Fake drivers have no wait states: let lookup find any node.
    yield from fconf.run_service(tmp_path_factory, "aio-ramdisk",
                                 api={"restrict_lookup": "false"})


def test_agent_client_against_the_all_in_one(aio):
    conn = fconf.sdk_connection(aio.endpoint)
    node = conn.baremetal.create_node(driver="fake-hardware")
    conn.baremetal.create_port(node_id=node.id, address="52:54:00:ac:00:00")
    advertised = svc.max_minor_version(aio.endpoint)

    looked = ipa(aio.endpoint, "lookup", "52:54:00:ac:00:00")
    assert looked["api_version"] == f"1.{advertised}"
    assert looked["found"]["node"]["uuid"] == node.id
    token = looked["found"]["config"]["agent_token"]
    beat = ipa(aio.endpoint, "heartbeat", node.id,
               f"--token={token or 'none'}")
    info = conn.baremetal.get_node(node.id).driver_internal_info
    if advertised >= 62:
        assert token and beat["accepted"], beat
        assert info["agent_url"] == CALLBACK
    else:
        # Below 1.62 no token is issued and the agent sends none: the
        # public API refuses such heartbeats.
        assert token is None
        assert not beat["accepted"] and "400" in beat["error"]
        assert "agent_url" not in info
    conn.close()
