"""What the layers above may ask about a table without writing SQL.

``table`` is the name of a model class in ``models`` (``"Port"``). The
API's generic collections need the columns (to read only those a view
shows) and which of them hold JSON (no meaningful order to sort by); their
list filters are ``(name, value)`` pairs, turned into SQL conditions only
here. A name is one of:

``column``           the column equals the value
``!column``          the column differs from the value
``node.column``      for items of a node (a ``node_id`` column): the node's
                     column is one of the values (a list)
``node.project``     the node is owned or leased by the project named
"""

from __future__ import annotations

import functools
from typing import Any, Iterable

import sqlalchemy as sa

from ironic.db.sqlalchemy import models
from ironic.db.sqlalchemy.types import JSONText


def _model(table: str) -> Any:
    model = getattr(models, table, None)
    if model is None or not hasattr(model, "__table__"):
        raise ValueError(f"no table model {table!r}")
    return model


@functools.cache
def columns(table: str) -> tuple[str, ...]:
    """The table's columns, in table order."""
    return tuple(_model(table).__table__.columns.keys())


@functools.cache
def json_columns(table: str) -> frozenset[str]:
    """The columns holding JSON documents."""
    return frozenset(c.name for c in _model(table).__table__.columns
                     if isinstance(c.type, JSONText))


def _column(table: str, name: str) -> Any:
    if name not in columns(table):
        raise ValueError(f"{table} has no column {name!r}")
    return getattr(_model(table), name)


def _of_nodes(table: str, *node_conds: Any) -> Any:
    N = models.Node
    return _column(table, "node_id").in_(sa.select(N.id).where(*node_conds))


def _condition(table: str, name: str, value: Any) -> Any:
    if name == "node.project":
        N = models.Node
        return _of_nodes(table, (N.owner == value) | (N.lessee == value))
    if name.startswith("node."):
        return _of_nodes(table, _column("Node", name[5:]).in_(list(value)))
    if name.startswith("!"):
        return _column(table, name[1:]) != value
    return _column(table, name) == value


def conditions(table: str, criteria: Iterable[tuple[str, Any]]) -> list:
    """The SQL conditions, to be ANDed, that ``criteria`` stand for."""
    return [_condition(table, name, value) for name, value in criteria]
