"""Conductor registration, liveness and the node lock compare-and-swap."""

import datetime
import sqlite3
import threading

import pytest
import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironic.common import exception
from ironic.db import api as db_api
from ironic.db.sqlalchemy import api as sqla_api
from ironic.db.sqlalchemy import engine, models
from ironic.tests import builders


@pytest.fixture
def dbapi(database):
    return db_api.get_instance()


@pytest.fixture(params=["returning", "transaction"])
def lock_dbapi(request, dbapi, monkeypatch):
    """Both ways of writing a lock: one ``UPDATE ... RETURNING`` (sqlite,
    PostgreSQL) and a transaction that reads the row back (MariaDB)."""
    if request.param == "transaction":
        monkeypatch.setattr(engine, "update_returning", lambda: False)
    return dbapi


def _node(dbapi, **kw):
    return builders.make_node(**kw)


def _age(hostname, seconds):
    old = datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None) - datetime.timedelta(seconds=seconds)
    with sqla_api._writer() as s:
        s.execute(sa.update(models.Conductor).where(
            models.Conductor.hostname == hostname).values(updated_at=old))


def test_register_twice_is_refused_while_alive(dbapi):
    dbapi.register_conductor({"hostname": "h1", "drivers": ["ipmi"]})
    with pytest.raises(exception.ConductorAlreadyRegistered):
        dbapi.register_conductor({"hostname": "h1", "drivers": []})
    row = dbapi.register_conductor({"hostname": "h1", "drivers": ["x"]},
                                   update_existing=True)
    assert row.drivers == ["x"]


def test_unregistered_conductor_may_register_again(dbapi):
    dbapi.register_conductor({"hostname": "h1", "drivers": ["ipmi"]})
    dbapi.unregister_conductor("h1")
    assert dbapi.get_active_conductors(60) == []
    dbapi.register_conductor({"hostname": "h1", "drivers": ["ipmi"],
                              "conductor_group": "g"})
    assert [c.conductor_group for c in dbapi.get_active_conductors(60)] \
        == ["g"]


def test_heartbeat_keeps_a_conductor_alive(dbapi):
    dbapi.register_conductor({"hostname": "h1", "drivers": []})
    _age("h1", 120)
    assert dbapi.get_offline_conductors(60) == ["h1"]
    dbapi.touch_conductor("h1")
    assert dbapi.get_offline_conductors(60) == []
    with pytest.raises(exception.ConductorNotFound):
        dbapi.touch_conductor("nope")


def test_reserve_and_release(lock_dbapi):
    dbapi = lock_dbapi
    node = _node(dbapi)
    assert dbapi.reserve_node("h1", node.id).reservation == "h1"
    with pytest.raises(exception.NodeLocked) as err:
        dbapi.reserve_node("h2", node.id)
    assert "h1" in str(err.value)
    with pytest.raises(exception.NodeLocked):
        dbapi.release_node("h2", node.id)
    dbapi.release_node("h1", node.id)
    with pytest.raises(exception.NodeNotLocked):
        dbapi.release_node("h1", node.id)
    with pytest.raises(exception.NodeNotFound):
        dbapi.reserve_node("h1", 999999)


def test_locked_update_is_refused_once_the_lease_is_broken(lock_dbapi):
    dbapi = lock_dbapi
    node = _node(dbapi)
    dbapi.reserve_node("h1", node.uuid)
    row = dbapi.update_node_locked(node.id, "h1", {
        "last_error": "x", "driver_internal_info": {"step": [1, "a"]}})
    assert (row.last_error, row.driver_internal_info, row.reservation) == (
        "x", {"step": [1, "a"]}, "h1")
    dbapi.clear_node_reservations_for_conductor("h1")
    dbapi.reserve_node("h2", node.id)
    with pytest.raises(exception.NodeLocked):
        dbapi.update_node_locked(node.id, "h1", {"last_error": "late"})
    assert dbapi.get_node_by_id(node.id).last_error == "x"
    with pytest.raises(exception.NodeNotFound):
        dbapi.update_node_locked(999999, "h1", {"last_error": "x"})


def test_sqlite_lock_writes_are_single_statements(dbapi, database):
    # No BEGIN around them: the write lock is held only while sqlite runs
    # the one statement, never while Python waits between statements.
    node = _node(dbapi)
    statements = []

    def record(conn, cursor, statement, *args):
        statements.append(statement.split()[0])
    eng = engine.get_engine()
    sa.event.listen(eng, "before_cursor_execute", record)
    try:
        dbapi.reserve_node("h1", node.id)
        dbapi.update_node_locked(node.id, "h1", {"last_error": "x"})
        dbapi.release_node("h1", node.id)
    finally:
        sa.event.remove(eng, "before_cursor_execute", record)
    assert statements == ["UPDATE", "UPDATE", "UPDATE"]
    other = sqlite3.connect(database, timeout=0, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    other.execute("ROLLBACK")
    other.close()


def test_dead_conductor_locks_are_released(dbapi):
    dbapi.register_conductor({"hostname": "alive", "drivers": []})
    dbapi.register_conductor({"hostname": "dead", "drivers": []})
    _age("dead", 300)
    n1, n2, n3 = _node(dbapi), _node(dbapi), _node(dbapi)
    dbapi.reserve_node("alive", n1.id)
    dbapi.reserve_node("dead", n2.id)
    dbapi.reserve_node("vanished", n3.id)
    released = dbapi.release_dead_conductor_locks(60)
    assert sorted(released) == sorted([n2.uuid, n3.uuid])
    assert dbapi.get_node_by_id(n1.id).reservation == "alive"
    assert dbapi.get_node_by_id(n2.id).reservation is None


def test_exactly_one_of_many_threads_gets_the_lock(dbapi):
    """Real threads, real sqlite file: the UPDATE is the only arbiter."""
    node = _node(dbapi)
    winners, losers = [], []
    barrier = threading.Barrier(12)

    def grab(i):
        barrier.wait()
        try:
            dbapi.reserve_node(f"host{i}", node.id)
            winners.append(i)
        except exception.NodeLocked:
            losers.append(i)

    threads = [threading.Thread(target=grab, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(winners) == 1 and len(losers) == 11
    assert dbapi.get_node_by_id(node.id).reservation == f"host{winners[0]}"


def test_hardware_interfaces_of_live_conductors(dbapi):
    row = dbapi.register_conductor({"hostname": "h1", "drivers": ["ipmi"]})
    dbapi.register_conductor_hardware_interfaces(row.id, [
        {"hardware_type": "ipmi", "interface_type": "power",
         "interface_name": "ipmitool", "default": True}])
    got = dbapi.list_hardware_type_interfaces(["ipmi"], 60)
    assert got == [{"hardware_type": "ipmi", "interface_type": "power",
                    "interface_name": "ipmitool", "default": True}]
    dbapi.unregister_conductor("h1")
    assert dbapi.list_hardware_type_interfaces(["ipmi"], 60) == []


class _DeadlockOnce:
    """Stands in for a writer() whose first transaction the database
    aborts as a deadlock victim, as InnoDB does to one of two conductors
    replacing their rows at the same time."""

    def __init__(self, writer):
        self.writer = writer
        self.calls = 0

    def __call__(self):
        self.calls += 1
        if self.calls == 1:
            raise db_exc.DBDeadlock()
        return self.writer()


def test_hardware_interfaces_are_written_again_after_a_deadlock(
        dbapi, monkeypatch):
    row = dbapi.register_conductor({"hostname": "h1", "drivers": ["ipmi"]})
    flaky = _DeadlockOnce(sqla_api._writer)
    monkeypatch.setattr(dbapi, "_writer", flaky)
    dbapi.register_conductor_hardware_interfaces(row.id, [
        {"hardware_type": "ipmi", "interface_type": "power",
         "interface_name": "ipmitool", "default": True}])
    assert flaky.calls == 2
    assert dbapi.list_conductor_hardware_interfaces(row.id) == [
        {"hardware_type": "ipmi", "interface_type": "power",
         "interface_name": "ipmitool", "default": True}]


def test_node_creation_is_retried_after_a_deadlock(dbapi, monkeypatch):
    flaky = _DeadlockOnce(sqla_api._writer)
    monkeypatch.setattr(dbapi, "_writer", flaky)
    node = dbapi.create_node({"driver": "fake-hardware"}, traits=["CUSTOM_A"])
    assert flaky.calls == 2
    assert dbapi.get_node_by_uuid(node.uuid).id == node.id


def test_firmware_versions_are_recorded_again_after_a_deadlock(
        dbapi, monkeypatch):
    # Two nodes recording their first firmware rows at once deadlock on
    # InnoDB's gap locks; the loser must not lose its record.
    node = _node(dbapi)
    flaky = _DeadlockOnce(engine.writer)
    monkeypatch.setattr(engine, "writer", flaky)
    dbapi.set_firmware_components(node.id, [
        {"component": "bios", "initial_version": "1.0",
         "current_version": "1.0"}])
    assert flaky.calls == 2
    assert [c.component for c in dbapi.get_firmware_components(node.id)] \
        == ["bios"]


def test_a_deadlock_that_persists_is_raised(dbapi, monkeypatch):
    def always():
        raise db_exc.DBDeadlock()
    monkeypatch.setattr(dbapi, "_writer", always)
    monkeypatch.setattr("oslo_db.api.time.sleep", lambda _s: None)
    with pytest.raises(db_exc.DBDeadlock):
        dbapi.unregister_conductor("h1")


def test_a_leaving_conductor_keeps_its_locks_while_it_heartbeats(dbapi):
    dbapi.register_conductor({"hostname": "h1", "drivers": ["ipmi"]})
    node = _node(dbapi)
    dbapi.reserve_node("h1", node.id)
    dbapi.touch_conductor("h1", online=False)
    assert dbapi.get_active_conductors(60) == []
    assert dbapi.release_dead_conductor_locks(60) == []
    assert dbapi.get_node_by_id(node.id).reservation == "h1"
    _age("h1", 120)
    assert dbapi.release_dead_conductor_locks(60) == [node.uuid]
    dbapi.touch_conductor("h1")
    assert [c.hostname for c in dbapi.get_active_conductors(60)] == ["h1"]


def test_every_deadlock_retry_mark_really_retries():
    # oslo.db's retry_on_deadlock is only a mark, read by its DBAPI proxy
    # that this project does not use: a method marked with it alone would
    # never be retried. engine.retry_on_deadlock wraps for real.
    inert = [name for name in dir(sqla_api.Connection)
             if getattr(getattr(sqla_api.Connection, name), "__dict__", {})
             .get("enable_retry_on_deadlock")
             and not hasattr(getattr(sqla_api.Connection, name),
                             "__wrapped__")]
    assert inert == [], f"use engine.retry_on_deadlock on {inert}"


def test_locked_update_to_a_taken_name_is_a_conflict(lock_dbapi):
    dbapi = lock_dbapi
    _node(dbapi, name="taken")
    node = _node(dbapi)
    dbapi.reserve_node("h1", node.id)
    with pytest.raises(exception.DuplicateName):
        dbapi.update_node_locked(node.id, "h1", {"name": "taken"})
    row = dbapi.get_node_by_id(node.id)
    assert (row.name, row.reservation) == (None, "h1")


def _allocation(dbapi, **kw):
    return dbapi.create_allocation(dict({"resource_class": "rc",
                                         "state": "allocating"}, **kw))


def test_a_node_and_its_allocation_are_written_together(dbapi):
    node = _node(dbapi)
    alloc = _allocation(dbapi)
    dbapi.reserve_node("h1", node.id)
    row = dbapi.update_node_locked_and_allocation(
        node.id, "h1", {"instance_uuid": alloc.uuid,
                        "allocation_id": alloc.id},
        alloc.id, {"state": "active", "node_id": node.id})
    assert (row.instance_uuid, row.allocation_id, row.reservation) == (
        alloc.uuid, alloc.id, "h1")
    got = dbapi.get_allocation(alloc.id, column="id")
    assert (got.state, got.node_id) == ("active", node.id)


@pytest.mark.parametrize("failure", ["lock moved", "allocation deleted",
                                     "instance taken"])
def test_neither_row_changes_when_one_write_fails(dbapi, failure):
    node = _node(dbapi)
    other = _node(dbapi, instance_uuid="0a1b2c3d-0000-4000-8000-000000000001")
    alloc = _allocation(dbapi)
    dbapi.reserve_node("h1", node.id)
    instance = alloc.uuid
    expected = exception.NodeLocked
    if failure == "lock moved":
        dbapi.clear_node_reservations_for_conductor("h1")
        dbapi.reserve_node("h2", node.id)
    elif failure == "allocation deleted":
        dbapi.destroy_allocation(alloc.id)
        expected = exception.AllocationNotFound
    else:
        instance = other.instance_uuid
        expected = exception.InstanceAssociated
    with pytest.raises(expected):
        dbapi.update_node_locked_and_allocation(
            node.id, "h1", {"instance_uuid": instance,
                            "allocation_id": alloc.id},
            alloc.id, {"state": "active", "node_id": node.id})
    row = dbapi.get_node_by_id(node.id)
    assert (row.instance_uuid, row.allocation_id) == (None, None)
    if failure != "allocation deleted":
        got = dbapi.get_allocation(alloc.id, column="id")
        assert (got.state, got.node_id) == ("allocating", None)


def test_update_if_unreserved_is_a_compare_and_swap(dbapi):
    """The idle heartbeat's write: applies only to an unlocked node whose
    guarded columns are as read; NULLs compare equal."""
    from ironic.objects.node import Node

    node = _node(dbapi, driver_internal_info={"k": "Value"},
                 provision_state="manageable")
    guard = ("driver_internal_info", "provision_state", "deploy_interface")

    def record(read, url):
        return read.update_if_unreserved(
            {"driver_internal_info": dict(read.driver_internal_info,
                                          agent_url=url)}, guard)

    read = Node.get(node.id)
    before = read.updated_at
    assert read.deploy_interface is None
    assert record(read, "a")
    back = Node.get(node.id)
    assert back.driver_internal_info == {"k": "Value", "agent_url": "a"}
    assert read.driver_internal_info == back.driver_internal_info
    assert read.updated_at == back.updated_at
    assert before is None or back.updated_at >= before

    read = Node.get(node.id)
    dbapi.reserve_node("c1", node.id)
    assert not record(read, "b")
    dbapi.release_node("c1", node.id)
    dbapi.update_node(node.id, {"driver_internal_info": {"k": "value"}})
    assert not record(read, "b")  # changed since read
    read = Node.get(node.id)
    dbapi.update_node(node.id, {"provision_state": "clean wait"})
    assert not record(read, "b")
    assert read.driver_internal_info == {"k": "value"}
    assert Node.get(node.id).driver_internal_info == {"k": "value"}
