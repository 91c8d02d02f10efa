"""A page of rows of any model: sorted, started after a marker, limited.

Every list of the API is read here. Pages are found by key, never by
offset: the marker's sort value and id say where the page starts, so a page
costs the same however deep in the list it is. ``RowQueries._list`` is
``list_page``, for the mixins of ``Connection``.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import sqlalchemy as sa

from ironic.common import exception
from ironic.db.sqlalchemy import engine

# Columns that may not be used to sort because they hold JSON or are
# otherwise not orderable in a meaningful way.
_UNSORTABLE = {"driver_info", "driver_internal_info", "instance_info",
               "properties", "extra", "raid_config", "target_raid_config",
               "network_data", "clean_step", "deploy_step", "service_step",
               "internal_info", "local_link_connection"}


def _order_and_page(stmt, model, sort_key: str, sort_dir: str,
                    marker_row: Any | None):
    """Order by (sort_key, id) and start after ``marker_row``.

    NULLs sort first ascending and last descending on every backend: the
    ``IS NULL`` term makes the order portable.
    """
    col = getattr(model, sort_key)
    idcol = model.id
    asc = sort_dir == "asc"
    if sort_key == "id":
        stmt = stmt.order_by(idcol.asc() if asc else idcol.desc())
        if marker_row is not None:
            stmt = stmt.where(idcol > marker_row.id if asc
                              else idcol < marker_row.id)
        return stmt
    isnull = col.is_(None)
    if asc:
        stmt = stmt.order_by(isnull.desc(), col.asc(), idcol.asc())
    else:
        stmt = stmt.order_by(isnull.asc(), col.desc(), idcol.desc())
    if marker_row is None:
        return stmt
    mval = getattr(marker_row, sort_key)
    mid = marker_row.id
    if asc:
        if mval is None:
            cond = sa.or_(sa.and_(isnull, idcol > mid), col.is_not(None))
        else:
            cond = sa.or_(col > mval, sa.and_(col == mval, idcol > mid))
    else:
        if mval is None:
            cond = sa.and_(isnull, idcol < mid)
        else:
            cond = sa.or_(col < mval, sa.and_(col == mval, idcol < mid),
                          isnull)
    return stmt.where(cond)


def list_page(model, *, columns: Sequence[str] | None = None,
              filters: Iterable = (), limit: int | None = None,
              marker: str | None = None, sort_key: str = "id",
              sort_dir: str = "asc", marker_not_found=None,
              joins: Iterable = ()) -> list:
    """One page of ``model``: dicts of ``columns`` when given, else rows.

    ``marker_not_found`` is raised when no row has the ``marker`` UUID
    (InvalidParameterValue unless given); ``joins`` are outer joins, a
    target or a (target, on clause) tuple.
    """
    # Only real columns: getattr() on the class would also find
    # relationships, methods and dunders (AttributeError -> a 500).
    if sort_key in _UNSORTABLE or sort_key not in model.__table__.c:
        raise exception.InvalidParameterValue(
            err=f"The sort_key value \"{sort_key}\" is an invalid field "
                f"for sorting")
    if sort_dir not in ("asc", "desc"):
        raise exception.InvalidParameterValue(
            err=f"Invalid sort direction: {sort_dir}. Acceptable values "
                f"are 'asc' or 'desc'")
    if columns:
        # Plain columns need no Session: a Core connection skips the
        # ORM's execution context (about a third of a small page).
        # The marker and the page are two statements; the marker's
        # values are all the page needs from the first.
        with engine.reading() as conn:
            stmt = _page_statement(
                model, conn, [getattr(model, c) for c in columns],
                filters, limit, marker, sort_key, sort_dir,
                marker_not_found, joins)
            # Plain tuples: a thousand-row page is built noticeably
            # faster than through Row objects.
            return [dict(zip(columns, r, strict=True))
                    for r in conn.execute(stmt).tuples()]
    with engine.reader() as session:
        stmt = _page_statement(
            model, session, [model], filters, limit, marker, sort_key,
            sort_dir, marker_not_found, joins)
        out = []
        for (obj,) in session.execute(stmt):
            session.expunge(obj)
            out.append(obj)
        return out


def _page_statement(model, runner, cols: list, filters: Iterable,
                    limit: int | None, marker: str | None,
                    sort_key: str, sort_dir: str, marker_not_found,
                    joins: Iterable) -> sa.Select:
    """The SELECT of one page; ``runner`` (a session or a connection)
    looks the marker up."""
    marker_row = None
    if marker is not None:
        marker_row = runner.execute(
            sa.select(model.id, getattr(model, sort_key)).where(
                model.uuid == marker)).first()
        if marker_row is None:
            raise marker_not_found or exception.InvalidParameterValue(
                err=f"Marker {marker} not found")
    stmt = sa.select(*cols)
    for j in joins:
        stmt = stmt.outerjoin(*j) if isinstance(j, tuple) else \
            stmt.outerjoin(j)
    for f in filters:
        stmt = stmt.where(f)
    stmt = _order_and_page(stmt, model, sort_key, sort_dir, marker_row)
    if limit:
        stmt = stmt.limit(limit)
    return stmt
