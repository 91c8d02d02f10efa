"""Periodic work: wait timeouts, power sync, dead conductors, orphans."""

from __future__ import annotations

import datetime
import threading
import time
import types

import pytest
import sqlalchemy as sa

from ironic import hash_ring
from ironic.common import rpc, states
from ironic.conductor import (
    base_manager,
    periodics,
    steps,
    takeover,
    task_manager,
)
from ironic.db import api as db_api
from ironic.db.sqlalchemy import api as sqla_api
from ironic.db.sqlalchemy import models
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


def _old(minutes=120):
    return datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None) - datetime.timedelta(minutes=minutes)


def test_wait_timeouts_fail_nodes(svc, config):
    config("conductor", clean_callback_timeout=60)
    stale = builders.make_node(provision_state=states.CLEANWAIT,
                               target_provision_state=states.AVAILABLE,
                               provision_updated_at=_old())
    fresh = builders.make_node(provision_state=states.CLEANWAIT,
                               target_provision_state=states.AVAILABLE,
                               provision_updated_at=_old(0))
    assert periodics.check_wait_timeouts(svc) == 1
    node = Node.get(stale.id)
    assert node.provision_state == states.CLEANFAIL
    assert "Timeout" in node.last_error and "clean" in node.last_error
    assert Node.get(fresh.id).provision_state == states.CLEANWAIT


def test_power_sync_restores_and_then_gives_up(svc, monkeypatch):
    from ironic.drivers.modules import fake
    node = builders.make_node(provision_state=states.MANAGEABLE,
                              power_state=states.POWER_OFF)
    monkeypatch.setattr(fake.FakePower, "get_power_state",
                        lambda self, task: states.POWER_ON)
    assert periodics.sync_power_states(svc) == 1
    assert Node.get(node.id).power_state == states.POWER_ON

    def broken(self, task):
        raise RuntimeError("BMC unreachable")
    monkeypatch.setattr(fake.FakePower, "get_power_state", broken)
    assert periodics.sync_power_states(svc) == 0
    assert not Node.get(node.id).maintenance
    periodics.sync_power_states(svc)
    fresh = Node.get(node.id)
    assert fresh.maintenance and fresh.fault == "power failure"
    assert "BMC unreachable" in fresh.maintenance_reason


def test_orphan_in_deploying_resumes_at_its_step(svc):
    node = builders.make_node(provision_state=states.DEPLOYING,
                              target_provision_state=states.ACTIVE)
    node.driver_internal_info = {"deploy_steps": [
        {"interface": "deploy", "step": "deploy", "priority": 100,
         "args": {}}], "deploy_step_index": 0}
    node.save()
    assert takeover.recover_orphans(svc) == 1
    assert svc.pool.wait_idle(10)
    fresh = Node.get(node.id)
    assert fresh.provision_state == states.ACTIVE
    assert steps.DEPLOY.steps_key not in fresh.driver_internal_info


def test_orphan_in_inspecting_fails_clearly(svc):
    node = builders.make_node(provision_state=states.INSPECTING,
                              target_provision_state=states.MANAGEABLE)
    takeover.recover_orphans(svc)
    fresh = Node.get(node.id)
    assert fresh.provision_state == states.INSPECTFAIL
    assert "stopped" in fresh.last_error


def test_dead_conductor_locks_released_and_nodes_taken_over(svc):
    dbapi = db_api.get_instance()
    node = builders.make_node(provision_state=states.ACTIVE)
    dbapi.reserve_node("gone-conductor", node.id)
    assert takeover.release_dead_locks(svc) == [node.uuid]
    assert takeover.take_over_active_nodes(svc) == 1
    fresh = Node.get(node.id)
    assert fresh.reservation is None
    assert fresh.conductor_affinity == svc.conductor_id


def test_the_takeover_pass_gives_back_a_lock_no_task_holds(svc):
    # The lock written although its task got an error (the answer lost
    # in an outage) with the conductor running on: the next takeover pass
    # releases it; a lock a task holds stays.
    dbapi = db_api.get_instance()
    lost = builders.make_node(provision_state=states.ACTIVE)
    held = builders.make_node(provision_state=states.ACTIVE)
    dbapi.reserve_node(svc.host, lost.id)
    with task_manager.acquire(None, held.id):
        svc._takeover()
        assert Node.get(held.id).reservation == svc.host
    assert Node.get(lost.id).reservation is None


def test_stop_unregisters_and_start_clears_own_locks(svc, config):
    dbapi = db_api.get_instance()
    node = builders.make_node()
    dbapi.reserve_node("test-conductor", node.id)
    svc.stop(timeout=1)
    assert dbapi.get_active_conductors(60) == []
    assert Node.get(node.id).reservation is None
    dbapi.reserve_node("test-conductor", node.id)
    again = base_manager.ConductorService()
    again.start()
    try:
        assert Node.get(node.id).reservation is None
        assert [c.hostname for c in dbapi.get_active_conductors(60)] == [
            "test-conductor"]
    finally:
        again.stop(timeout=1)


def test_a_draining_conductor_leaves_the_ring_but_keeps_its_locks(
        database, config):
    """Peers break the locks of a conductor whose heartbeat is older than
    heartbeat_timeout; one that is draining its workers must not look
    dead to them, however long the drain takes. It must not get new work
    either: it leaves the ring as soon as it stops."""
    ifx.configure_test_drivers(config)
    config(rpc_transport="none", host="draining")
    config("conductor", heartbeat_interval=1, heartbeat_timeout=5)
    rpc.reset()
    hash_ring.reset()
    service = base_manager.ConductorService()
    service.start()
    dbapi = db_api.get_instance()
    node = builders.make_node()
    dbapi.reserve_node("draining", node.id)
    seen: dict = {}

    def worker():
        service._stop.wait(30)  # stop() has begun
        seen["ring"] = [c.hostname for c in dbapi.get_active_conductors(5)]
        with sqla_api._writer() as session:
            session.execute(sa.update(models.Conductor).values(
                updated_at=_old()))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if dbapi.get_conductor("draining").updated_at > _old(1):
                seen["released"] = dbapi.release_dead_conductor_locks(5)
                seen["holder"] = Node.get(node.id).reservation
                return
            time.sleep(0.1)

    service.pool.spawn(worker)
    try:
        assert service.stop(timeout=60)
    finally:
        rpc.reset()
    assert seen["ring"] == []
    assert seen["released"] == [] and seen["holder"] == "draining", (
        "the heartbeat stopped while the worker drained")
    assert dbapi.get_active_conductors(5) == []
    assert Node.get(node.id).reservation is None


def test_a_start_that_fails_after_registering_leaves_the_ring(
        database, config, monkeypatch):
    # Registered, then failing before it serves: peers and the API must
    # not keep routing calls to it until its heartbeat times out.
    from ironic import driver_registry
    from ironic.common import exception
    ifx.configure_test_drivers(config)
    config(rpc_transport="none", host="doomed")
    rpc.reset()
    hash_ring.reset()

    def broken(*args, **kwargs):
        raise exception.IronicException("database went away")

    monkeypatch.setattr(driver_registry, "register_hardware", broken)
    service = base_manager.ConductorService()
    with pytest.raises(exception.IronicException, match="went away"):
        service.start()
    dbapi = db_api.get_instance()
    assert dbapi.get_active_conductors(60) == []
    with pytest.raises(exception.NoValidHost):
        rpc.get_transport().call("doomed", "get_boot_device", {}, {},
                                 "1.0")
    rpc.reset()


def test_a_start_that_fails_before_registering_leaves_the_party(
        database, config, monkeypatch):
    # The party (and the leader's jobs, in a thread of their own) starts
    # first; a start that fails any later must not leave a leader behind.
    from ironic.common import exception
    ifx.configure_test_drivers(config)
    config(rpc_transport="none", host="doomed")
    rpc.reset()
    hash_ring.reset()
    service = base_manager.ConductorService()

    def broken(*args, **kwargs):
        raise exception.IronicException("database went away")

    monkeypatch.setattr(service, "_register", broken)
    with pytest.raises(exception.IronicException, match="went away"):
        service.start()
    assert not service.party.leader
    assert not [t for t in threading.enumerate()
                if t.name.startswith("leader-") and t.is_alive()]
    rpc.reset()


def test_a_stopping_conductor_says_what_it_waits_for(svc, caplog):
    release = threading.Event()
    svc.pool.spawn(release.wait, 5)
    caplog.set_level("INFO", logger="ironic.conductor.base_manager")
    try:
        assert not svc.stop(timeout=0)
    finally:
        release.set()
    said = caplog.text
    assert "waiting up to 0 s ([conductor]graceful_shutdown_timeout) " \
           "for 1 running workers" in said
    assert "1 workers still running" in said


def test_a_process_with_stuck_workers_exits_without_them(svc, monkeypatch):
    # futurist joins its threads at exit: the process must not wait for a
    # call stuck on a BMC.
    exits = []
    monkeypatch.setattr(base_manager.os, "_exit", exits.append)
    monkeypatch.setattr(base_manager.logging, "shutdown", lambda: None)
    base_manager.exit_if_workers_stuck(svc)
    assert exits == []
    release = threading.Event()
    svc.pool.spawn(release.wait, 5)
    try:
        base_manager.exit_if_workers_stuck(svc, 3)
    finally:
        release.set()
    assert exits == [3]


def test_a_stopped_process_does_not_wait_for_a_blocked_thread(
        monkeypatch, caplog):
    # The interpreter joins non-daemon threads at exit; one blocked in a
    # library must not keep a stopped conductor alive.
    exits = []
    monkeypatch.setattr(base_manager.os, "_exit", exits.append)
    monkeypatch.setattr(base_manager.logging, "shutdown", lambda: None)
    blocked = threading.Event()
    finishing = threading.Thread(target=lambda: None, name="finishing")
    stuck = threading.Thread(target=blocked.wait, name="stuck-in-io")
    finishing.start()
    stuck.start()
    try:
        base_manager.exit_if_threads_linger(5, grace=0.2)
    finally:
        blocked.set()
        stuck.join()
    assert exits == [5]
    assert "stuck-in-io" in caplog.text
    assert "finishing" not in caplog.text


def test_dead_locks_wait_for_heartbeats_after_a_database_outage(
        svc, config):
    from oslo_db import exception as db_exc

    config("conductor", heartbeat_timeout=30)
    node = builders.make_node(provision_state=states.ACTIVE)
    db_api.get_instance().reserve_node("gone-conductor", node.id)

    def away(online=True):
        raise db_exc.DBConnectionError("database away")

    real = svc.conductor
    svc.conductor = types.SimpleNamespace(touch=away)
    svc._heartbeat()
    # Every peer's heartbeat is old while the database is away: none of
    # them is judged dead for it.
    assert takeover.release_dead_locks(svc) == []
    svc.conductor = real
    svc._heartbeat()
    assert takeover.release_dead_locks(svc) == []
    assert Node.get(node.id).reservation == "gone-conductor"
    # heartbeat_timeout after the database came back, the peers had
    # their chance to heartbeat.
    svc._beating_again_at -= 31
    assert takeover.release_dead_locks(svc) == [node.uuid]
