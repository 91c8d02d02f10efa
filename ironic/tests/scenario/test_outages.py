"""Outages under load: the database, the broker or the coordination
backend (redis) cut for a while, a conductor that loses its database for
good, a conductor killed while clients send provision requests.

Each process reaches the database and RabbitMQ through fault proxies of its
own (``faultproxy``), so a test can cut one dependency for every process
(an outage) or for one conductor only (a partition); the conductors reach
a redis-server of the test's own through one more proxy. Everything else goes
through the API over HTTP, as a user would, with the retries a user's
client makes on 409 and 503. What is asserted:

* during a 10 s cut of the database or the broker, the API answers 503
  with the API error body, never 500, and no request hangs; afterwards
  every node ends ``active`` and none stays locked, on the same three
  conductors (none exited: the cut was within their retries);
* during a 10 s cut of redis (the coordination backend, at its default
  retries) the API, which does not use it, answers as usual; the leader
  steps down, and after the cut a leader is elected again and runs the
  leader's jobs; every node ends ``active``, none locked, no conductor
  exited;
* a conductor whose database (or broker) stays away past its retries
  logs its one line and exits with status 75; its peers carry its nodes;
* a conductor SIGKILLed while 8 clients send provision requests makes no
  request wait more than 10 s (``[conductor]rpc_liveness_timeout`` at its
  default); every node ends ``active``.

The database cut runs on MariaDB and PostgreSQL; the other scenarios run
on PostgreSQL alone (they exercise the broker and the conductors, not the
database server), to keep the suite to a few minutes.
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import json
import signal
import threading
import time
import uuid

import pytest
import requests

from ironic.tests import dbutils
from ironic.tests.integration import conftest as integration
from ironic.tests.scenario.client import Client, run_parallel
from ironic.tests.scenario.cluster import (
    API_VERSION,
    Cluster,
    Timeouts,
    wait_for,
)
from ironic.tests.scenario.faultproxy import FaultProxy, port_of, through
from ironic.tests.scenario.redis_server import RedisServer
from ironic.tests.scenario.test_conductor_ha import (
    _all_in,
    _states,
    enroll_available,
)

NODES = 100
THREADS = 8
CUT = 10.0
# No request may take longer than this, outage or not.
REQUEST_BOUND = 10.0
# Two loaded cores on top of the configured timeouts.
SLACK = 45.0
TIMEOUTS = Timeouts(deploy_delay=2)
# Retries that outlast a 10 s cut; a prompt reconnection after it.
WITHIN_RETRIES = {
    "database": {"max_retries": 30, "retry_interval": 1},
    "conductor": {"message_bus_max_retries": 30},
    "oslo_messaging_rabbit": {"rabbit_retry_interval": 1,
                              "rabbit_interval_max": 2},
}
DEPLOYED = ("deploying", "wait call-back", "active")


@dataclasses.dataclass
class Faulty:
    cluster: Cluster
    db: dict[str, FaultProxy]
    bus: dict[str, FaultProxy]
    #: The conductors' way to redis, when they coordinate through it.
    coordination: dict[str, FaultProxy] = dataclasses.field(
        default_factory=dict)
    #: Wall-clock time of the last restore (log lines carry wall time).
    restored_at: float = 0.0

    def proxies(self, which: str) -> dict[str, FaultProxy]:
        return {"database": self.db, "message bus": self.bus,
                "coordination backend": self.coordination}[which]

    def cut(self, proxies: dict[str, FaultProxy], seconds: float) -> None:
        for p in proxies.values():
            p.cut()
        # The outage itself: how long the dependency stays away.
        time.sleep(seconds)
        for p in proxies.values():
            p.restore()
        self.restored_at = time.time()


def _start(request, tmp_path, db_kind: str,
           overrides=lambda name: {}, timeouts: Timeouts = TIMEOUTS
           ) -> Faulty:
    server = integration.require_db(db_kind)
    rabbit = integration.require_service("rabbitmq").replace(
        "amqp://", "rabbit://", 1)
    scratch = dbutils.scratch_database(server)
    db_url = scratch.__enter__()
    request.addfinalizer(lambda: scratch.__exit__(None, None, None))
    db_port = port_of(db_url, 5432 if db_kind == "postgresql" else 3306)
    bus_port = port_of(rabbit, 5672)
    db: dict[str, FaultProxy] = {}
    bus: dict[str, FaultProxy] = {}

    def urls(name):
        if name not in db:
            db[name] = FaultProxy(db_port, name=f"db-{name}")
            bus[name] = FaultProxy(bus_port, name=f"bus-{name}")
        return through(db_url, db[name]), through(rabbit, bus[name])

    def conf(name):
        out = {k: dict(v) for k, v in WITHIN_RETRIES.items()}
        for section, values in overrides(name).items():
            out.setdefault(section, {}).update(values)
        return out

    cl = Cluster(tmp_path, db_url, rabbit, timeouts=timeouts,
                 tag=uuid.uuid4().hex[:6], urls=urls, overrides=conf)
    request.node.scenario_cluster = cl

    def stop():
        cl.stop()
        for p in (*db.values(), *bus.values()):
            p.close()
    request.addfinalizer(stop)
    cl.start()
    return Faulty(cl, db, bus)


# -- a client that records every request -----------------------------------


@dataclasses.dataclass(frozen=True)
class Sent:
    started: float
    seconds: float
    method: str
    status: int
    fault: str


class Recorder:
    def __init__(self, endpoint: str):
        self.endpoint = endpoint + "/v1"
        self.sent: list[Sent] = []
        self._lock = threading.Lock()
        self._local = threading.local()

    def request(self, method: str, path: str, **kwargs) -> requests.Response:
        if not hasattr(self._local, "session"):
            self._local.session = requests.Session()
            self._local.session.headers[
                "X-OpenStack-Ironic-API-Version"] = API_VERSION
        started = time.monotonic()
        resp = self._local.session.request(method, self.endpoint + path,
                                           timeout=120, **kwargs)
        seconds = time.monotonic() - started
        fault = ""
        if resp.status_code >= 400:
            fault = _fault(resp)
        with self._lock:
            self.sent.append(Sent(started, seconds, method,
                                  resp.status_code, fault))
        return resp

    def get(self, path: str) -> dict:
        """A GET retried through 503s (an outage)."""
        while True:
            resp = self.request("GET", path)
            if resp.status_code != 503:
                assert resp.status_code == 200, resp.text
                return resp.json()
            time.sleep(0.5)

    def provision(self, node: dict, target: str = "active",
                  accepted: tuple[str, ...] = DEPLOYED,
                  deadline: float = 300.0) -> None:
        """Send ``target`` until it is accepted; 409 and 503 are retried.
        A 400 after a retried request means an earlier attempt went
        through (the node says so)."""
        give_up = time.monotonic() + deadline
        path = f"/nodes/{node['uuid']}/states/provision"
        while True:
            resp = self.request("PUT", path, json={"target": target})
            if resp.status_code == 202:
                return
            assert resp.status_code in (400, 409, 503), (
                f"{resp.status_code} {resp.text}")
            if resp.status_code == 400:
                state = self.get(f"/nodes/{node['uuid']}")["provision_state"]
                assert state in accepted, f"{state}: {resp.text}"
                return
            assert time.monotonic() < give_up, resp.text
            time.sleep(0.5)

    def between(self, start: float, end: float) -> list[Sent]:
        """Requests sent and answered between ``start`` and ``end``."""
        with self._lock:
            return [s for s in self.sent
                    if start <= s.started and s.started + s.seconds <= end]

    def statuses(self, sent: list[Sent] | None = None) -> dict:
        return dict(collections.Counter(
            (s.method, s.status) for s in (self.sent if sent is None
                                            else sent)))


def _fault(resp: requests.Response) -> str:
    try:
        return json.loads(resp.json()["error_message"])["faultstring"]
    except (ValueError, KeyError, TypeError):
        return f"not the API error body: {resp.text[:200]}"


class Prober(threading.Thread):
    """Lists the nodes every half second, through any outage."""

    def __init__(self, rec: Recorder):
        super().__init__(name="prober", daemon=True)
        self.rec = rec
        self.stop_event = threading.Event()

    def run(self) -> None:
        while not self.stop_event.wait(0.5):
            try:
                self.rec.request("GET", "/nodes?fields=uuid,reservation,"
                                        "provision_state&limit=1000")
            except requests.RequestException:
                pass

    def __enter__(self) -> Prober:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop_event.set()
        self.join(30)


def _deploy_in_background(rec: Recorder, nodes: list[dict]
                          ) -> threading.Thread:
    result: dict = {}

    def run():
        try:
            run_parallel(rec.provision, nodes, THREADS)
        except BaseException as e:  # noqa: BLE001 - re-raised by _join
            result["error"] = e

    thread = threading.Thread(target=run, name="deployer")
    thread.result = result
    thread.start()
    return thread


def _join(thread: threading.Thread) -> None:
    thread.join()
    if "error" in thread.result:
        raise thread.result["error"]


def _deploying(client: Client, count: int) -> bool:
    return sum(1 for n in client.list_nodes()
               if n["provision_state"] != "available") >= count


def _check_answers(rec: Recorder) -> None:
    """Never a 500 nor a body other than the API's; never a hang."""
    bad = [s for s in rec.sent if s.status >= 500 and s.status != 503
           or s.fault.startswith("not the API error body")]
    assert not bad, f"answers that are not 503 with the error body: {bad[:5]}"
    slowest = max(s.seconds for s in rec.sent)
    assert slowest < REQUEST_BOUND, f"a request took {slowest:.1f} s"


def _settle(faulty: Faulty) -> list[dict]:
    client = Client(faulty.cluster.endpoint)
    t = faulty.cluster.timeouts
    return wait_for(lambda: _all_in(client, ("active",)),
                    t.heartbeat_timeout + t.deploy_delay + SLACK,
                    lambda: f"every node active and unlocked: "
                            f"{_states(client)}")


def _report(what: str, rec: Recorder, window: list[Sent],
            label: str = "during_cut", **numbers) -> None:
    print(f"\n{what}: requests={len(rec.sent)} "
          f"slowest={max(s.seconds for s in rec.sent):.2f}s "
          f"all={rec.statuses()} {label}={rec.statuses(window)} "
          + " ".join(f"{k}={v}" for k, v in numbers.items()))
    faults = collections.Counter(s.fault for s in window if s.fault)
    for fault, count in faults.most_common(5):
        print(f"  {count}x {fault[:150]}")


def _cut_during_deploys(faulty: Faulty, which: str) -> tuple[Recorder, list]:
    cl = faulty.cluster
    client = Client(cl.endpoint)
    nodes = enroll_available(client, NODES)
    rec = Recorder(cl.endpoint)
    proxies = faulty.proxies(which)
    with Prober(rec):
        deployer = _deploy_in_background(rec, nodes)
        wait_for(lambda: _deploying(client, NODES // 4), 120,
                 "a quarter of the deployments to start")
        cut_at = time.monotonic()
        faulty.cut(proxies, CUT)
        restored = time.monotonic()
        _join(deployer)
        _settle(faulty)
    # One second for the processes to notice; requests sent in it may
    # still have been answered.
    window = rec.between(cut_at + 1, restored)
    cl.check_alive()
    return rec, window


@pytest.mark.parametrize("db_kind", ["mysql", "postgresql"])
def test_database_cut_during_deploys(request, tmp_path, db_kind):
    faulty = _start(request, tmp_path, db_kind)
    rec, window = _cut_during_deploys(faulty, "database")
    _check_answers(rec)
    during = [s for s in window if s.method == "GET"]
    assert during and all(s.status == 503 for s in during), \
        rec.statuses(during)
    assert all("database is unavailable" in s.fault for s in during)
    _report(f"database cut ({db_kind})", rec, window)


def test_message_bus_cut_during_deploys(request, tmp_path):
    faulty = _start(request, tmp_path, "postgresql")
    rec, window = _cut_during_deploys(faulty, "message bus")
    _check_answers(rec)
    # 400: the node was deploying already (an earlier attempt went
    # through), which the API tells without the broker.
    puts = [s for s in window if s.method == "PUT" and s.status != 400]
    assert puts and all(s.status == 503 for s in puts), rec.statuses(puts)
    assert all("message bus is unavailable" in s.fault
               or "did not answer" in s.fault for s in puts), \
        {s.fault for s in puts}
    # Reads need no broker.
    assert all(s.status == 200 for s in window if s.method == "GET")
    _report("message bus cut", rec, window)


HISTORY_PERIOD = 2
LEADER = "is now the leader of ironic.conductors"
HISTORY_RUN = "Leader job node_history_cleanup ran on"


def test_redis_cut_during_deploys(request, tmp_path):
    """The coordination backend away for 10 s, at the default
    ``[coordination]`` retries: no conductor gives up."""
    redis_server = RedisServer(tmp_path / "redis").start()
    request.addfinalizer(redis_server.stop)
    proxy = FaultProxy(redis_server.port, name="redis")
    request.addfinalizer(proxy.close)
    coordination = {
        "coordination": {"backend_url": through(redis_server.url, proxy)},
        "conductor": {"node_history_cleanup_interval": HISTORY_PERIOD}}
    # Deployments do not wait for redis: slow enough to be in flight
    # through the whole cut.
    faulty = _start(request, tmp_path, "postgresql",
                    lambda name: {} if name == "ironic-api"
                    else coordination,
                    timeouts=Timeouts(deploy_delay=int(CUT) + 2))
    faulty.coordination["all"] = proxy
    cl = faulty.cluster
    wait_for(lambda: _leader_events(cl, HISTORY_RUN), 30,
             "the leader's history pruning to run")
    rec, window = _cut_during_deploys(faulty, "coordination backend")
    _check_answers(rec)
    # The API does not use the coordination backend: no 503 for it.
    assert window and not [s for s in window if s.status >= 500], \
        rec.statuses(window)
    for host in cl.hosts:
        assert cl.log_lines(host, "Coordination backend stopped answering"), \
            f"{host} did not see the cut"
    assert not [line for host in cl.hosts
                for line in cl.log_lines(host, "Conductor ")
                if " stops: " in line]
    stepped_down = [line for host in cl.hosts
                    for line in cl.log_lines(host, "steps down as leader")]
    assert stepped_down, "the leader did not step down during the cut"
    # The leader role recovers: elected again, its jobs run again.
    back = wait_for(
        lambda: [t for t, _host in _leader_events(cl, HISTORY_RUN)
                 if t > faulty.restored_at], 30,
        "the leader's jobs to run after the cut")
    elected = [t for t, _host in _leader_events(cl, LEADER)
               if t > faulty.restored_at - 1]
    assert elected, "no leader elected after the cut"
    cl.check_alive()
    _report("redis cut", rec, window,
            leader_back_after=f"{back[0] - faulty.restored_at:.1f}s")


def _leader_events(cl: Cluster, marker: str) -> list[tuple[float, str]]:
    events = []
    for host in cl.hosts:
        events += [(_log_time(line), host)
                   for line in cl.log_lines(host, marker)]
    return sorted(events)


def _log_time(line: str) -> float:
    stamp = " ".join(line.split()[:2])
    return datetime.datetime.strptime(
        stamp, "%Y-%m-%d %H:%M:%S.%f").timestamp()


PAST_RETRIES = {
    "database": {"database": {"max_retries": 2, "retry_interval": 1}},
    "message bus": {"conductor": {"message_bus_max_retries": 2},
                    "oslo_messaging_rabbit": {"rabbit_retry_interval": 1}},
}


@pytest.mark.parametrize("which", sorted(PAST_RETRIES))
def test_conductor_past_its_retries_exits(request, tmp_path, which):
    victim_retries = PAST_RETRIES[which]
    victim = {}

    def overrides(name):
        if name.startswith("cond1-"):
            victim["host"] = name
            return victim_retries
        return {}

    faulty = _start(request, tmp_path, "postgresql", overrides)
    cl = faulty.cluster
    host = victim["host"]
    survivors = [h for h in cl.hosts if h != host]
    client = Client(cl.endpoint)
    nodes = enroll_available(client, NODES)
    rec = Recorder(cl.endpoint)
    deployer = _deploy_in_background(rec, nodes)
    wait_for(lambda: any(n["reservation"] == host
                         for n in client.list_nodes()), 120,
             f"{host} to hold a deployment")
    # For good: a partition of that conductor.
    (faulty.db if which == "database" else faulty.bus)[host].cut()
    cut_at = time.monotonic()
    proc = cl.conductors[host]
    status = proc.wait(20 + SLACK)
    exited = time.monotonic() - cut_at
    assert status == 75, proc.logs()
    out = proc.log_path.with_suffix(".out").read_text()
    lines = [line for line in out.splitlines() if "gives up" in line]
    assert len(lines) == 1, out[-3000:]
    assert f"the {which} did not answer 3 checks" in lines[0]
    _join(deployer)
    final = _settle(faulty)
    assert len(final) == NODES
    wait_for(lambda: sorted(cl.driver_hosts()) == survivors, SLACK,
             "the API to serve from the survivors alone")
    cl.conductors.pop(host)  # exited: nothing to stop
    _check_answers(rec)
    print(f"\n{lines[0]}")
    _report(f"conductor past its {which} retries", rec, [],
            exit_after=f"{exited:.1f}s")


def test_sigkill_while_eight_clients_provision(request, tmp_path):
    faulty = _start(request, tmp_path, "postgresql")
    cl = faulty.cluster
    client = Client(cl.endpoint)
    nodes = enroll_available(client, NODES)
    rec = Recorder(cl.endpoint)
    victim = cl.hosts[0]
    deployer = _deploy_in_background(rec, nodes)
    wait_for(lambda: sum(1 for s in rec.sent if s.status == 202) >= 16,
             60, "16 accepted requests")
    cl.conductors[victim].signal(signal.SIGKILL)
    killed = time.monotonic()
    _join(deployer)
    final = _settle(faulty)
    assert len(final) == NODES
    after = [s for s in rec.sent if s.started >= killed]
    _check_answers(rec)
    slowest = max(s.seconds for s in rec.sent)
    cl.conductors.pop(victim)
    _report("SIGKILL with 8 clients", rec, after, label="after_kill",
            slowest_after_kill=f"{max(s.seconds for s in after):.2f}s",
            bound=f"{REQUEST_BOUND}s", slowest_overall=f"{slowest:.2f}s")
