"""Three conductors, one API, 300 nodes deployed at once; one conductor dies.

Everything goes through the API over HTTP, as a user would: 300
fake-hardware nodes are enrolled, made available and deployed by 16
client threads while an observer lists the nodes' reservations. Every lock
seen must be held by the conductor the hash ring names, computed here from
the conductors' host names alone. In the middle of the deployments one
conductor is killed (SIGKILL) or stopped (SIGTERM):

* killed: the survivors break its locks and resume or fail its work; every
  node ends ``active``, or ``deploy failed`` from which the documented verb
  (``active``) deploys it, and nothing stays locked past the configured
  timeouts;
* stopped: it finishes its running work within graceful_shutdown_timeout,
  exits 0 and unregisters; every node ends ``active``.
"""

from __future__ import annotations

import signal
import threading
import time

from ironic import hash_ring
from ironic.tests.scenario.client import Client, run_parallel
from ironic.tests.scenario.cluster import PARTITION_EXPONENT, wait_for

NODES = 300
THREADS = 16
# Locks of the leaving conductor seen before it is stopped: "mid-deploy".
MID_DEPLOY_LOCKS = 20
# What two loaded cores add to the configured timeouts before a bound is
# declared broken (processes starved of CPU, 300 nodes per periodic pass).
SLACK = 30.0
STABLE = ("active", "deploy failed")


def ring(hosts: list[str]) -> hash_ring.HashRing:
    return hash_ring.HashRing(hosts, PARTITION_EXPONENT)


def owners(hosts: list[str], uuids: list[str]) -> dict[str, str]:
    r = ring(hosts)
    return {u: r.get_hosts(u)[0] for u in uuids}


class Observer(threading.Thread):
    """Lists the nodes through the API until stopped; remembers every
    reservation seen on every node."""

    def __init__(self, client: Client):
        super().__init__(name="observer", daemon=True)
        self.client = client
        self.seen: dict[str, set[str]] = {}
        self.latest: list[dict] = []
        self.polls = 0
        self.errors: list[str] = []
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            try:
                nodes = self.client.list_nodes()
            except Exception as e:  # noqa: BLE001 - reported by the test
                self.errors.append(repr(e))
                self._stop_event.wait(0.5)
                continue
            for node in nodes:
                if node["reservation"]:
                    self.seen.setdefault(node["uuid"], set()).add(
                        node["reservation"])
            self.latest = nodes
            self.polls += 1
            self._stop_event.wait(0.5)

    def held_by(self, host: str, state: str = "deploying") -> int:
        return sum(1 for n in self.latest if n["reservation"] == host
                   and n["provision_state"] == state)

    def stop(self) -> None:
        self._stop_event.set()
        self.join(30)

    def __enter__(self) -> Observer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _states(client: Client) -> dict[str, int]:
    counts: dict[str, int] = {}
    for node in client.list_nodes():
        counts[node["provision_state"]] = counts.get(
            node["provision_state"], 0) + 1
    return counts


def _all_in(client: Client, wanted: tuple[str, ...]) -> list[dict] | None:
    nodes = client.list_nodes()
    if all(n["provision_state"] in wanted and n["reservation"] is None
           and n["target_provision_state"] is None for n in nodes):
        return nodes
    return None


def enroll_available(client: Client, count: int) -> list[dict]:
    """Enroll ``count`` nodes and make them available (manage, provide)."""
    nodes = run_parallel(client.create_node,
                         [f"node-{i:03d}" for i in range(count)], THREADS)
    for verb, done in (("manage", "manageable"), ("provide", "available")):
        run_parallel(lambda n, verb=verb: client.provision(
            n, verb, lambda c: c["provision_state"] != "enroll"
            if verb == "manage" else c["provision_state"] != "manageable"),
            nodes, THREADS)
        wait_for(lambda done=done: _all_in(client, (done,)), 120,
                 f"{count} nodes to be {done}")
    return nodes


def _deployed(node: dict) -> bool:
    return node["provision_state"] != "available"


def start_deploying(client: Client, nodes: list[dict]) -> threading.Thread:
    """Deploy every node from 16 threads, in the background."""
    result: dict = {}

    def deploy_all():
        try:
            run_parallel(lambda n: client.provision(n, "active", _deployed),
                         nodes, THREADS)
        except BaseException as e:  # noqa: BLE001 - checked by the test
            result["error"] = e
        result["done_at"] = time.monotonic()

    thread = threading.Thread(target=deploy_all, name="deployer")
    thread.result = result
    thread.start()
    return thread


def finish_deploying(thread: threading.Thread) -> float:
    thread.join()
    if "error" in thread.result:
        raise thread.result["error"]
    return thread.result["done_at"]


def check_ring(seen: dict[str, set[str]], before: dict[str, str],
               after: dict[str, str], gone: str) -> None:
    """Only the ring's owner ever locked a node: the owner among all three
    conductors, or, for the nodes of the one that left, first it and then
    its successor among the two others."""
    wrong = {}
    for uuid, holders in seen.items():
        allowed = {before[uuid]}
        if before[uuid] == gone:
            allowed.add(after[uuid])
        if holders - allowed:
            wrong[uuid] = (sorted(holders), sorted(allowed))
    assert not wrong, f"nodes locked by the wrong conductor: {wrong}"
    assert len(seen) >= len(before) // 2, (
        f"the observer saw locks on {len(seen)} nodes only")


def check_affinity(cluster, expected: dict[str, str]) -> bool:
    ids = {h: r["id"] for h, r in cluster.conductor_rows().items()}
    affinity = cluster.node_affinity()
    return all(affinity[u] == ids[h] for u, h in expected.items())


def _report(what: str, client: Client, **numbers) -> None:
    print(f"\n{what}: " + ", ".join(f"{k}={v}" for k, v in numbers.items()))
    for (status, fault), count in sorted(client.retried.items(), key=str):
        print(f"  retried {count}x on {status}: {fault}")


def test_sigkill_conductor_mid_deploy(cluster):
    t = cluster.timeouts
    client = Client(cluster.endpoint)
    started = time.monotonic()
    nodes = enroll_available(client, NODES)
    uuids = [n["uuid"] for n in nodes]
    enrolled = time.monotonic()
    victim = cluster.hosts[1]
    survivors = [h for h in cluster.hosts if h != victim]
    before = owners(cluster.hosts, uuids)
    after = owners(survivors, uuids)
    assert set(before.values()) == set(cluster.hosts)
    # Consistent hashing: only the victim's nodes move.
    assert all(after[u] == before[u] for u in uuids if before[u] != victim)

    with Observer(client) as observer:
        deployer = start_deploying(client, nodes)
        wait_for(lambda: observer.held_by(victim) >= MID_DEPLOY_LOCKS, 120,
                 f"{victim} to hold {MID_DEPLOY_LOCKS} deployments")
        cluster.conductors[victim].signal(signal.SIGKILL)
        killed = time.monotonic()
        requests_done = finish_deploying(deployer)
        # A dead conductor's locks last heartbeat_timeout; the next
        # takeover pass resumes its deployments (deploy_delay each).
        bound = (t.heartbeat_timeout + t.sync_local_state_interval
                 + t.deploy_delay + SLACK)
        final = wait_for(lambda: _all_in(client, STABLE), bound,
                         lambda: f"every node to be stable and unlocked: "
                                 f"{_states(client)}")
        settled = time.monotonic()
    assert not observer.errors, observer.errors

    failed = [n for n in final if n["provision_state"] == "deploy failed"]
    run_parallel(lambda n: client.provision(
        n, "active", lambda c: c["provision_state"] != "deploy failed"),
        failed, THREADS)
    wait_for(lambda: _all_in(client, ("active",)), t.deploy_delay + SLACK,
             "the failed nodes to deploy again")

    check_ring(observer.seen, before, after, victim)
    assert sorted(cluster.driver_hosts()) == survivors
    expected = {u: after[u] for u in uuids}
    wait_for(lambda: check_affinity(cluster, expected),
             t.heartbeat_timeout + t.sync_local_state_interval + SLACK,
             "every active node to be taken over by its ring owner")
    _report("SIGKILL", client, enroll=f"{enrolled - started:.1f}s",
            kill_after=f"{killed - enrolled:.1f}s",
            requests_done=f"{requests_done - killed:.1f}s after the kill",
            settled=f"{settled - requests_done:.1f}s later (bound {bound}s)",
            recovered=len(failed), observed=observer.polls)


def test_sigterm_conductor_drains_and_unregisters(cluster):
    t = cluster.timeouts
    client = Client(cluster.endpoint)
    started = time.monotonic()
    nodes = enroll_available(client, NODES)
    enrolled = time.monotonic()
    uuids = [n["uuid"] for n in nodes]
    leaving = cluster.hosts[2]
    stayers = [h for h in cluster.hosts if h != leaving]
    before = owners(cluster.hosts, uuids)
    after = owners(stayers, uuids)

    with Observer(client) as observer:
        deployer = start_deploying(client, nodes)
        wait_for(lambda: observer.held_by(leaving) >= MID_DEPLOY_LOCKS, 120,
                 f"{leaving} to hold {MID_DEPLOY_LOCKS} deployments")
        proc = cluster.conductors[leaving]
        proc.signal(signal.SIGTERM)
        stopped = time.monotonic()
        assert proc.wait(t.graceful_shutdown_timeout + SLACK) == 0
        exited = time.monotonic()
        assert not cluster.conductor_rows()[leaving]["online"]
        requests_done = finish_deploying(deployer)
        wait_for(lambda: _all_in(client, ("active",)),
                 t.deploy_delay + t.heartbeat_timeout + SLACK,
                 lambda: f"every node to be active: {_states(client)}")
        settled = time.monotonic()
    assert not observer.errors, observer.errors

    check_ring(observer.seen, before, after, leaving)
    assert sorted(cluster.driver_hosts()) == stayers
    # A clean stop leaves nothing to recover and nothing to complain about.
    errors = {name: p.error_lines() for name, p in
              cluster.conductors.items() if p.error_lines()}
    assert not errors, f"errors logged: {errors}"
    expected = {u: after[u] for u in uuids}
    wait_for(lambda: check_affinity(cluster, expected),
             t.heartbeat_timeout + t.sync_local_state_interval + SLACK,
             "every active node to be taken over by its ring owner")
    _report("SIGTERM", client, enroll=f"{enrolled - started:.1f}s",
            stop_after=f"{stopped - enrolled:.1f}s",
            exit=f"{exited - stopped:.1f}s after SIGTERM",
            requests_done=f"{requests_done - stopped:.1f}s after SIGTERM",
            settled=f"{settled - requests_done:.1f}s later",
            observed=observer.polls)
