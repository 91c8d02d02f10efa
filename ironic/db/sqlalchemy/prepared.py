"""SELECTs (and single writes) compiled once and run straight on a pooled
DBAPI connection.

Node reads are the service's most frequent query: every API call on a node
and every lock. Through SQLAlchemy's ``Connection.execute`` a single-row
read of a node cost 100-150 us on sqlite, of which the database itself took
40: the rest was per-execution work (execution context, events, result
metadata) that is the same every time. A ``PreparedSelect`` does that work
once per engine, and runs the statement with the DBAPI cursor: 40 us.

Values come back exactly as SQLAlchemy gives them: each column's result
processor (JSON decoding, sqlite's datetimes and booleans) is applied. A
DBAPI error invalidates the connection and runs the statement once more
through SQLAlchemy, so errors reach callers translated by oslo.db, and a
dropped connection is replaced, as for every other query.

Connections come from the engine's pool, or on a sqlite file from
``engine.SqliteReaders``, which skips the pool's check-out and check-in.

``fetch`` keeps the rows as the driver returned them, before any
processing (``Fetched``), and can stamp them: two reads whose stamps are
equal returned the same stored values, which lets a caller tell that
something it built from an earlier read is still current without building
it again.
"""

from __future__ import annotations

import collections
import pickle
import threading
from typing import Any, Callable, Generic, NamedTuple, Sequence, TypeVar

import sqlalchemy as sa

from ironic.db.sqlalchemy import engine as db_engine


class _Binds(NamedTuple):
    """How a compiled statement takes its parameters."""

    sql: str
    #: Parameter names in placeholder order; None for named placeholders.
    order: tuple[str, ...] | None
    #: The bind processors (JSON, datetimes) of the parameters that have one.
    processors: dict[str, Callable]

    @classmethod
    def of(cls, compiled: Any, dialect: Any) -> _Binds:
        processors = {}
        for name, param in compiled.binds.items():
            process = param.type.dialect_impl(dialect).bind_processor(dialect)
            if process is not None:
                processors[name] = process
        return cls(compiled.string,
                   tuple(compiled.positiontup) if compiled.positional
                   else None, processors)

    def arguments(self, params: dict) -> dict | tuple:
        """``params`` as the DBAPI cursor takes them."""
        values = dict(params)
        for name, process in self.processors.items():
            values[name] = process(values[name])
        return (values if self.order is None
                else tuple(values[name] for name in self.order))


class _Plan(NamedTuple):
    engine: sa.Engine
    binds: _Binds
    results: tuple[tuple[int, Callable], ...]
    #: The named tuple class of the rows (built per statement).
    row: Any
    #: Position of each column key in a row.
    positions: dict[str, int]
    #: The driver's base exception (DB-API ``Error``).
    dbapi_error: type[Exception]
    readers: db_engine.SqliteReaders | db_engine.PooledReaders


_P = TypeVar("_P", "_Plan", "_WritePlan")


class _PerEngine(Generic[_P]):
    """A statement and its plan, made again for each new engine."""

    def __init__(self, statement: Any):
        self.statement = statement
        self._plan: _P | None = None
        self._lock = threading.Lock()

    def _prepare(self, engine: sa.Engine) -> _P:
        raise NotImplementedError

    def _current_plan(self) -> _P:
        engine = db_engine.get_engine()
        plan = self._plan
        if plan is None or plan.engine is not engine:
            # Tests switch databases; a new engine gets a new plan.
            with self._lock:
                plan = self._plan = self._prepare(engine)
        return plan


class PreparedSelect(_PerEngine[_Plan]):
    """One SELECT whose parameters are all ``sa.bindparam``.

    Rows are named tuples with the statement's column keys, which must be
    valid field names (label a column whose key starts with ``_``).
    """

    statement: sa.Select

    def _prepare(self, engine: sa.Engine) -> _Plan:
        dialect = engine.dialect
        compiled = self.statement.compile(dialect=dialect)
        columns = list(self.statement.selected_columns)
        results = []
        for position, column in enumerate(columns):
            process = column.type.dialect_impl(dialect).result_processor(
                dialect, None)
            if process is not None:
                results.append((position, process))
        keys = [c.key for c in columns]
        # Field names known only at run time, which the type checker
        # cannot follow.
        row = collections.namedtuple("Row", keys)  # type: ignore[misc]
        return _Plan(engine, _Binds.of(compiled, dialect), tuple(results),
                     row, {key: position for position, key in enumerate(keys)},
                     dialect.loaded_dbapi.Error,
                     db_engine.readers_for(engine))

    def all(self, **params: Any) -> list:
        return self.fetch(**params).rows()

    def fetch(self, **params: Any) -> Fetched:
        """The matching rows, processed only when ``rows()`` is called."""
        plan = self._current_plan()
        args = plan.binds.arguments(params)
        readers = plan.readers
        connection = readers.acquire()
        done = False
        try:
            cursor = connection.cursor()
            try:
                cursor.execute(plan.binds.sql, args)
                raw_rows = cursor.fetchall()
            finally:
                cursor.close()
            done = True
        except plan.dbapi_error:
            return Fetched(plan, None, self._through_sqlalchemy(plan, params))
        finally:
            # A connection that failed is not used again.
            if done:
                readers.release(connection)
            else:
                readers.discard(connection)
        return Fetched(plan, raw_rows, None)

    def first(self, **params: Any) -> Any:
        rows = self.all(**params)
        return rows[0] if rows else None

    def _through_sqlalchemy(self, plan: _Plan, params: dict) -> list:
        with db_engine.reading() as conn:
            result = conn.execute(self.statement, params).all()
        return [plan.row._make(r) for r in result]


class _WritePlan(NamedTuple):
    engine: sa.Engine
    binds: _Binds
    dbapi_error: type[Exception]
    connections: db_engine.SqliteReaders | db_engine.PooledReaders


class PreparedWrite(_PerEngine[_WritePlan]):
    """One UPDATE (or DELETE) whose parameters are all ``sa.bindparam``,
    committed on its own, straight on a DBAPI connection.

    Through ``engine.writing()`` the conditional UPDATE that records an
    agent's heartbeat cost about 90 us of CPU on sqlite, of which sqlite
    took 15: the rest was the pool's check-out and check-in, the
    statement's cache key and the execution context, the same every time.
    Here they are done once per engine. Bind processors (JSON, datetimes)
    are SQLAlchemy's own. The connection is one single SELECTs use
    (``engine.readers_for``): on a sqlite file the statement's implicit
    transaction is committed before the connection goes back. A DBAPI
    error discards the connection and runs the statement once more
    through SQLAlchemy, whose errors oslo.db translates (a deadlock is
    retried by the caller's decorator, as before).
    """

    statement: sa.Update | sa.Delete

    def _prepare(self, engine: sa.Engine) -> _WritePlan:
        dialect = engine.dialect
        compiled = self.statement.compile(dialect=dialect)
        return _WritePlan(engine, _Binds.of(compiled, dialect),
                          dialect.loaded_dbapi.Error,
                          db_engine.readers_for(engine))

    def execute(self, **params: Any) -> int:
        """Run and commit the statement; the rows it matched."""
        plan = self._current_plan()
        args = plan.binds.arguments(params)
        connections = plan.connections
        connection = connections.acquire()
        try:
            cursor = connection.cursor()
            try:
                cursor.execute(plan.binds.sql, args)
                count = cursor.rowcount
            finally:
                cursor.close()
            connection.commit()
        except plan.dbapi_error:
            # Closed before the statement runs again: a transaction left
            # open on it would hold the write lock the retry waits for.
            connections.discard(connection)
            with db_engine.writing() as conn:
                return conn.execute(self.statement, params).rowcount
        except BaseException:
            connections.discard(connection)
            raise
        connections.release(connection)
        return count


class Fetched:
    """The rows of one ``PreparedSelect`` run.

    ``raw`` is the driver's rows as tuples of plain values, or None when
    the statement had to run through SQLAlchemy after a driver error.
    """

    __slots__ = ("raw", "_plan", "_rows", "_stamp")

    def __init__(self, plan: _Plan, raw: list | None, rows: list | None):
        self._plan = plan
        self.raw = raw
        self._rows = rows
        self._stamp: bytes | None = None

    def stamp(self) -> bytes | None:
        """The raw rows serialized: two equal stamps come from equal
        stored values (a pickle decodes to what it encodes). Equal values
        give equal stamps in practice, which is all a cache needs. About a
        sixth of the memory of the rows themselves. None without raw rows
        or for a value the driver gave that does not pickle.
        """
        if self._stamp is None and self.raw is not None:
            try:
                self._stamp = pickle.dumps(self.raw, protocol=5)
            except (pickle.PicklingError, TypeError, AttributeError):
                self._stamp = b""  # never a pickle: "tried, none"
        return self._stamp or None

    def __len__(self) -> int:
        rows = self.raw if self._rows is None else self._rows
        return len(rows or ())

    def value(self, column: str) -> Any:
        """``column`` of the first row as the driver returned it."""
        position = self._plan.positions[column]
        if self.raw is not None:
            return self.raw[0][position]
        return self.rows()[0][position]

    def rows(self) -> list:
        """The rows as named tuples, each column's result processor
        applied (JSON decoded, datetimes parsed)."""
        if self._rows is None:
            # Without raw rows, _rows was set when the rows were fetched.
            self._rows = _processed(self._plan, self.raw or [])
        return self._rows


def _processed(plan: _Plan, raw_rows: Sequence[Any]) -> list:
    make = plan.row._make
    if not plan.results:
        return [make(r) for r in raw_rows]
    rows = []
    for raw in raw_rows:
        values = list(raw)
        for position, process in plan.results:
            values[position] = process(values[position])
        rows.append(make(values))
    return rows
