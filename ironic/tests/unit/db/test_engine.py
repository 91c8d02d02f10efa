"""The engine on sqlite: pragmas, write locks, pooling, in-memory use."""

import sqlite3

import sqlalchemy as sa

from ironic.db import migration
from ironic.db.sqlalchemy import api as sqla_api
from ironic.db.sqlalchemy import engine


def test_engine_uses_configured_sqlite_pragmas(database):
    # Sessions opened before anyone asked for the engine must get them too.
    sqla_api.dispose()
    with engine.reader() as session:
        conn = session.connection()
        mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
        fks = conn.exec_driver_sql("PRAGMA foreign_keys").scalar()
        busy = conn.exec_driver_sql("PRAGMA busy_timeout").scalar()
    assert (mode, fks, busy) == ("wal", 1, 30000)


def _other_writer_blocked(path) -> bool:
    """Whether a second connection could not take the write lock now."""
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as e:
        assert "locked" in str(e)
        return True
    finally:
        other.close()


def test_sqlite_writers_hold_the_write_lock_from_the_start(database):
    # A deferred writer that reads first cannot upgrade once another writer
    # committed ("database is locked" without waiting); writers must queue
    # on the busy timeout from their first statement instead.
    with engine.writer():
        assert _other_writer_blocked(database)
    assert not _other_writer_blocked(database)


def test_sqlite_readers_never_take_the_write_lock(database):
    with engine.reader() as session:
        session.execute(sa.text("SELECT count(*) FROM nodes")).scalar()
        assert not _other_writer_blocked(database)


def test_single_reads_open_no_transaction(database):
    # One statement in autocommit mode: no BEGIN, no lock held after it,
    # and the connection goes back to the pool ready for a writer.
    statements = []

    def record(conn, cursor, statement, *args):
        statements.append(statement)
    eng = engine.get_engine()
    sa.event.listen(eng, "before_cursor_execute", record)
    try:
        with engine.reading() as conn:
            assert conn.execute(sa.text("SELECT 1")).scalar() == 1
            assert not conn.connection.dbapi_connection.in_transaction
    finally:
        sa.event.remove(eng, "before_cursor_execute", record)
    assert statements == ["SELECT 1"]
    with engine.writer():
        assert _other_writer_blocked(database)
    assert not _other_writer_blocked(database)


def test_sqlite_file_connections_are_pooled(database):
    with engine.reader() as session:
        first = session.connection().connection.dbapi_connection
    with engine.writer() as session:
        second = session.connection().connection.dbapi_connection
    assert first is second


def test_in_memory_sqlite_works(config):
    sqla_api.dispose()
    config("database", connection="sqlite://")
    try:
        migration.upgrade("head")
        db = sqla_api.get_connection()
        node = db.create_node({"driver": "fake-hardware", "name": "m"})
        assert db.get_node_by_name("m").id == node.id
    finally:
        sqla_api.dispose()
