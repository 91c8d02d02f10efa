"""SQLAlchemy implementation of the database API: ``Connection``.

Queries are written with SQLAlchemy 2 ``select``/``update``/``delete``
statements inside oslo.db enginefacade transactions. Lists select only the
columns they are asked for and page by key, never by offset (``pages``).

``Connection`` is the composition of one mixin per group of tables, each in
its own module: ``nodes``, ``node_locks``, ``ports``, ``chassis``,
``conductors``, ``hardware``, ``node_resources``, ``allocations`` and
``inspection_rules``; ``rows.RowQueries`` is what they share.
"""

from __future__ import annotations

from typing import Iterable

import sqlalchemy as sa

from ironic.db.sqlalchemy import engine, models
from ironic.db.sqlalchemy.allocations import AllocationQueries
from ironic.db.sqlalchemy.chassis import ChassisQueries
from ironic.db.sqlalchemy.conductors import ConductorQueries
from ironic.db.sqlalchemy.hardware import HardwareQueries
from ironic.db.sqlalchemy.inspection_rules import InspectionRuleQueries
from ironic.db.sqlalchemy.node_locks import NodeLockQueries
from ironic.db.sqlalchemy.node_resources import NodeResourceQueries
from ironic.db.sqlalchemy.nodes import NodeQueries
from ironic.db.sqlalchemy.ports import PortQueries

_reader = engine.reader
_writer = engine.writer
get_engine = engine.get_engine


def dispose() -> None:
    """Forget the engine and the connection object (tests switch DBs)."""
    global _CONNECTION
    engine.dispose()
    _CONNECTION = None


_CONNECTION: Connection | None = None


def get_connection() -> Connection:
    global _CONNECTION
    if _CONNECTION is None:
        _CONNECTION = Connection()
    return _CONNECTION


class Connection(NodeQueries, NodeLockQueries, PortQueries, ChassisQueries,
                 ConductorQueries, HardwareQueries, NodeResourceQueries,
                 AllocationQueries, InspectionRuleQueries):
    """All queries of the service."""

    def uuids_for_ids(self, model_name: str, ids: Iterable[int | None]
                      ) -> dict[int, str]:
        """{id: uuid} of the rows of ``model_name`` with ``ids``: the API
        renders relations (a port's node, a node's chassis) by UUID."""
        model = {"node": models.Node, "chassis": models.Chassis,
                 "portgroup": models.Portgroup,
                 "allocation": models.Allocation}[model_name]
        ids = [i for i in set(ids) if i is not None]
        if not ids:
            return {}
        with _reader() as session:
            return dict(session.execute(sa.select(model.id, model.uuid).where(
                model.id.in_(ids))).all())
