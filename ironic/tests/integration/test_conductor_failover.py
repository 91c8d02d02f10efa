"""Separate conductor processes over RabbitMQ and a real database.

Three ``ironic-conductor`` processes serve fake-hardware nodes; the test
process plays the API (the same rpcapi client). Each node is handled by the
conductor the ring names. One conductor is killed with SIGKILL while its
deployments are running: the survivors break its locks and resume its nodes
at their recorded step. Another is stopped with SIGTERM: it drains its work
and unregisters. Every node must end ``active`` and unlocked.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

import pytest

from ironic import hash_ring
from ironic.common import rpc, states
from ironic.conductor import rpcapi
from ironic.db import api as db_api
from ironic.tests import builders, entry_points
from ironic.tests import fixtures as ifx
from ironic.tests.integration.conftest import require_service

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
NODES = 30


def _config(tmp_path, host: str, db_url: str, rabbit: str) -> str:
    lines = ["[DEFAULT]", f"host = {host}", f"transport_url = {rabbit}",
             "rpc_transport = oslo", "use_stderr = true",
             "enabled_hardware_types = fake-hardware"]
    for kind, names in ifx.TEST_INTERFACES.items():
        lines.append(f"enabled_{kind}_interfaces = {','.join(names)}")
    lines += ["[database]", f"connection = {db_url}",
              "[conductor]", "graceful_shutdown_timeout = 30",
              "heartbeat_interval = 1",
              "heartbeat_timeout = 4", "sync_local_state_interval = 1",
              "sync_power_state_interval = 0",
              "node_locked_retry_attempts = 0",
              "[fake]", "deploy_delay = 6"]
    if os.environ.get("IRONIC_TEST_CONDUCTOR_DEBUG"):
        lines.insert(1, "debug = true")
    path = tmp_path / f"{host}.conf"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _wait(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


@pytest.fixture
def cluster(backend_db, config, tmp_path, request):
    rabbit = require_service("rabbitmq").replace("amqp://", "rabbit://", 1)
    ifx.configure_test_drivers(config)
    # What prepare_service does for the oslo transport.
    rpc.register_opts()
    config(transport_url=rabbit, rpc_transport="oslo")
    config("conductor", heartbeat_timeout=4)
    rpc.reset()
    hash_ring.reset()
    tag = uuid.uuid4().hex[:6]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        entry_points.child_pythonpath() + [ROOT]))
    procs = {}
    for i in range(3):
        host = f"c{i}-{tag}"
        conf = _config(tmp_path, host, backend_db, rabbit)
        log = open(tmp_path / f"{host}.log", "w")
        procs[host] = subprocess.Popen(
            [sys.executable, "-m", "ironic.command.conductor",
             "--config-file", conf], cwd=ROOT, env=env,
            stdout=log, stderr=subprocess.STDOUT)
    dbapi = db_api.get_instance()
    _wait(lambda: len(dbapi.get_active_conductors(4)) == 3, 60,
          "three conductors to register")
    yield procs
    for proc in procs.values():
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
    rpc.reset()
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        # The conductors' own account is the only way to tell why a call
        # went unanswered; show it with the failure.
        for host in procs:
            text = (tmp_path / f"{host}.log").read_text(errors="replace")
            sys.__stderr__.write(f"----- {host} log (last 200 lines) -----\n")
            sys.__stderr__.write("\n".join(text.splitlines()[-200:]) + "\n")


def _deploy_all(nodes) -> dict[str, str]:
    """Deploy every node; check each is locked by its ring owner."""
    api = rpcapi.ConductorAPI()
    dbapi = db_api.get_instance()
    hash_ring.manager().reset()
    owners = {}
    for node in nodes:
        owners[node.uuid] = api.host_for(node)
        api.do_node_deploy(None, node)
        row = dbapi.get_node_by_id(node.id)
        assert row.provision_state == states.DEPLOYING
        assert row.reservation == owners[node.uuid]
    assert len(set(owners.values())) == 3
    return owners


def _settled(nodes):
    dbapi = db_api.get_instance()
    rows = [dbapi.get_node_by_id(n.id) for n in nodes]
    if all(r.provision_state == states.ACTIVE and r.reservation is None
           for r in rows):
        return rows
    return None


def _make_nodes():
    return [builders.make_node(provision_state=states.AVAILABLE)
            for _ in range(NODES)]


def test_sigkill_conductor_mid_deploy(cluster):
    nodes = _make_nodes()
    owners = _deploy_all(nodes)
    dbapi = db_api.get_instance()
    victim = owners[nodes[0].uuid]
    cluster[victim].send_signal(signal.SIGKILL)
    rows = _wait(lambda: _settled(nodes), 90, "every node to be active")
    survivors = {h for h in cluster if h != victim}
    by_id = {c.hostname: c.id for c in dbapi.get_active_conductors(4)}
    assert set(by_id) == survivors
    taken = [r for r in rows if owners[r.uuid] == victim]
    assert taken, "the victim owned no node"
    assert all(r.conductor_affinity in by_id.values() for r in taken)


def test_sigterm_conductor_drains_and_unregisters(cluster):
    nodes = _make_nodes()
    owners = _deploy_all(nodes)
    leaving = owners[nodes[0].uuid]
    cluster[leaving].send_signal(signal.SIGTERM)
    assert cluster[leaving].wait(60) == 0
    dbapi = db_api.get_instance()
    hosts = [c.hostname for c in dbapi.get_active_conductors(4)]
    assert leaving not in hosts and len(hosts) == 2
    _wait(lambda: _settled(nodes), 60, "every node to be active")
