"""The engine and sessions: oslo.db's enginefacade, tuned for sqlite.

Every path into the database (``reader()``, ``writer()``, ``get_engine()``)
configures the engine first, so no connection is handed out before the
sqlite settings are in place.
"""

from __future__ import annotations

import collections
import contextlib
import os
import threading
from typing import Any, Iterator

import sqlalchemy as sa
from oslo_db import api as oslo_db_api
from oslo_db.sqlalchemy import enginefacade
from sqlalchemy import event, orm

_facade = enginefacade.transaction_context()
_lock = threading.Lock()
_configured = False
_is_sqlite = False
_readers: SqliteReaders | None = None
_WRITE = "ironic_sqlite_write"
_ONE_STATEMENT = "ironic_single_statement"


class _Ctx:
    """enginefacade wants a context object to hang the session on."""


def retry_on_deadlock(func):
    """Run ``func`` again when the database aborts its transaction as a
    deadlock victim (InnoDB gap locks, PostgreSQL lock cycles).

    oslo.db's own ``retry_on_deadlock`` only marks a function for its
    ``DBAPI`` proxy, which this project does not use, so the mark alone
    retried nothing. ``func`` must open its own transaction (every query
    method does: each ``reader()``/``writer()`` is a new one), so running it
    again repeats the whole unit of work.
    """
    return oslo_db_api.wrap_db_retry(
        max_retries=5, retry_interval=0.1, max_retry_interval=2,
        retry_on_deadlock=True)(func)


def reader():
    ensure_configured()
    return _facade.reader.using(_Ctx())


@contextlib.contextmanager
def reading() -> Iterator[sa.Connection]:
    """A pooled connection for one read-only SQL statement.

    A single statement reads one consistent snapshot on every backend, so
    it needs neither a Session nor the enginefacade's transaction scope,
    which cost three times the query itself on a single-node GET.
    """
    ensure_configured()
    with _facade.writer.get_engine().connect() as conn:
        yield conn.execution_options(**{_ONE_STATEMENT: True})


@contextlib.contextmanager
def writing() -> Iterator[sa.Connection]:
    """A pooled connection for one write statement, committed at once.

    On sqlite the statement runs in autocommit mode and holds the write
    lock for itself alone. A ``writer()`` transaction holds it across every
    statement, and on a busy process each of them ends with a wait for the
    interpreter lock while the other writers sleep in the busy handler.
    (A statement with RETURNING ends when its row has been read, so it
    still holds the lock across one such wait.)
    """
    ensure_configured()
    with _facade.writer.get_engine().connect() as conn:
        yield conn.execution_options(**{_ONE_STATEMENT: True})
        conn.commit()


def update_returning() -> bool:
    """Whether ``UPDATE ... RETURNING`` works here (sqlite, PostgreSQL; not
    MariaDB/MySQL)."""
    return get_engine().dialect.update_returning


@contextlib.contextmanager
def writer() -> Iterator[orm.Session]:
    ensure_configured()
    with _facade.writer.using(_Ctx()) as session:
        if _is_sqlite:
            # Procure the connection marked, so _sqlite_begin takes the
            # write lock up front (see there).
            session.connection(execution_options={_WRITE: True})
        yield session


def _sqlite_connect(dbapi_conn, _record) -> None:
    cur = dbapi_conn.cursor()
    # First, so that the statements after it wait for a busy database
    # instead of failing at once.
    cur.execute("PRAGMA busy_timeout=30000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def _sqlite_begin(conn: sa.Connection) -> None:
    # oslo.db emits a deferred BEGIN. A deferred transaction that reads and
    # then writes must upgrade its lock, and sqlite answers "database is
    # locked" at once (no busy wait, that could deadlock) when another
    # writer got there first. Writers therefore BEGIN IMMEDIATE and queue
    # on the busy timeout; readers stay deferred and never block (WAL).
    if "in_transaction" in conn.info:
        return
    options = conn.get_execution_options()
    if options.get(_WRITE):
        conn.exec_driver_sql("BEGIN IMMEDIATE")
        conn.info["in_transaction"] = True  # oslo.db's marker: no BEGIN
    elif options.get(_ONE_STATEMENT):
        # One statement in autocommit mode is its own transaction (a write
        # takes the lock as BEGIN IMMEDIATE would); a BEGIN and the end
        # after it would double the round trips.
        conn.info["in_transaction"] = True


def _pool_sqlite_file(engine: sa.Engine) -> None:
    # oslo.db gives sqlite files a NullPool: every session opened a new
    # connection (half the CPU of a small query) and, as the last one
    # closed, sqlite checkpointed the WAL with an fsync, tens of ms per
    # request. A QueuePool keeps connections open; SQLAlchemy already opens
    # file databases with check_same_thread=False for exactly this pool.
    global _readers
    old = engine.pool
    if isinstance(old, sa.pool.NullPool):
        engine.pool = sa.pool.QueuePool(
            old._creator, pool_size=5, max_overflow=-1,
            _dispatch=old.dispatch, dialect=old._dialect)
        # A file, not a memory database living in its one connection.
        _readers = SqliteReaders(engine)


class SqliteReaders:
    """Idle DBAPI connections to a sqlite file, for single SELECTs.

    Checking a connection out of SQLAlchemy's pool and back in (its events,
    oslo.db's fork guard, the reset on return) took longer than reading a
    node on sqlite, and walked some thirty functions, cold in the cache on
    every request of a busy process. A sqlite connection that has run one
    SELECT to its end in autocommit mode holds no lock and no snapshot, so
    it can go back to this stack as it is. Connections are made by the
    engine's pool (with their PRAGMAs) and detached from it.

    Not for other databases: a MySQL or PostgreSQL connection keeps the
    transaction, and so the snapshot, its SELECT began, until the pool's
    reset on return ends it.
    """

    #: Idle connections kept; more are closed as they come back.
    MAX_IDLE = 16

    def __init__(self, engine: sa.Engine):
        self.engine = engine
        # Last in, first out: the most recently used connection has the
        # warmest page cache. deque's append and pop are atomic.
        self._idle: collections.deque = collections.deque()

    def acquire(self) -> Any:
        try:
            return self._idle.pop()
        except IndexError:
            proxy = self.engine.raw_connection()
            connection = proxy.dbapi_connection
            proxy.detach()
            return connection

    def release(self, connection: Any) -> None:
        if connection.in_transaction or len(self._idle) >= self.MAX_IDLE:
            # Nothing here opens a transaction; one left open would keep
            # its snapshot, so the connection is not reused.
            connection.close()
        else:
            self._idle.append(connection)

    def discard(self, connection: Any) -> None:
        connection.close()

    def close(self) -> None:
        while self._idle:
            self._idle.pop().close()

    def abandon(self) -> None:
        """In a forked child: never use nor close the parent's
        connections (closing one could checkpoint the parent's WAL)."""
        _ABANDONED.extend(self._idle)
        self._idle = collections.deque()


_ABANDONED: list = []


class PooledReaders:
    """DBAPI connections for single SELECTs from the engine's own pool."""

    def __init__(self, engine: sa.Engine):
        self.engine = engine

    def acquire(self) -> Any:
        return self.engine.raw_connection()

    def release(self, connection: Any) -> None:
        connection.close()

    def discard(self, connection: Any) -> None:
        connection.invalidate()
        connection.close()


def readers_for(engine: sa.Engine) -> SqliteReaders | PooledReaders:
    """Where single SELECTs on ``engine`` get their DBAPI connection."""
    readers = _readers
    if readers is not None and readers.engine is engine:
        return readers
    return PooledReaders(engine)


def _abandon_readers_in_child() -> None:
    if _readers is not None:
        _readers.abandon()


os.register_at_fork(after_in_child=_abandon_readers_in_child)


def _tune_sqlite(engine: sa.Engine) -> None:
    event.listen(engine, "connect", _sqlite_connect)
    # Ours must run before oslo.db's deferred BEGIN (insert=True is not
    # honoured for engine events), so re-add oslo.db's after it.
    theirs = list(engine.dispatch.begin)
    for fn in theirs:
        event.remove(engine, "begin", fn)
    event.listen(engine, "begin", _sqlite_begin)
    for fn in theirs:
        event.listen(engine, "begin", fn)
    # oslo.db opened a test connection before the listeners existed.
    engine.dispose()
    _pool_sqlite_file(engine)
    # WAL lets readers run while the API or a conductor writes. It is a
    # property of the file, so once is enough; outside any transaction.
    raw = engine.raw_connection()
    try:
        raw.cursor().execute("PRAGMA journal_mode=WAL")
    finally:
        raw.close()


def ensure_configured() -> None:
    global _configured, _is_sqlite
    if _configured:
        return
    with _lock:
        if _configured:
            return
        # thread_checkin makes every connection check-in time.sleep(0) for
        # eventlet's sake; we run no eventlet, and on a busy host that
        # yield alone cost milliseconds per request.
        #
        # max_retries=0: oslo.db would otherwise retry the first connection
        # here, [database]max_retries times in an uninterruptible sleep.
        # The API answers 503 while the database is away instead, and a
        # conductor waits for it with those same retries, interruptibly
        # (ironic.conductor.dependencies).
        _facade.configure(sqlite_fk=True, thread_checkin=False,
                          max_retries=0)
        engine = _facade.writer.get_engine()
        _is_sqlite = engine.dialect.name == "sqlite"
        if _is_sqlite:
            _tune_sqlite(engine)
        _configured = True


def get_engine() -> sa.Engine:
    ensure_configured()
    return _facade.writer.get_engine()


def dispose() -> None:
    """Forget the engine (tests switch databases)."""
    global _configured, _facade, _readers
    with _lock:
        if _configured:
            _facade.writer.get_engine().dispose()
        if _readers is not None:
            _readers.close()
            _readers = None
        _facade = enginefacade.transaction_context()
        _configured = False
