"""SELECTs compiled once and run straight on a pooled DBAPI connection.

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
"""

from __future__ import annotations

import collections
import threading
from typing import Any, Callable, NamedTuple

import sqlalchemy as sa

from ironic.db.sqlalchemy import engine as db_engine


class _Plan(NamedTuple):
    engine: sa.Engine
    sql: str
    #: Parameter names in placeholder order; None for named placeholders.
    order: tuple[str, ...] | None
    binds: dict[str, Callable]
    results: tuple[tuple[int, Callable], ...]
    row: type
    #: The driver's base exception (DB-API ``Error``).
    dbapi_error: type[Exception]
    readers: db_engine.SqliteReaders | db_engine.PooledReaders


class PreparedSelect:
    """One SELECT whose parameters are all ``sa.bindparam``.

    Rows are named tuples with the statement's column keys, which must be
    valid field names (label a column whose key starts with ``_``).
    """

    def __init__(self, statement: sa.Select):
        self.statement = statement
        self._plan: _Plan | None = None
        self._lock = threading.Lock()

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
        binds = {}
        for name, param in compiled.binds.items():
            process = param.type.dialect_impl(dialect).bind_processor(dialect)
            if process is not None:
                binds[name] = process
        row = collections.namedtuple("Row", [c.key for c in columns])
        return _Plan(engine, compiled.string,
                     tuple(compiled.positiontup) if compiled.positional
                     else None, binds, tuple(results), row,
                     dialect.loaded_dbapi.Error,
                     db_engine.readers_for(engine))

    def _current_plan(self) -> _Plan:
        engine = db_engine.get_engine()
        plan = self._plan
        if plan is None or plan.engine is not engine:
            # Tests switch databases; a new engine gets a new plan.
            with self._lock:
                plan = self._plan = self._prepare(engine)
        return plan

    def all(self, **params: Any) -> list:
        plan = self._current_plan()
        values = dict(params)
        for name, process in plan.binds.items():
            values[name] = process(values[name])
        args = (values if plan.order is None
                else tuple(values[name] for name in plan.order))
        readers = plan.readers
        connection = readers.acquire()
        done = False
        try:
            cursor = connection.cursor()
            try:
                cursor.execute(plan.sql, args)
                raw_rows = cursor.fetchall()
            finally:
                cursor.close()
            done = True
        except plan.dbapi_error:
            return self._through_sqlalchemy(plan, params)
        finally:
            # A connection that failed is not used again.
            if done:
                readers.release(connection)
            else:
                readers.discard(connection)
        return self._rows(plan, raw_rows)

    def first(self, **params: Any) -> Any:
        rows = self.all(**params)
        return rows[0] if rows else None

    @staticmethod
    def _rows(plan: _Plan, raw_rows: list) -> list:
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

    def _through_sqlalchemy(self, plan: _Plan, params: dict) -> list:
        with db_engine.reading() as conn:
            result = conn.execute(self.statement, params).all()
        return [plan.row._make(r) for r in result]
