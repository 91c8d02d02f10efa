"""PreparedSelect against SQLAlchemy's own execution of the same SELECT."""

import datetime
import os

import pytest
import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironic.db import api as db_api
from ironic.db.sqlalchemy import api as sqla_api
from ironic.db.sqlalchemy import engine, models, prepared
from ironic.tests import fixtures as ifx


def _node_and_traits() -> sa.Select:
    node, trait = models.Node.__table__, models.NodeTrait.__table__
    return (sa.select(node, trait.c.trait.label("node_trait"))
            .select_from(node.outerjoin(trait, trait.c.node_id == node.c.id))
            .where(node.c.uuid == sa.bindparam("value"))
            .order_by(trait.c.trait))


def _through_sqlalchemy(statement, **params) -> list[tuple]:
    with engine.get_engine().connect() as conn:
        return [tuple(r) for r in conn.execute(statement, params)]


@pytest.fixture
def node(database):
    dbapi = db_api.get_instance()
    created = dbapi.create_node(
        {"driver": "fake-hardware", "name": "prep-1", "maintenance": True,
         "driver_info": {"ipmi_address": "10.0.0.1", "n": [1, None]},
         "properties": {"cpus": 4},
         "provision_updated_at": datetime.datetime(2026, 1, 2, 3, 4, 5,
                                                   678901)},
        ["CUSTOM_B", "CUSTOM_A"])
    return created


def test_rows_equal_sqlalchemy_results_value_for_value(node):
    select = prepared.PreparedSelect(_node_and_traits())
    rows = select.all(value=node.uuid)
    assert [tuple(r) for r in rows] == _through_sqlalchemy(
        _node_and_traits(), value=node.uuid)
    first = rows[0]
    # Processed like SQLAlchemy does: JSON, datetimes and booleans.
    assert first.driver_info == {"ipmi_address": "10.0.0.1", "n": [1, None]}
    assert first.maintenance is True
    assert first.provision_updated_at == datetime.datetime(
        2026, 1, 2, 3, 4, 5, 678901)
    assert [r.node_trait for r in rows] == ["CUSTOM_A", "CUSTOM_B"]
    assert select.first(value="no-such-node") is None


def test_a_new_engine_gets_a_new_plan(node, tmp_path, config):
    select = prepared.PreparedSelect(_node_and_traits())
    assert select.first(value=node.uuid).name == "prep-1"
    (tmp_path / "other").mkdir()
    other = ifx.fresh_database(str(tmp_path / "other"))
    sqla_api.dispose()
    config("database", connection=f"sqlite:///{other}")
    assert select.first(value=node.uuid) is None


def test_a_dbapi_error_falls_back_to_sqlalchemy_and_its_errors(node):
    select = prepared.PreparedSelect(
        sa.select(sa.column("x")).select_from(sa.table("no_such_table"))
        .where(sa.column("x") == sa.bindparam("value")))
    # The driver's error is not what callers see: oslo.db's translation of
    # it, from running the statement again through SQLAlchemy.
    with pytest.raises(db_exc.DBNonExistentTable):
        select.all(value=1)
    # The connection the error came from was dropped; the pool still works.
    assert prepared.PreparedSelect(_node_and_traits()).first(
        value=node.uuid).name == "prep-1"


def test_fetched_rows_are_processed_on_demand_and_stamped(node):
    select = prepared.PreparedSelect(_node_and_traits())
    first = select.fetch(value=node.uuid)
    again = select.fetch(value=node.uuid)
    assert len(first) == 2  # one row per trait
    assert first.value("uuid") == node.uuid
    assert first.value("driver_info") == first.raw[0][
        list(first.rows()[0]._fields).index("driver_info")]
    assert isinstance(first.value("driver_info"), str)  # as stored
    assert first.rows() == select.all(value=node.uuid)
    assert first.stamp() == again.stamp()

    db_api.get_instance().update_node(node.id, {"extra": {"k": "v"}})
    changed = select.fetch(value=node.uuid)
    assert changed.stamp() != first.stamp()
    db_api.get_instance().set_node_traits(node.id, ["CUSTOM_A"])
    assert select.fetch(value=node.uuid).stamp() != changed.stamp()


def test_rows_read_through_sqlalchemy_have_no_stamp(node, monkeypatch):
    select = prepared.PreparedSelect(_node_and_traits())
    plan = select._current_plan()
    # Any DBAPI error sends the read through SQLAlchemy.
    monkeypatch.setattr(select, "_plan", plan._replace(
        binds=plan.binds._replace(sql="SELECT nonsense")))
    fetched = select.fetch(value=node.uuid)
    assert fetched.stamp() is None
    assert fetched.value("uuid") == node.uuid
    assert fetched.rows()[0].name == "prep-1"


def test_a_value_that_does_not_pickle_gives_no_stamp(node):
    fetched = prepared.PreparedSelect(_node_and_traits()).fetch(
        value=node.uuid)
    fetched.raw[0] = fetched.raw[0] + (lambda: None,)
    assert fetched.stamp() is None
    assert fetched.stamp() is None
    assert fetched.value("uuid") == node.uuid


def test_node_reads_use_it_and_raise_not_found(node):
    dbapi = db_api.get_instance()
    row, traits = dbapi.get_node_with_traits("uuid", node.uuid)
    assert (row.id, traits) == (node.id, ["CUSTOM_A", "CUSTOM_B"])
    assert dbapi.get_node_by_name("prep-1").uuid == node.uuid
    with pytest.raises(Exception) as error:
        dbapi.get_node_by_name("prep-2")
    assert type(error.value).__name__ == "NodeNotFound"


def _readers() -> engine.SqliteReaders:
    readers = engine.readers_for(engine.get_engine())
    assert isinstance(readers, engine.SqliteReaders)
    return readers


def test_a_sqlite_file_reuses_the_last_connection_put_back(node):
    readers = _readers()
    select = prepared.PreparedSelect(_node_and_traits())
    select.first(value=node.uuid)
    first = readers.acquire()
    second = readers.acquire()
    assert first is not second
    readers.release(first)
    readers.release(second)
    # Last in, first out; and a read leaves it idle again.
    assert readers.acquire() is second
    readers.release(second)
    select.first(value=node.uuid)
    assert readers.acquire() is second


def test_reads_see_every_committed_write_at_once(node):
    select = prepared.PreparedSelect(_node_and_traits())
    dbapi = db_api.get_instance()
    for n in range(3):
        # Each write commits on a connection of the engine's pool; the idle
        # connection read before must not answer from an older snapshot.
        dbapi.update_node(node.id, {"description": f"v{n}"})
        assert select.first(value=node.uuid).description == f"v{n}"


def test_a_connection_left_in_a_transaction_is_not_reused(node):
    readers = _readers()
    connection = readers.acquire()
    connection.execute("BEGIN")
    connection.execute("SELECT 1 FROM nodes")
    readers.release(connection)
    assert readers.acquire() is not connection
    with pytest.raises(Exception, match="closed"):
        connection.execute("SELECT 1")


def test_idle_connections_are_bounded_and_closed_with_the_engine(node):
    readers = _readers()
    taken = [readers.acquire() for _ in range(readers.MAX_IDLE + 2)]
    for connection in taken:
        readers.release(connection)
    kept = [c for c in taken if not _closed(c)]
    assert len(kept) == readers.MAX_IDLE
    sqla_api.dispose()
    assert all(_closed(c) for c in kept)
    assert engine.readers_for(engine.get_engine()) is not readers


def test_a_forked_child_leaves_the_parents_connections_alone(node):
    readers = _readers()
    select = prepared.PreparedSelect(_node_and_traits())
    select.first(value=node.uuid)
    parents = readers.acquire()
    readers.release(parents)
    pid = os.fork()
    if pid == 0:
        # The child reads on a connection of its own; the parent's is
        # neither reused nor closed (the parent holds the file's locks).
        ok = False
        try:
            ok = (select.first(value=node.uuid).name == "prep-1"
                  and parents in engine._ABANDONED
                  and not _closed(parents))
        finally:
            os._exit(0 if ok else 1)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert readers.acquire() is parents
    assert not _closed(parents)


def test_other_pools_lend_their_own_connections(node):
    pooled = engine.PooledReaders(engine.get_engine())
    connection = pooled.acquire()
    assert connection.execute("SELECT count(*) FROM nodes").fetchone() == (1,)
    pooled.release(connection)


def _closed(connection) -> bool:
    try:
        connection.execute("SELECT 1")
    except Exception:  # noqa: BLE001 - sqlite3.ProgrammingError
        return True
    return False


# -- PreparedWrite -------------------------------------------------------------


def _update() -> sa.Update:
    node = models.Node.__table__
    return (sa.update(node)
            .where(node.c.id == sa.bindparam("_node"),
                   node.c.reservation.is_(None),
                   node.c.driver_internal_info.is_not_distinct_from(
                       sa.bindparam("_was", type_=node.c.driver_internal_info
                                    .type)))
            .values({node.c.driver_internal_info: sa.bindparam(
                         "info", type_=node.c.driver_internal_info.type),
                     node.c.updated_at: sa.bindparam(
                         "at", type_=node.c.updated_at.type)}))


def _stored(node_id) -> tuple:
    """The row's columns as stored (no result processing)."""
    with engine.get_engine().connect() as conn:
        return tuple(conn.exec_driver_sql(
            "SELECT driver_internal_info, updated_at FROM nodes "
            "WHERE id = ?", (node_id,)).one())


def test_a_write_stores_what_sqlalchemy_stores(node):
    at = datetime.datetime(2026, 11, 27, 8, 0, 0, 123456)
    info = {"agent_url": "https://h:9999", "n": [1, None], "é": "ü"}
    with engine.writing() as conn:
        assert conn.execute(_update(), {"_node": node.id, "_was": {},
                                        "info": info, "at": at}
                            ).rowcount == 1
    by_sqlalchemy = _stored(node.id)
    db_api.get_instance().update_node(node.id, {"driver_internal_info": {}})
    assert prepared.PreparedWrite(_update()).execute(
        _node=node.id, _was={}, info=info, at=at) == 1
    assert _stored(node.id) == by_sqlalchemy
    node_now = db_api.get_instance().get_node_by_id(node.id)
    assert node_now.driver_internal_info == info
    assert node_now.updated_at == at


def test_a_write_counts_only_the_rows_it_changed(node):
    write = prepared.PreparedWrite(_update())
    at = datetime.datetime(2026, 11, 27, 8, 0, 0)
    assert write.execute(_node=node.id, _was={"not": "it"}, info={"a": 1},
                         at=at) == 0
    db_api.get_instance().reserve_node("someone", node.id)
    assert write.execute(_node=node.id, _was={}, info={"a": 1}, at=at) == 0
    assert db_api.get_instance().get_node_by_id(
        node.id).driver_internal_info == {}


def test_a_write_is_committed_and_its_connection_reused(node):
    readers = _readers()
    write = prepared.PreparedWrite(_update())
    at = datetime.datetime(2026, 11, 27, 8, 0, 0)
    assert write.execute(_node=node.id, _was={}, info={"a": 1}, at=at) == 1
    used = readers.acquire()
    assert not used.in_transaction
    readers.release(used)
    # Seen by every other connection at once: committed.
    assert prepared.PreparedSelect(_node_and_traits()).first(
        value=node.uuid).driver_internal_info == {"a": 1}
    assert db_api.get_instance().get_node_by_id(
        node.id).driver_internal_info == {"a": 1}


def test_a_failed_write_falls_back_to_sqlalchemy_and_its_errors(node):
    write = prepared.PreparedWrite(
        sa.update(sa.table("no_such_table", sa.column("x")))
        .values(x=sa.bindparam("value")))
    with pytest.raises(db_exc.DBNonExistentTable):
        write.execute(value=1)
    # The pool and the database still work; nothing was left locked.
    assert prepared.PreparedWrite(_update()).execute(
        _node=node.id, _was={}, info={"b": 2},
        at=datetime.datetime(2026, 11, 27)) == 1


def test_a_write_on_another_engine_gets_a_new_plan(node, tmp_path, config):
    write = prepared.PreparedWrite(_update())
    at = datetime.datetime(2026, 11, 27)
    assert write.execute(_node=node.id, _was={}, info={}, at=at) == 1
    (tmp_path / "other").mkdir()
    other = tmp_path / "other" / "ironic.sqlite"
    sqla_api.dispose()
    config("database", connection=f"sqlite:///{other}")
    from ironic.db import migration
    migration.upgrade("head")
    assert write.execute(_node=node.id, _was={}, info={}, at=at) == 0
