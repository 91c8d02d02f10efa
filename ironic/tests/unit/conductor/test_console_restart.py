"""Consoles through the API and across conductor restarts: a console that
fails to start says why on the node; a starting conductor starts again the
consoles of its nodes, switching off those that cannot start.
"""

from __future__ import annotations

import pytest

from ironic import hash_ring
from ironic.common import exception, rpc
from ironic.conductor import base_manager, consoles, periodics, power, rpcapi
from ironic.drivers.modules import fake

V = "1.87"


@pytest.fixture
def env(api, config, monkeypatch):
    config(rpc_transport="none", host="test-conductor")
    config("conductor", node_locked_retry_attempts=0)
    monkeypatch.setattr(rpcapi, "_API", None)
    # Consoles started by earlier tests' conductors are not this one's.
    monkeypatch.setattr(power, "CONSOLES_HERE", set())
    services = []

    def start():
        rpc.reset()
        hash_ring.reset()
        svc = base_manager.ConductorService()
        svc.start()
        services.append(svc)
        return svc

    start()
    api.version = V
    yield api, start, services
    for svc in services:
        svc.stop(timeout=5)
    rpc.reset()


def _node(api) -> str:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware"})
    assert resp.status_int == 201, resp.body
    return resp.json["uuid"]


def _enable(env, uuid):
    """PUT enabled=true (202) and wait for the worker that acts on it."""
    api, _, services = env
    resp = api.put(f"/v1/nodes/{uuid}/states/console", {"enabled": True})
    assert resp.status_int == 202, resp.body
    assert services[-1].pool.wait_idle(10)
    return resp


def _fail_for(monkeypatch, failing: set[str], started: list[str]) -> None:
    def start_console(self, task):
        if task.node.uuid in failing:
            raise exception.ConsoleSubprocessFailed(
                error="socat exited with status 1: E bind: in use")
        started.append(task.node.uuid)
    monkeypatch.setattr(fake.FakeConsole, "start_console", start_console)


def test_failed_start_is_reported_and_recorded(env, monkeypatch):
    api = env[0]
    uuid = _node(api)
    _fail_for(monkeypatch, {uuid}, [])
    # Accepted (the work runs in a worker, as in the reference service);
    # the failure is told on the node.
    _enable(env, uuid)
    node = api.get(f"/v1/nodes/{uuid}").json
    assert node["console_enabled"] is False
    assert node["last_error"].startswith("Failed to start the console: "
                                         "Console subprocess failed")
    assert "E bind: in use" in node["last_error"]


def test_enabling_an_enabled_console_restarts_a_dead_one(env, monkeypatch):
    api = env[0]
    uuid = _node(api)
    started: list[str] = []
    _fail_for(monkeypatch, set(), started)
    _enable(env, uuid)
    _enable(env, uuid)
    assert started == [uuid]  # running: left alone
    monkeypatch.setattr(fake.FakeConsole, "is_console_running",
                        lambda self, task: False, raising=False)
    _enable(env, uuid)
    assert started == [uuid, uuid]


def test_conductor_start_restarts_enabled_consoles(env, monkeypatch):
    api, start, services = env
    good, bad, off = _node(api), _node(api), _node(api)
    _enable(env, good)
    _enable(env, bad)
    services.pop().stop(timeout=5)
    started: list[str] = []
    _fail_for(monkeypatch, {bad}, started)
    start()
    assert started == [good]
    assert api.get(f"/v1/nodes/{good}").json["console_enabled"] is True
    node = api.get(f"/v1/nodes/{bad}").json
    assert node["console_enabled"] is False
    assert "when the conductor started" in node["last_error"]
    assert "E bind: in use" in node["last_error"]
    assert api.get(f"/v1/nodes/{off}").json["console_enabled"] is False


def test_takeover_starts_consoles_that_do_not_run(env, monkeypatch):
    api, _, services = env
    svc = services[-1]
    running, gone, broken = _node(api), _node(api), _node(api)
    for uuid in (running, gone, broken):
        _enable(env, uuid)
    # Their conductor died: only `running` still has a console process
    # this conductor can see.
    monkeypatch.setattr(fake.FakeConsole, "is_console_running",
                        lambda self, task: task.node.uuid == running,
                        raising=False)
    started: list[str] = []
    _fail_for(monkeypatch, {broken}, started)
    assert consoles.start_taken_over_consoles(svc) == 1
    assert started == [gone]
    assert api.get(f"/v1/nodes/{gone}").json["console_enabled"] is True
    node = api.get(f"/v1/nodes/{broken}").json
    assert node["console_enabled"] is False
    assert "while taking over the node" in node["last_error"]
    assert api.get(f"/v1/nodes/{running}").json["console_enabled"] is True


def test_consoles_follow_their_node_to_another_conductor(env, monkeypatch):
    api, _, services = env
    svc = services[-1]
    kept, moved = _node(api), _node(api)
    _enable(env, kept)
    _enable(env, moved)
    assert {kept, moved} <= power.CONSOLES_HERE
    ended: list[str] = []
    monkeypatch.setattr(fake.FakeConsole, "stop_local_console",
                        lambda self, task: ended.append(task.node.uuid),
                        raising=False)
    # The ring now gives `moved` to a conductor that joined.
    real_owned = periodics.owned
    monkeypatch.setattr(periodics, "owned", lambda host, rows: [
        row for row in real_owned(host, rows) if row["uuid"] != moved])
    assert consoles.stop_moved_consoles(svc) == 1
    assert ended == [moved]
    assert moved not in power.CONSOLES_HERE and kept in power.CONSOLES_HERE
    assert consoles.stop_moved_consoles(svc) == 0  # once only
    # The node keeps console_enabled: its new owner serves the console.
    assert api.get(f"/v1/nodes/{moved}").json["console_enabled"] is True


def test_deleting_a_node_stops_its_console(env, monkeypatch):
    api = env[0]
    uuid = _node(api)
    _enable(env, uuid)
    stopped: list[str] = []
    monkeypatch.setattr(fake.FakeConsole, "stop_console",
                        lambda self, task: stopped.append(task.node.uuid))
    assert api.delete(f"/v1/nodes/{uuid}").status_int == 204
    assert stopped == [uuid]
    assert uuid not in power.CONSOLES_HERE
