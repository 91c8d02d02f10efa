"""Bounded, interruptible retries of the database and the message bus, and
what a database outage leaves behind on a node: nothing half-written."""

from __future__ import annotations

import threading
import time

import pytest
from oslo_db import exception as db_exc

from ironic.common import exception, states
from ironic.conductor import (
    dependencies,
    lock_book,
    takeover,
    task_manager,
)
from ironic.db import api as db_api
from ironic.drivers.modules import fake
from ironic.tests.unit.conductor.test_lifecycle import _node, _provision


class Flaky:
    """A check failing ``failures`` times, then passing."""

    def __init__(self, failures: int):
        self.failures = failures
        self.calls = 0

    def __call__(self) -> None:
        self.calls += 1
        if self.calls <= self.failures:
            raise db_exc.DBConnectionError(f"refused #{self.calls}")


def _dep(check, retries=3, interval=0.01):
    return dependencies.Dependency("database", check, lambda: retries,
                                   lambda: interval)


def test_a_dependency_back_within_its_retries_is_waited_for():
    gave_up = []
    check = Flaky(2)
    watch = dependencies.Watch([], lambda: 0, threading.Event(),
                               gave_up.append)
    # The failure that started the retries, two more, the third passes.
    assert watch.retry(_dep(check, retries=3), RuntimeError("first"))
    assert gave_up == [] and check.calls == 3


def test_retries_run_out_once_with_one_line():
    gave_up = []
    check = Flaky(100)
    watch = dependencies.Watch([], lambda: 0, threading.Event(),
                               gave_up.append)
    assert not watch.retry(_dep(check, retries=2), RuntimeError("first"))
    # The first failure and two retries.
    assert check.calls == 2
    [g] = gave_up
    assert g.attempts == 3
    line = g.line("cond1")
    assert "\n" not in line
    assert "cond1 gives up: the database did not answer 3 checks" in line
    assert "DBConnectionError: refused #2" in line
    assert f"status {dependencies.EXIT_GAVE_UP}" in line


def test_minus_one_retries_for_ever_until_stopped():
    stop = threading.Event()
    gave_up = []
    check = Flaky(10 ** 9)
    watch = dependencies.Watch([], lambda: 0, stop, gave_up.append)
    threading.Timer(0.3, stop.set).start()
    started = time.monotonic()
    assert not watch.retry(_dep(check, retries=-1), RuntimeError("x"))
    assert time.monotonic() - started < 5
    assert gave_up == [] and check.calls > 3


def test_a_stop_interrupts_a_long_wait():
    stop = threading.Event()
    watch = dependencies.Watch([], lambda: 0, stop, lambda g: None)
    threading.Timer(0.2, stop.set).start()
    started = time.monotonic()
    assert not watch.retry(_dep(Flaky(10), interval=3600), RuntimeError())
    assert time.monotonic() - started < 5


def test_the_watch_thread_reports_exhaustion():
    stop = threading.Event()
    done = threading.Event()
    gave_up = []

    def report(g):
        gave_up.append(g)
        done.set()
    watch = dependencies.Watch([_dep(Flaky(100), retries=1)], lambda: 0.01,
                               stop, report)
    watch.start()
    assert done.wait(10)
    stop.set()
    assert gave_up[0].dependency.name == "database"


def test_wait_for_at_start():
    stop = threading.Event()
    assert dependencies.wait_for([_dep(Flaky(2))], stop) is None
    assert dependencies.wait_for([_dep(Flaky(9), retries=1)],
                                 stop).attempts == 2
    stop.set()
    assert dependencies.wait_for([_dep(Flaky(9), retries=1)], stop) is None


def test_the_database_check_is_a_round_trip(database):
    dependencies.check_database()


def test_the_message_bus_check_fails_on_a_closed_port(config):
    from ironic.common import rpc
    rpc.register_opts()
    config(transport_url="rabbit://guest:guest@127.0.0.1:9/")
    with pytest.raises(Exception):  # noqa: B017 - whatever kombu raises
        dependencies.check_message_bus(1.0)


# -- what an outage leaves on a node ----------------------------------------


def test_a_lock_is_given_back_when_the_database_answers_again(
        database, config, monkeypatch):
    from ironic.objects.node import Node
    config("database", retry_interval=0.01, max_retries=5)
    task_manager.SHUTDOWN.clear()  # a stopped conductor of another test
    node = Node(driver="fake-hardware")
    node.create()
    dbapi = db_api.get_instance()
    release = type(dbapi).release_node
    calls = []

    def flaky_release(self, host, node_id):
        calls.append(host)
        if len(calls) <= 2:
            raise db_exc.DBConnectionError("gone")
        return release(self, host, node_id)
    monkeypatch.setattr(type(dbapi), "release_node", flaky_release)
    with task_manager.acquire(None, node.id, host="h1", retry=False):
        pass
    # The task ended at once; the release goes on in the background.
    assert task_manager.wait_pending_releases(10)
    assert len(calls) == 3
    assert Node.get(node.id).reservation is None


def test_a_lock_left_to_the_takeover_after_the_retries(database, config,
                                                       monkeypatch):
    from ironic.objects.node import Node
    config("database", retry_interval=0.01, max_retries=1)
    node = Node(driver="fake-hardware")
    node.create()
    dbapi = db_api.get_instance()

    def dead(self, host, node_id):
        raise db_exc.DBConnectionError("gone")
    monkeypatch.setattr(type(dbapi), "release_node", dead)
    with task_manager.acquire(None, node.id, host="h1", retry=False):
        pass
    assert task_manager.wait_pending_releases(10)
    monkeypatch.undo()
    # Still held by h1: its peers break it once h1's heartbeat is stale.
    assert Node.get(node.id).reservation == "h1"


def _released_late(config, monkeypatch, commit_first: bool):
    """A node whose task ended while ``release_node`` failed once with an
    outage (after committing, with ``commit_first``); the release is
    retried once the returned event is set."""
    from ironic.objects.node import Node
    config("database", retry_interval=0.01, max_retries=50)
    task_manager.SHUTDOWN.clear()
    node = Node(driver="fake-hardware")
    node.create()
    dbapi = db_api.get_instance()
    release = type(dbapi).release_node
    go = threading.Event()
    calls = []

    def flaky_release(self, host, node_id):
        calls.append(host)
        if len(calls) == 1:
            if commit_first:
                release(self, host, node_id)
            raise db_exc.DBConnectionError("gone")
        assert go.wait(10)
        return release(self, host, node_id)
    monkeypatch.setattr(type(dbapi), "release_node", flaky_release)
    with task_manager.acquire(None, node.id, host="h1", retry=False):
        pass
    return node, go


def test_a_lock_being_released_late_is_not_swept(database, config,
                                                 monkeypatch):
    # The sweep freeing it would let a new task take it, and the late
    # release would then free that task's lock under it.
    from ironic.objects.node import Node
    node, go = _released_late(config, monkeypatch, commit_first=False)
    assert Node.get(node.id).reservation == "h1"
    assert lock_book.release_stray_locks("h1") == []
    go.set()
    assert task_manager.wait_pending_releases(10)
    assert Node.get(node.id).reservation is None


def test_no_task_takes_a_node_whose_release_is_retried(database, config,
                                                       monkeypatch):
    # The first release committed but its answer was lost: the node is
    # free in the database, and the retry would free a new holder's lock.
    from ironic.objects.node import Node
    node, go = _released_late(config, monkeypatch, commit_first=True)
    assert Node.get(node.id).reservation is None
    for key in (node.id, node.uuid):
        with pytest.raises(exception.NodeLocked):
            task_manager.acquire(None, key, host="h1", retry=False)
    go.set()
    assert task_manager.wait_pending_releases(10)
    with task_manager.acquire(None, node.uuid, host="h1", retry=False):
        assert Node.get(node.id).reservation == "h1"
    assert Node.get(node.id).reservation is None


def test_a_deploy_stopped_by_an_outage_is_resumed_not_failed(env,
                                                             monkeypatch):
    api, svc = env
    uuid = _node(api)
    _provision(env, uuid, "manage")
    _provision(env, uuid, "provide")
    real = fake.FakeDeploy.deploy

    def outage(self, task):
        raise db_exc.DBConnectionError("the database went away")
    monkeypatch.setattr(fake.FakeDeploy, "deploy", outage)
    _provision(env, uuid, "active")
    doc = api.get(f"/v1/nodes/{uuid}").json
    # No failure recorded, nothing locked: an orphan the takeover resumes.
    assert doc["provision_state"] == states.DEPLOYING
    assert doc["last_error"] is None and doc["reservation"] is None
    monkeypatch.setattr(fake.FakeDeploy, "deploy", real)
    assert takeover.recover_orphans(svc) == 1
    assert svc.pool.wait_idle(10)
    doc = api.get(f"/v1/nodes/{uuid}").json
    assert doc["provision_state"] == states.ACTIVE, doc["last_error"]


def test_the_broker_check_uses_the_drivers_tls_settings(config):
    from ironic.common import rpc
    rpc.register_opts()
    assert dependencies._ssl_options() is False
    config("oslo_messaging_rabbit", ssl=True)
    assert dependencies._ssl_options() is True
    config("oslo_messaging_rabbit", ssl_ca_file="/etc/ca.pem",
           ssl_cert_file="/etc/c.pem", ssl_key_file="/etc/k.pem")
    opts = dependencies._ssl_options()
    assert opts["ca_certs"] == "/etc/ca.pem"
    assert (opts["certfile"], opts["keyfile"]) == ("/etc/c.pem", "/etc/k.pem")
