"""Three conductors coordinating through a redis-server of the test's own.

One cluster per database (MariaDB, PostgreSQL) goes through, in order:

* the reboot throttle (0.5 s): 30 Redfish nodes powered on at once from
  16 client threads, spread over the three conductors by the hash ring;
  the emulated BMCs' own journal shows no two power-ons closer than the
  throttle;
* SIGTERM of a conductor while its power-ons wait in the throttle: it
  exits 0 within graceful_shutdown_timeout, the power-ons it gave up say
  so in last_error, and no node stays locked;
* SIGKILL of the leader: another conductor leads, and runs the leader's
  work, within 10 s; the singleton work (node history pruning every
  2 s) never ran twice in one period across the cluster.
"""

from __future__ import annotations

import datetime
import signal
import time
import uuid as uuidlib

import pytest

from ironic.tests import dbutils
from ironic.tests.emulators.launch import RedfishEmulator
from ironic.tests.scenario.client import Client, run_parallel
from ironic.tests.scenario.cluster import Cluster, wait_for
from ironic.tests.scenario.redis_server import RedisServer

NODES = 30
THREADS = 16
THROTTLE = 0.5
HISTORY_PERIOD = 2
FAILOVER_BOUND = 10.0
LEADER = "is now the leader of ironic.conductors"
HISTORY_RUN = "Leader job node_history_cleanup ran on"
# Clock resolution of the log timestamps (milliseconds) and scheduling.
EPSILON = 0.05


@pytest.fixture
def redis_server(tmp_path):
    server = RedisServer(tmp_path / "redis").start()
    yield server
    server.stop()


@pytest.fixture
def bmcs():
    with RedfishEmulator(count=NODES, user="admin", password="pw",
                         sessions=False) as emu:
        yield emu


@pytest.fixture
def ha_cluster(request, db_server, rabbit, redis_server, tmp_path):
    extra = {
        "DEFAULT": {
            "enabled_hardware_types": "fake-hardware,redfish",
            "enabled_power_interfaces": "fake,redfish",
            "enabled_management_interfaces": "fake,redfish",
        },
        "coordination": {"backend_url": redis_server.url},
        "conductor": {"reboot_throttle": THROTTLE,
                      "node_history_cleanup_interval": HISTORY_PERIOD},
    }
    with dbutils.scratch_database(db_server) as url:
        cl = Cluster(tmp_path, url, rabbit, tag=uuidlib.uuid4().hex[:6],
                     extra=extra)
        request.node.scenario_cluster = cl
        try:
            cl.start()
            yield cl
        finally:
            cl.stop()


def _create(client: Client, bmcs: RedfishEmulator, index: int) -> dict:
    # bios_interface needs 1.40.
    resp = client.request("POST", "/nodes", headers={
        "X-OpenStack-Ironic-API-Version": "1.40"}, json={
        "name": f"bmc-{index:02d}", "driver": "redfish",
        "power_interface": "redfish", "management_interface": "redfish",
        "boot_interface": "fake", "deploy_interface": "fake",
        "inspect_interface": "no-inspect", "bios_interface": "no-bios",
        "raid_interface": "no-raid", "vendor_interface": "no-vendor",
        "rescue_interface": "no-rescue", "console_interface": "no-console",
        "network_interface": "noop", "storage_interface": "noop",
        "driver_info": {
            "redfish_address": bmcs.url, "redfish_username": "admin",
            "redfish_password": "pw", "redfish_system_id":
                f"/redfish/v1/Systems/{bmcs.systems()[index]}"}})
    assert resp.status_code == 201, resp.text
    return resp.json()


def _power(client: Client, node: dict, target: str) -> None:
    resp = client.request("PUT", f"/nodes/{node['uuid']}/states/power",
                          json={"target": target})
    assert resp.status_code == 202, resp.text


def _nodes(client: Client) -> list[dict]:
    resp = client.request("GET", "/nodes?fields=uuid,power_state,"
                          "target_power_state,reservation,last_error")
    resp.raise_for_status()
    return resp.json()["nodes"]


def _settled(client: Client) -> list[dict] | None:
    nodes = _nodes(client)
    if all(n["target_power_state"] is None and n["reservation"] is None
           for n in nodes):
        return nodes
    return None


def _log_time(line: str) -> float:
    stamp = " ".join(line.split()[:2])
    return datetime.datetime.strptime(
        stamp, "%Y-%m-%d %H:%M:%S.%f").timestamp()


def _leader_events(cl: Cluster, marker: str) -> list[tuple[float, str]]:
    events = []
    for host in cl.hosts:
        events += [(_log_time(line), host)
                   for line in cl.log_lines(host, marker)]
    return sorted(events)


def test_throttle_sigterm_and_leader_failover(ha_cluster, bmcs):
    cl = ha_cluster
    client = Client(cl.endpoint)
    nodes = run_parallel(lambda i: _create(client, bmcs, i), range(NODES),
                         THREADS)

    # -- the throttle spaces 30 power-ons from three conductors -------------
    started = time.time()
    run_parallel(lambda n: _power(client, n, "power on"), nodes, THREADS)
    wait_for(lambda: _settled(client), NODES * THROTTLE + 60,
             "every power-on to finish")
    ons = [t for t, _uuid, action in bmcs.reset_journal()
           if action == "On" and t >= started]
    assert len(ons) == NODES, ons
    gaps = [b - a for a, b in zip(ons, ons[1:], strict=False)]
    assert min(gaps) >= THROTTLE, f"power-ons {min(gaps):.3f} s apart"
    print(f"\n{NODES} power-ons, closest {min(gaps):.3f} s apart")
    assert all(n["power_state"] == "power on" for n in _nodes(client))
    hosts_used = {host for host in cl.hosts
                  if cl.log_lines(host, "power state is now")}
    assert len(hosts_used) == 3, f"power-ons only on {hosts_used}"

    # -- SIGTERM while power-ons wait in the throttle -----------------------
    run_parallel(lambda n: _power(client, n, "power off"), nodes, THREADS)
    wait_for(lambda: _settled(client), 60, "every power-off to finish")
    leader = _leader_events(cl, LEADER)[-1][1]
    victim = next(h for h in cl.hosts if h != leader)
    run_parallel(lambda n: _power(client, n, "power on"), nodes, THREADS)
    time.sleep(2 * THROTTLE)  # a few power-ons went, the rest wait
    t0 = time.monotonic()
    cl.conductors[victim].signal(signal.SIGTERM)
    code = cl.conductors[victim].wait(cl.timeouts.graceful_shutdown_timeout)
    assert code == 0
    assert time.monotonic() - t0 <= cl.timeouts.graceful_shutdown_timeout
    settled = wait_for(lambda: _settled(client), NODES * THROTTLE + 60,
                       "every node to be unlocked")
    given_up = [n for n in settled if "conductor is stopping" in
                (n["last_error"] or "")]
    assert given_up, "no power-on was waiting in the throttle"
    assert all("reboot throttle" in n["last_error"] for n in given_up)
    print(f"SIGTERM: exited in {time.monotonic() - t0:.1f} s, "
          f"{len(given_up)} power-ons given up")

    # -- SIGKILL the leader ---------------------------------------------------
    wait_for(lambda: len(_leader_events(cl, HISTORY_RUN)) >= 3, 30,
             "the leader's history pruning to run")
    killed_at = time.time()
    cl.conductors[leader].proc.kill()
    cl.conductors[leader].wait(10)
    survivor = next(h for h in cl.hosts if h not in (leader, victim))

    def new_leader_worked():
        runs = [t for t, host in _leader_events(cl, HISTORY_RUN)
                if host == survivor and t > killed_at]
        return runs[0] if runs else None

    first_run = wait_for(new_leader_worked, 60, "a new leader's work")
    assert first_run - killed_at <= FAILOVER_BOUND, \
        f"new leader worked {first_run - killed_at:.1f} s after the kill"
    print(f"new leader worked {first_run - killed_at:.1f} s after the "
          f"kill")
    runs = [t for t, _host in _leader_events(cl, HISTORY_RUN)]
    gaps = [b - a for a, b in zip(runs, runs[1:], strict=False)]
    assert min(gaps) >= HISTORY_PERIOD - EPSILON, \
        f"singleton work ran twice within {min(gaps):.3f} s"
