"""Power state sync: bounded parallel BMC queries, deadlines, failures,
maintenance and recovery, health."""

from __future__ import annotations

import threading

import pytest

from ironic import hash_ring
from ironic.common import faults, rpc, states
from ironic.conductor import base_manager, periodics, power_sync
from ironic.drivers.modules import fake
from ironic.objects.node import Node
from ironic.tests import builders
from ironic.tests import fixtures as ifx


@pytest.fixture
def svc(database, config):
    ifx.configure_test_drivers(config)
    config(rpc_transport="none", host="test-conductor")
    config("conductor", node_locked_retry_attempts=0,
           power_state_sync_max_retries=1)
    rpc.reset()
    hash_ring.reset()
    service = base_manager.ConductorService()
    service.start()
    yield service
    service.stop(timeout=5)
    rpc.reset()


def _nodes(count, **values):
    values.setdefault("provision_state", states.MANAGEABLE)
    return [builders.make_node(**values) for _ in range(count)]


def test_cycle_asks_at_most_the_configured_workers_at_once(svc, config):
    config("conductor", sync_power_state_workers=3)
    nodes = _nodes(9)
    # Every query waits for two others: the cycle must run 3 at once.
    barrier = threading.Barrier(3, timeout=20)
    lock = threading.Lock()
    running, peak, applied = [0], [0], []

    def ask(node, host):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        barrier.wait()
        with lock:
            running[0] -= 1
        return power_sync.Answer(power_state=states.POWER_OFF)

    def apply(node, answer):
        applied.append((node.id, answer.power_state))
        return 1

    cycle = power_sync.Cycle(svc, apply, ask=ask)
    assert cycle.run(nodes) == 9
    assert peak[0] == 3 and cycle.max_parallel == 3
    assert sorted(applied) == sorted((n.id, states.POWER_OFF)
                                     for n in nodes)


@pytest.mark.parametrize("sync_workers,periodic_workers,expected", [
    (3, 8, 3), (8, 2, 2)])
def test_cycle_workers_are_bounded_by_periodic_max_workers(
        svc, config, sync_workers, periodic_workers, expected):
    config("conductor", sync_power_state_workers=sync_workers,
           periodic_max_workers=periodic_workers)
    cycle = power_sync.Cycle(svc, lambda node, answer: 0)
    assert cycle.workers == expected


def test_a_hung_bmc_gives_its_worker_back_and_is_not_asked_twice(
        svc, config):
    config("conductor", sync_power_state_workers=2,
           sync_power_state_timeout=1)
    hung, *others = _nodes(6)
    release = threading.Event()
    answers = {}

    def ask(node, host):
        if node.id == hung.id:
            release.wait(30)
        return power_sync.Answer(power_state=states.POWER_ON)

    def apply(node, answer):
        answers.setdefault(node.id, []).append(answer)
        return 0

    power_sync.Cycle(svc, apply, ask=ask).run([hung, *others])
    assert all(answers[n.id][0].power_state == states.POWER_ON
               for n in others)
    assert "did not answer" in answers[hung.id][0].error
    assert hung.id in svc.power_queries_open

    # Next cycle: the old question is still open, so no second thread.
    power_sync.Cycle(svc, apply, ask=ask).run([hung])
    assert "still not answered" in answers[hung.id][1].error
    release.set()
    for thread in threading.enumerate():
        if thread.name == f"power-sync-{hung.id}":
            thread.join(10)
    assert hung.id not in svc.power_queries_open
    assert len(answers[hung.id]) == 2  # the late answer was dropped


def _failing(monkeypatch, message="BMC unreachable"):
    def broken(self, task):
        raise RuntimeError(message)
    monkeypatch.setattr(fake.FakePower, "get_power_state", broken)


def _answering(monkeypatch, state=states.POWER_OFF, health=None):
    monkeypatch.setattr(fake.FakePower, "get_power_state",
                        lambda self, task: state)
    monkeypatch.setattr(fake.FakePower, "get_power_state_and_health",
                        lambda self, task: (state, health))


def test_failures_then_maintenance_then_recovery(svc, monkeypatch):
    node, other = _nodes(2, power_state=states.POWER_OFF)
    _failing(monkeypatch)
    assert periodics.sync_power_states(svc) == 0
    first = Node.get(node.id)
    assert not first.maintenance and first.fault is None
    assert first.last_error.startswith(periodics.SYNC_ERROR)
    assert "BMC unreachable" in first.last_error

    assert periodics.sync_power_states(svc) == 2
    down = Node.get(node.id)
    assert down.maintenance and down.fault == faults.POWER_FAILURE
    assert "BMC unreachable" in down.maintenance_reason
    assert "2 times in a row" in down.maintenance_reason

    # In maintenance, the regular sync leaves it; recovery keeps asking.
    assert periodics.sync_power_states(svc) == 0
    assert periodics.recover_power_failures(svc) == 0
    assert Node.get(node.id).maintenance

    _answering(monkeypatch, states.POWER_ON)
    assert periodics.recover_power_failures(svc) == 2
    back = Node.get(node.id)
    assert not back.maintenance and back.fault is None
    assert back.maintenance_reason is None and back.last_error is None
    assert back.power_state == states.POWER_ON
    assert Node.get(other.id).power_state == states.POWER_ON  # both failed


def test_recovery_leaves_maintenance_set_by_people(svc, monkeypatch):
    node = builders.make_node(provision_state=states.MANAGEABLE,
                              maintenance=True, maintenance_reason="disk")
    _answering(monkeypatch)
    assert periodics.recover_power_failures(svc) == 0
    assert Node.get(node.id).maintenance_reason == "disk"


def test_an_answer_clears_only_the_syncs_own_error(svc, monkeypatch):
    mine, other = _nodes(2)
    _failing(monkeypatch)
    periodics.sync_power_states(svc)
    other = Node.get(other.id)
    other.last_error = "Deploy failed: no image"
    other.save()
    _answering(monkeypatch)
    periodics.sync_power_states(svc)
    assert Node.get(mine.id).last_error is None
    assert Node.get(other.id).last_error == "Deploy failed: no image"
    assert svc.power_failures == {}


def test_health_comes_with_the_power_state(svc, config, monkeypatch):
    node, = _nodes(1)
    _answering(monkeypatch, health="Warning")
    periodics.sync_power_states(svc)
    assert Node.get(node.id).health == "Warning"
    _answering(monkeypatch, health="Critical")
    config("conductor", enable_health_monitoring=False)
    periodics.sync_power_states(svc)
    assert Node.get(node.id).health == "Warning"
    config("conductor", enable_health_monitoring=True)
    periodics.sync_power_states(svc)
    assert Node.get(node.id).health == "Critical"


def test_drivers_without_health_leave_it_empty(svc):
    node, = _nodes(1)
    periodics.sync_power_states(svc)
    assert Node.get(node.id).health is None


def test_an_unusable_power_state_is_a_failure(svc, monkeypatch):
    node, = _nodes(1)
    _answering(monkeypatch, states.ERROR)
    periodics.sync_power_states(svc)
    assert "unusable power state" in Node.get(node.id).last_error
