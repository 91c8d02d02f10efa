"""Get, insert, update and destroy one row of any model.

The base of ``Connection`` and its mixins. Every resource's queries are these four
statements; what differs between resources is only the not-found
exception and how a unique-constraint violation is reported, which the
caller passes in.
"""

from __future__ import annotations

import uuid as uuidlib
from typing import Any, Callable

import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironic.db.sqlalchemy import engine, pages

#: Turns a unique-constraint violation and the values written (with the
#: stored row's ``kept`` columns under them) into the service's exception.
Conflict = Callable[[db_exc.DBDuplicateEntry, dict], Exception]


class RowQueries:
    """One-row reads and writes shared by every resource: the base of
    ``Connection``'s mixins (one per group of tables)."""

    # Transactions: a read-only one and one that commits.
    _reader = staticmethod(engine.reader)
    _writer = staticmethod(engine.writer)
    #: A page of rows (``pages.list_page``).
    _list = staticmethod(pages.list_page)

    @staticmethod
    def _get_row(model: Any, not_found: Exception, *where: Any,
                 order_by: Any = None) -> Any:
        """The first row of ``model`` meeting ``where``; ``not_found``
        raised when none does."""
        stmt = sa.select(model).where(*where)
        if order_by is not None:
            stmt = stmt.order_by(order_by)
        with engine.reader() as session:
            obj = session.scalars(stmt).first()
            if obj is None:
                raise not_found
            session.expunge(obj)
            return obj

    @staticmethod
    def _get_rows(stmt: sa.Select) -> list:
        """Every row of one model that ``stmt`` selects."""
        with engine.reader() as session:
            found = list(session.scalars(stmt))
            for obj in found:
                session.expunge(obj)
            return found

    @staticmethod
    @engine.retry_on_deadlock
    def _replace_node_rows(model: Any, node_id: int,
                           items: list[dict]) -> None:
        """Make ``items`` the node's only rows of ``model``.

        InnoDB gap-locks the empty range the DELETE scanned, so two nodes
        recording their first rows at once can deadlock on the INSERTs.
        """
        with engine.writer() as session:
            session.execute(sa.delete(model).where(model.node_id == node_id))
            for values in items:
                session.add(model(node_id=node_id, **values))

    @staticmethod
    @engine.retry_on_deadlock
    def _insert_row(model: Any, values: dict, conflict: Conflict) -> Any:
        """Insert a row of ``values`` (a new UUID unless they give one)."""
        values = dict(values)
        if not values.get("uuid"):
            values["uuid"] = str(uuidlib.uuid4())
        obj = model(**values)
        try:
            with engine.writer() as session:
                session.add(obj)
                session.flush()
                session.expunge(obj)
        except db_exc.DBDuplicateEntry as e:
            raise conflict(e, values) from e
        return obj

    @staticmethod
    @engine.retry_on_deadlock
    def _update_row(model: Any, obj_id: int, values: dict,
                    not_found: Exception, conflict: Conflict,
                    kept: tuple[str, ...] = ("uuid",)) -> Any:
        """Write ``values`` to the row with database id ``obj_id``.

        ``kept``: columns of the stored row a conflict message may name
        although the caller did not change them.
        """
        stored: dict = {}
        try:
            with engine.writer() as session:
                obj = session.get(model, obj_id)
                if obj is None:
                    raise not_found
                # Read now: after the rollback the row cannot be read.
                stored = {c: getattr(obj, c, None) for c in kept}
                for key, value in values.items():
                    setattr(obj, key, value)
                session.flush()
                session.expunge(obj)
                return obj
        except db_exc.DBDuplicateEntry as e:
            raise conflict(e, {**stored, **values}) from e

    @staticmethod
    def _delete_by_id(session: Any, model: Any, obj_id: int,
                      not_found: Exception) -> None:
        """Delete the row inside ``session``'s transaction."""
        res = session.execute(sa.delete(model).where(model.id == obj_id))
        if res.rowcount == 0:
            raise not_found

    @staticmethod
    @engine.retry_on_deadlock
    def _destroy_row(model: Any, obj_id: int, not_found: Exception,
                     used_by: sa.Select | None = None,
                     in_use: Exception | None = None) -> None:
        """Delete the row with database id ``obj_id`` in a transaction of
        its own; ``in_use`` raised instead while ``used_by`` (the rows
        referring to it) selects any."""
        with engine.writer() as session:
            if used_by is not None and session.execute(
                    used_by.limit(1)).first():
                raise in_use or not_found
            RowQueries._delete_by_id(session, model, obj_id, not_found)
