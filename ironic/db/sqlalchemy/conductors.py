"""Queries of the conductors table: registration, heartbeat, liveness.

A mixin of ``Connection``. A conductor is alive while it is online and its
heartbeat (``updated_at``) is younger than the interval the caller gives;
``alive_clause`` says so in SQL for the other mixins (hardware interfaces
served, locks of dead conductors).
"""

from __future__ import annotations

import datetime
from typing import Any

import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironic.common import exception
from ironic.db.sqlalchemy import engine, models, rows


def utcnow() -> datetime.datetime:
    """Now, naive UTC, as the DateTime columns hold it."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def stale_before(interval: int) -> datetime.datetime:
    """The oldest heartbeat still younger than ``interval`` seconds."""
    return utcnow() - datetime.timedelta(seconds=interval)


def alive_clause(interval: int) -> Any:
    """SQL: the conductor is online and heartbeating within ``interval``."""
    C = models.Conductor
    seen = sa.func.coalesce(C.updated_at, C.created_at)
    return sa.and_(C.online.is_(True), seen >= stale_before(interval))


class ConductorQueries(rows.RowQueries):
    """Registration, heartbeat and liveness of conductors."""

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
            alive_clause(interval)).order_by(C.hostname))

    def get_offline_conductors(self, interval: int) -> list[str]:
        C = models.Conductor
        with self._reader() as session:
            return list(session.scalars(sa.select(C.hostname).where(
                sa.not_(alive_clause(interval)))))

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
                seen < stale_before(timeout)).order_by(seen).limit(
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
        return bool(row.online and seen and seen >= stale_before(interval))
