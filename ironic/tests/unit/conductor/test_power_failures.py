"""Power sync when every BMC fails at once: bounded threads, memory and
log, batched writes, maintenance after the retries, recovery."""

from __future__ import annotations

import logging
import threading
import tracemalloc

import pytest

from ironic import hash_ring
from ironic.common import faults, rpc, states
from ironic.conductor import base_manager, periodics, power_failures
from ironic.db import api as db_api
from ironic.drivers.modules import fake
from ironic.objects.node import Node
from ironic.tests import builders
from ironic.tests import fixtures as ifx

COUNT = 300
WORKERS = 4


@pytest.fixture
def svc(database, config):
    ifx.configure_test_drivers(config)
    config(rpc_transport="none", host="test-conductor")
    config("conductor", node_locked_retry_attempts=0,
           sync_power_state_workers=WORKERS, power_state_sync_max_retries=2)
    rpc.reset()
    hash_ring.reset()
    service = base_manager.ConductorService()
    service.start()
    yield service
    service.stop(timeout=5)
    rpc.reset()


@pytest.fixture
def nodes(svc):
    return [builders.make_node(provision_state=states.MANAGEABLE)
            for _ in range(COUNT)]


class _Outage:
    """Every fake BMC fails; records the most sync threads seen at once."""

    def __init__(self, monkeypatch):
        self.peak = 0
        self.monkeypatch = monkeypatch
        self.down()

    def _broken(self, _power, _task):
        threads = sum(t.name.startswith("power-sync")
                      for t in threading.enumerate())
        self.peak = max(self.peak, threads)
        raise RuntimeError("BMC network unreachable")

    def down(self):
        self.monkeypatch.setattr(fake.FakePower, "get_power_state",
                                 lambda power, task: self._broken(power,
                                                                  task))
        self.monkeypatch.setattr(
            fake.FakePower, "get_power_state_and_health",
            lambda power, task: (self._broken(power, task), None))

    def up(self):
        self.monkeypatch.undo()


def _lines(caplog, needle, level=logging.WARNING):
    return [r for r in caplog.records
            if r.levelno == level and needle in r.getMessage()]


def test_mass_failure_one_summary_then_maintenance(svc, nodes, monkeypatch,
                                                   caplog):
    outage = _Outage(monkeypatch)
    caplog.set_level(logging.INFO)
    for cycle in (1, 2):
        caplog.clear()
        assert periodics.sync_power_states(svc) == 0
        per_node = _lines(caplog, f"failed ({cycle} in a row)")
        assert len(per_node) == power_failures.DETAILED
        summary = _lines(caplog, f"{COUNT} of {COUNT} nodes failed")
        assert len(summary) == 1
        assert "BMC network unreachable" in summary[0].getMessage()
        assert all(not r.exc_info for r in caplog.records)
        fresh = Node.get(nodes[-1].id)
        assert f"({cycle} of 3 attempts before maintenance)" in \
            fresh.last_error and not fresh.maintenance

    caplog.clear()
    assert periodics.sync_power_states(svc) == COUNT
    assert len(_lines(caplog, "put in maintenance after",
                      logging.ERROR)) == power_failures.DETAILED
    assert len(_lines(caplog, f"{COUNT} put in maintenance")) == 1
    for node in (nodes[0], nodes[-1]):
        fresh = Node.get(node.id)
        assert fresh.maintenance and fresh.fault == faults.POWER_FAILURE
        assert "BMC network unreachable" in fresh.maintenance_reason
        events = db_api.get_instance().get_node_history_list(node.id)
        assert [e.event_type for e in events] == ["maintenance"]
    assert svc.power_failures == {}
    assert outage.peak <= WORKERS

    # Nodes in maintenance are no longer synced; the recovery asks them
    # and logs one line for all of them.
    assert periodics.sync_power_states(svc) == 0
    caplog.clear()
    assert periodics.recover_power_failures(svc) == 0
    still = [r for r in caplog.records if "still" in r.getMessage()]
    assert len(still) == 1
    assert f"{COUNT} of {COUNT} nodes" in still[0].getMessage()

    outage.up()
    caplog.clear()
    assert periodics.recover_power_failures(svc) == COUNT
    assert len(_lines(caplog, "left maintenance",
                      logging.INFO)) == power_failures.DETAILED
    assert len(_lines(caplog, f"; {COUNT} recovered", logging.INFO)) == 1
    fresh = Node.get(nodes[0].id)
    assert not fresh.maintenance and fresh.fault is None
    assert fresh.last_error is None


def test_memory_and_threads_stay_flat_across_failing_cycles(
        svc, nodes, config, monkeypatch):
    config("conductor", power_state_sync_max_retries=100)
    outage = _Outage(monkeypatch)
    periodics.sync_power_states(svc)
    periodics.sync_power_states(svc)
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        for _ in range(5):
            periodics.sync_power_states(svc)
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    # Not the test run's log capture (it keeps every record) nor
    # SQLAlchemy's statement cache: they grow with whatever ran before.
    ours = [tracemalloc.Filter(False, pattern) for pattern in (
        "*/logging/*", "*/_pytest/*", "*/sqlalchemy/*", tracemalloc.__file__)]
    grown = sum(s.size_diff for s in after.filter_traces(ours).compare_to(
        before.filter_traces(ours), "filename"))
    # Five cycles of 300 failures: the per-node state is one counter each,
    # which already existed; what a cycle allocates it frees.
    assert grown < 256 * 1024, grown
    assert len(svc.power_failures) == COUNT
    assert svc.power_queries_open == set()
    assert outage.peak <= WORKERS
    assert not [t for t in threading.enumerate()
                if t.name.startswith("power-sync")]


def test_failure_records_skip_locked_and_maintenance_nodes(svc):
    free, locked, kept = (builders.make_node(
        provision_state=states.MANAGEABLE) for _ in range(3))
    dbapi = db_api.get_instance()
    dbapi.reserve_node("someone-else", locked.id)
    kept.maintenance = True
    kept.save()
    written = dbapi.write_idle_nodes(
        [(n.id, {"last_error": "boom"}) for n in (free, locked, kept)],
        {n.id: {"event": "boom", "event_type": "maintenance"}
         for n in (free, locked, kept)})
    assert written == [free.id]
    assert Node.get(free.id).last_error == "boom"
    assert Node.get(locked.id).last_error is None
    assert Node.get(kept.id).last_error is None
    assert [e.event for e in dbapi.get_node_history_list(free.id)] == \
        ["boom"]
    assert dbapi.get_node_history_list(locked.id) == []
