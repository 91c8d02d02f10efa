"""Node locks: the ``reservation`` column, and writes that respect it.

A mixin of ``Connection``. Taking a lock is one conditional UPDATE
(compare-and-swap), so two conductors can never both believe they hold it,
on sqlite, MariaDB or PostgreSQL alike. A conductor writes a node it holds
only while it still holds it (a survivor may have broken the lock of a
conductor it believed dead); a few writes go to nodes nobody holds.
"""

from __future__ import annotations

import datetime
import functools
import uuid as uuidlib
from typing import Any, Iterable

import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironic.common import exception
from ironic.db.sqlalchemy import engine, models, prepared, rows
from ironic.db.sqlalchemy.conductors import stale_before, utcnow
from ironic.db.sqlalchemy.nodes import node_conflict


class _LockLost(Exception):
    """Raised inside a transaction to roll it back: the node's lock moved."""


def _write_locked(session: Any, node_id: int, tag: str, values: dict
                  ) -> Any:
    """Write ``values`` to the node while ``tag`` holds its lock, inside
    ``session``'s transaction: the row as written, or None (lock moved)."""
    N = models.Node
    res = session.execute(sa.update(N).where(
        N.id == node_id, N.reservation == tag).values(
        **values).execution_options(synchronize_session=False))
    if res.rowcount != 1:
        return None
    node = session.get(N, node_id)
    session.expunge(node)
    return node


# Lock statements are built once: constructing one (and SQLAlchemy's
# matching it to its compiled form) cost more than sqlite running it.

@functools.cache
def _reserve_statement(key: str) -> sa.Update:
    N = models.Node.__table__
    # updated_at is kept: a lock is not a change of the node, and a request
    # that fails under the lock must leave the row as it was.
    return (sa.update(N).where(N.c[key] == sa.bindparam("node"),
                               N.c.reservation.is_(None))
            .values(reservation=sa.bindparam("tag"),
                    updated_at=N.c.updated_at)
            .returning(*N.c))


@functools.cache
def _release_statement() -> sa.Update:
    N = models.Node.__table__
    return (sa.update(N).where(N.c.id == sa.bindparam("node"),
                               N.c.reservation == sa.bindparam("tag"))
            .values(reservation=None, updated_at=N.c.updated_at))


@functools.lru_cache(maxsize=512)
def _locked_update_statement(columns: frozenset[str]) -> sa.Update:
    N = models.Node.__table__
    return (sa.update(N).where(N.c.id == sa.bindparam("_node"),
                               N.c.reservation == sa.bindparam("_tag"))
            .values({N.c[c]: sa.bindparam(c) for c in columns})
            .returning(*N.c))


@functools.lru_cache(maxsize=64)
def _unreserved_update_statement(columns: frozenset[str],
                                 unchanged: frozenset[str],
                                 dialect: str) -> sa.Update:
    N = models.Node.__table__

    def same(name: str) -> Any:
        column = N.c[name]
        was = sa.bindparam(f"_was_{name}", type_=column.type)
        kind = column.type.impl if isinstance(
            column.type, sa.TypeDecorator) else column.type
        if dialect == "mysql" and isinstance(kind, sa.String):
            # The tables' default collation ignores case: compare bytes.
            column = column.collate("utf8mb4_bin")
        return column.is_not_distinct_from(was)

    return (sa.update(N).where(N.c.id == sa.bindparam("_node"),
                               N.c.reservation.is_(None),
                               *(same(c) for c in sorted(unchanged)))
            .values({N.c[c]: sa.bindparam(c, type_=N.c[c].type)
                     for c in columns}))


@functools.lru_cache(maxsize=64)
def _unreserved_update(columns: frozenset[str], unchanged: frozenset[str],
                       dialect: str) -> prepared.PreparedWrite:
    # The heartbeat record's write, the most frequent one of a service
    # with agents: compiled once (see prepared.PreparedWrite).
    return prepared.PreparedWrite(
        _unreserved_update_statement(columns, unchanged, dialect))


class NodeLockQueries(rows.RowQueries):
    """Take, release and break node locks; write under them."""

    @engine.retry_on_deadlock
    def reserve_node(self, tag: str, node_id: int | str) -> Any:
        """Take the exclusive lock of a node (by id or UUID) for conductor
        ``tag``; returns the node's row.

        Raises NodeLocked (naming the holder) when someone holds it.
        """
        if not engine.update_returning():
            return self._reserve_node_in_transaction(tag, node_id)
        N = models.Node.__table__
        key = N.c.id if isinstance(node_id, int) else N.c.uuid
        # One statement in autocommit (engine.writing()), so the write
        # lock is not held across a transaction's several statements.
        stmt = _reserve_statement(key.name)
        params = {"node": node_id, "tag": tag}
        for _ in range(2):
            with engine.writing() as conn:
                row = conn.execute(stmt, params).first()
            if row is not None:
                return row
            holder = self._lock_holder(key == node_id, node_id)
            if holder.reservation is not None:
                raise exception.NodeLocked(node=holder.uuid,
                                           host=holder.reservation)
            # Released between the two statements: try once more.
        raise exception.NodeLocked(node=holder.uuid, host="another task")

    def _lock_holder(self, where, node_id) -> Any:
        """The uuid and reservation of a node whose lock did not move."""
        N = models.Node.__table__
        with engine.reading() as conn:
            holder = conn.execute(sa.select(N.c.uuid, N.c.reservation)
                                  .where(where)).first()
        if holder is None:
            raise exception.NodeNotFound(node=node_id)
        return holder

    def _reserve_node_in_transaction(self, tag: str, node_id: int | str
                                     ) -> models.Node:
        N = models.Node
        key = N.id if isinstance(node_id, int) else N.uuid
        with self._writer() as session:
            res = session.execute(sa.update(N).where(
                key == node_id, N.reservation.is_(None)).values(
                reservation=tag, updated_at=N.updated_at).execution_options(
                synchronize_session=False))
            node = session.scalars(sa.select(N).where(key == node_id)).first()
            if node is None:
                raise exception.NodeNotFound(node=node_id)
            if res.rowcount != 1:
                raise exception.NodeLocked(node=node.uuid,
                                           host=node.reservation)
            session.expunge(node)
            return node

    @engine.retry_on_deadlock
    def release_node(self, tag: str, node_id: int) -> None:
        with engine.writing() as conn:
            released = conn.execute(_release_statement(),
                                    {"node": node_id, "tag": tag}).rowcount
        if released == 1:
            return
        holder = self._lock_holder(models.Node.id == node_id, node_id)
        if holder.reservation is None:
            raise exception.NodeNotLocked(node=holder.uuid, host=tag)
        raise exception.NodeLocked(node=holder.uuid, host=holder.reservation)

    @engine.retry_on_deadlock
    def update_node_locked(self, node_id: int, tag: str, values: dict
                           ) -> Any:
        """Write ``values`` only while ``tag`` still holds the lock; returns
        the node's row as written.

        A survivor may have broken the lease of a conductor it believed
        dead; the old holder's late writes must then be refused.
        """
        values = dict(values, updated_at=utcnow())
        try:
            if engine.update_returning():
                row = self._update_locked_returning(node_id, tag, values)
            else:
                row = self._update_locked_in_transaction(node_id, tag,
                                                         values)
        except db_exc.DBDuplicateEntry as e:
            # A name or instance_uuid another node holds: the same 409 as
            # on create (the transaction was rolled back).
            raise node_conflict(e, {"uuid": node_id, **values}) from e
        if row is None:
            raise self._lock_moved(node_id)
        return row

    @engine.retry_on_deadlock
    def update_node_if_unreserved(self, node_id: int, values: dict,
                                  unchanged: dict
                                  ) -> datetime.datetime | None:
        """Write ``values`` in one conditional UPDATE, only while nobody
        holds the node's lock and each column of ``unchanged`` still
        holds the value given there (compare-and-swap: whatever a lock
        holder wrote since the caller read the row makes it miss).

        Returns the ``updated_at`` written, or None when nothing was.
        """
        now = utcnow()
        params = {**values, "updated_at": now, "_node": node_id,
                  **{f"_was_{c}": v for c, v in unchanged.items()}}
        stmt = _unreserved_update(
            frozenset(values) | {"updated_at"}, frozenset(unchanged),
            engine.get_engine().dialect.name)
        return now if stmt.execute(**params) == 1 else None

    def _lock_moved(self, node_id: int) -> exception.NodeLocked:
        """The refusal of a write whose lock another holder took."""
        holder = self._lock_holder(models.Node.id == node_id, node_id)
        return exception.NodeLocked(node=holder.uuid, host=holder.reservation)

    @engine.retry_on_deadlock
    def update_node_locked_and_allocation(self, node_id: int, tag: str,
                                          values: dict, alloc_id: int,
                                          alloc_values: dict) -> Any:
        """``update_node_locked`` and a write of allocation ``alloc_id``
        in one transaction.

        An allocation that takes a node must not be seen ``active`` while
        the node does not name it yet, and neither row may change without
        the other: an allocation deleted meanwhile (AllocationNotFound) or
        a lost lock (NodeLocked) leaves both as they were.
        """
        A = models.Allocation
        values = dict(values, updated_at=utcnow())
        try:
            with self._writer() as session:
                alloc = session.get(A, alloc_id)
                if alloc is None:
                    raise exception.AllocationNotFound(allocation=alloc_id)
                for key, value in alloc_values.items():
                    setattr(alloc, key, value)
                session.flush()
                node = _write_locked(session, node_id, tag, values)
                if node is None:
                    raise _LockLost()
                return node
        except db_exc.DBDuplicateEntry as e:
            raise node_conflict(e, {"uuid": node_id, **values}) from e
        except _LockLost:
            raise self._lock_moved(node_id) from None

    def _update_locked_returning(self, node_id: int, tag: str,
                                 values: dict) -> Any:
        stmt = _locked_update_statement(frozenset(values))
        with engine.writing() as conn:
            return conn.execute(stmt, {**values, "_node": node_id,
                                       "_tag": tag}).first()

    def _update_locked_in_transaction(self, node_id: int, tag: str,
                                      values: dict) -> Any:
        with self._writer() as session:
            return _write_locked(session, node_id, tag, values)

    def get_nodes_reserved_by(self, tag: str) -> list[tuple[int, str]]:
        """(id, uuid) of every node whose lock ``tag`` holds."""
        N = models.Node.__table__
        with engine.reading() as conn:
            return [(row.id, row.uuid) for row in conn.execute(
                sa.select(N.c.id, N.c.uuid).where(N.c.reservation == tag))]

    @engine.retry_on_deadlock
    def clear_node_reservations_for_conductor(self, hostname: str) -> int:
        """Release every lock held under ``hostname`` (at its start-up)."""
        N = models.Node
        with self._writer() as session:
            return session.execute(sa.update(N).where(
                N.reservation == hostname).values(reservation=None)
                .execution_options(synchronize_session=False)).rowcount

    @engine.retry_on_deadlock
    def release_dead_conductor_locks(self, interval: int) -> list[str]:
        """Break the locks of conductors whose heartbeat is too old.

        A lock whose holder is not a live conductor at all (its row is gone)
        is broken too; a conductor that still heartbeats keeps its locks even
        when it left the ring (it is draining its workers). Returns the UUIDs
        of the nodes released, for the log.
        """
        N, C = models.Node, models.Conductor
        seen = sa.func.coalesce(C.updated_at, C.created_at)
        with self._writer() as session:
            alive = sa.select(C.hostname).where(
                seen >= stale_before(interval)).scalar_subquery()
            held = sa.and_(N.reservation.is_not(None),
                           N.reservation.not_in(alive))
            uuids = list(session.scalars(sa.select(N.uuid).where(held)))
            if uuids:
                session.execute(sa.update(N).where(
                    N.uuid.in_(uuids), held).values(
                    reservation=None).execution_options(
                    synchronize_session=False))
            return uuids

    @engine.retry_on_deadlock
    def write_idle_nodes(self, changes: Iterable[tuple[int, dict]],
                         history: dict[int, dict] | None = None,
                         in_maintenance_for: str | None = None
                         ) -> list[int]:
        """Write each node's values, in one transaction, when nobody holds
        its lock and it is not in maintenance (or, with
        ``in_maintenance_for``, it is in maintenance with that fault);
        returns the ids written.

        For the power state sync's failure records: they change columns no
        lock holder relies on, so taking and releasing the lock of every
        node (two more writes each) would only multiply the contention of a
        mass failure. Nodes with equal values share one UPDATE.
        ``history``: node id -> the NodeHistory values to add for that
        node if it is written.
        """
        N = models.Node
        changes = list(changes)
        if in_maintenance_for is None:
            guard = [N.maintenance.is_(False)]
        else:
            guard = [N.maintenance.is_(True), N.fault == in_maintenance_for]
        with self._writer() as session:
            idle = set(session.scalars(
                sa.select(N.id).where(
                    N.id.in_([node_id for node_id, _ in changes]),
                    N.reservation.is_(None), *guard)
                .with_for_update()))
            groups: dict[tuple, list[int]] = {}
            for node_id, values in changes:
                if node_id in idle:
                    groups.setdefault(tuple(sorted(values.items())),
                                      []).append(node_id)
            now = utcnow()
            for items, ids in groups.items():
                session.execute(
                    sa.update(N.__table__).where(N.id.in_(ids))
                    .values(dict(items, updated_at=now)))
            rows = [dict(values, node_id=node_id, uuid=str(uuidlib.uuid4()),
                         created_at=now)
                    for node_id, values in (history or {}).items()
                    if node_id in idle]
            if rows:
                session.execute(sa.insert(models.NodeHistory.__table__),
                                rows)
        return sorted(idle)
