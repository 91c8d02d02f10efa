"""Queries of the conductors table and of node locks.

A mixin of ``Connection`` so the conductor's queries live apart from the
resource CRUD. The node lock is the ``reservation`` column: taking it is one
conditional UPDATE (compare-and-swap), so two conductors can never both
believe they hold it, on sqlite, MariaDB or PostgreSQL alike.
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


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def _stale_before(interval: int) -> datetime.datetime:
    return utcnow() - datetime.timedelta(seconds=interval)


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


def _alive_clause(interval: int):
    C = models.Conductor
    seen = sa.func.coalesce(C.updated_at, C.created_at)
    return sa.and_(C.online.is_(True), seen >= _stale_before(interval))


class ConductorQueries(rows.RowQueries):
    """Registration, heartbeat and liveness of conductors; node locks."""

    # Provided by Connection.
    _translate_integrity: Any

    # ------------------------------------------------------------------
    # registration and heartbeat

    @engine.retry_on_deadlock
    def register_conductor(self, values: dict, update_existing: bool = False
                           ) -> models.Conductor:
        """Insert or revive the row of ``values['hostname']``.

        A row that is online is someone else's live registration (two
        conductors configured with one host name): refused unless
        ``update_existing`` says the caller knows it is its own.
        """
        C = models.Conductor
        fields = {"drivers": list(values.get("drivers") or []),
                  "conductor_group": values.get("conductor_group") or "",
                  "online": True, "updated_at": utcnow()}
        with self._writer() as session:
            row = session.scalars(sa.select(C).where(
                C.hostname == values["hostname"])).first()
            if row is None:
                row = C(hostname=values["hostname"], **fields)
                session.add(row)
            elif row.online and not update_existing:
                raise exception.ConductorAlreadyRegistered(
                    conductor=values["hostname"])
            else:
                for key, value in fields.items():
                    setattr(row, key, value)
            try:
                session.flush()
            except db_exc.DBDuplicateEntry as e:
                raise exception.ConductorAlreadyRegistered(
                    conductor=values["hostname"]) from e
            session.expunge(row)
            return row

    @engine.retry_on_deadlock
    def touch_conductor(self, hostname: str, online: bool = True) -> None:
        """The heartbeat: the conductor is alive now.

        ``online=False`` is the heartbeat of a conductor that is leaving:
        out of the hash ring (no new work reaches it) while the locks its
        running workers hold stay its own until it unregisters.
        """
        C = models.Conductor
        with self._writer() as session:
            res = session.execute(sa.update(C).where(
                C.hostname == hostname).values(updated_at=utcnow(),
                                               online=online))
            if res.rowcount == 0:
                raise exception.ConductorNotFound(conductor=hostname)

    @engine.retry_on_deadlock
    def unregister_conductor(self, hostname: str) -> None:
        C = models.Conductor
        with self._writer() as session:
            row = session.execute(sa.select(C.id).where(
                C.hostname == hostname)).first()
            if row is None:
                raise exception.ConductorNotFound(conductor=hostname)
            session.execute(sa.update(C).where(C.id == row.id).values(
                online=False))
            session.execute(sa.delete(models.ConductorHardwareInterfaces)
                            .where(models.ConductorHardwareInterfaces
                                   .conductor_id == row.id))

    def get_conductor(self, hostname: str) -> models.Conductor:
        C = models.Conductor
        return self._get_row(C, exception.ConductorNotFound(
            conductor=hostname), C.hostname == hostname)

    def list_conductors(self, *, limit: int | None = None,
                        marker: str | None = None, sort_key: str = "id",
                        sort_dir: str = "asc") -> list[models.Conductor]:
        """Every registered conductor, alive or not, paged by hostname."""
        C = models.Conductor
        col = getattr(C, sort_key)
        order = [col.asc() if sort_dir == "asc" else col.desc(), C.id.asc()]
        with self._reader() as session:
            stmt = sa.select(C).order_by(*order)
            if marker is not None:
                mrow = session.execute(sa.select(C.id, col).where(
                    C.hostname == marker)).first()
                if mrow is None:
                    raise exception.ConductorNotFound(conductor=marker)
                mval = mrow[1]
                after = col > mval if sort_dir == "asc" else col < mval
                stmt = stmt.where(sa.or_(after, sa.and_(col == mval,
                                                        C.id > mrow.id)))
            if limit:
                stmt = stmt.limit(limit)
            rows = list(session.scalars(stmt))
            for r in rows:
                session.expunge(r)
            return rows

    def get_active_conductors(self, interval: int) -> list[models.Conductor]:
        """Conductors online whose heartbeat is younger than ``interval``."""
        C = models.Conductor
        return self._get_rows(sa.select(C).where(
            _alive_clause(interval)).order_by(C.hostname))

    def get_offline_conductors(self, interval: int) -> list[str]:
        C = models.Conductor
        with self._reader() as session:
            return list(session.scalars(sa.select(C.hostname).where(
                sa.not_(_alive_clause(interval)))))

    @engine.retry_on_deadlock
    def delete_stale_conductors(self, timeout: int, limit: int) -> list[str]:
        """Delete up to ``limit`` conductor rows not seen alive for
        ``timeout`` seconds, with their hardware interfaces; nodes and
        allocations that named them as affinity forget it. Returns the
        host names deleted."""
        C, N, A = models.Conductor, models.Node, models.Allocation
        seen = sa.func.coalesce(C.updated_at, C.created_at)
        with self._writer() as session:
            rows = session.execute(sa.select(C.id, C.hostname).where(
                seen < _stale_before(timeout)).order_by(seen).limit(
                limit)).all()
            ids = [r.id for r in rows]
            if not ids:
                return []
            for model in (N, A):
                session.execute(sa.update(model).where(
                    model.conductor_affinity.in_(ids)).values(
                    conductor_affinity=None).execution_options(
                    synchronize_session=False))
            session.execute(sa.delete(models.ConductorHardwareInterfaces)
                            .where(models.ConductorHardwareInterfaces
                                   .conductor_id.in_(ids)))
            session.execute(sa.delete(C).where(C.id.in_(ids)))
            return [r.hostname for r in rows]

    def conductor_alive(self, row: Any, interval: int) -> bool:
        """Whether ``row`` (a conductor row or object) is online and
        heartbeating within ``interval`` seconds."""
        seen = row.updated_at or row.created_at
        return bool(row.online and seen and seen >= _stale_before(interval))

    # ------------------------------------------------------------------
    # hardware interfaces a conductor serves (seed 003)

    # Conductors starting together each delete then insert their rows; on
    # InnoDB the DELETEs take gap locks that the other's INSERT waits for,
    # and one of them is chosen as a deadlock victim. Retrying is safe: the
    # whole replacement runs again in a new transaction.
    @engine.retry_on_deadlock
    def register_conductor_hardware_interfaces(
            self, conductor_id: int, interfaces: Iterable[dict]) -> None:
        """Replace the (hardware_type, interface_type, interface_name,
        default) rows of one conductor."""
        H = models.ConductorHardwareInterfaces
        with self._writer() as session:
            session.execute(sa.delete(H).where(H.conductor_id ==
                                               conductor_id))
            for item in interfaces:
                session.add(H(conductor_id=conductor_id, **item))

    def list_conductor_hardware_interfaces(self, conductor_id: int
                                           ) -> list[dict]:
        H = models.ConductorHardwareInterfaces
        cols = (H.hardware_type, H.interface_type, H.interface_name,
                H.default)
        with self._reader() as session:
            return [dict(r._mapping) for r in session.execute(
                sa.select(*cols).where(H.conductor_id == conductor_id))]

    def list_hardware_type_interfaces(self, hardware_types: Iterable[str],
                                      interval: int) -> list[dict]:
        """Interfaces served by live conductors for the given types."""
        H, C = models.ConductorHardwareInterfaces, models.Conductor
        cols = (H.hardware_type, H.interface_type, H.interface_name,
                H.default)
        with self._reader() as session:
            return [dict(r._mapping) for r in session.execute(
                sa.select(*cols).join(C, C.id == H.conductor_id).where(
                    H.hardware_type.in_(list(hardware_types)),
                    _alive_clause(interval)).distinct())]

    # ------------------------------------------------------------------
    # node locks

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
            raise self._translate_integrity(
                e, "node", {"uuid": node_id, **values}) from e
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
            raise self._translate_integrity(
                e, "node", {"uuid": node_id, **values}) from e
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
                seen >= _stale_before(interval)).scalar_subquery()
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
