"""Queries of chassis, the enclosures nodes may name.

A mixin of ``Connection``. A chassis that nodes still name cannot be
deleted.
"""

from __future__ import annotations

from typing import Iterable

import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironic.common import exception
from ironic.db.sqlalchemy import models, rows


def chassis_conflict(e: db_exc.DBDuplicateEntry, values: dict
                     ) -> exception.IronicException:
    """A chassis has one unique column besides its id: the UUID."""
    return exception.ChassisAlreadyExists(uuid=values.get("uuid"))


class ChassisQueries(rows.RowQueries):
    """Create, read, update and delete chassis."""

    def create_chassis(self, values: dict):
        return self._insert_row(models.Chassis, values, chassis_conflict)

    def get_chassis(self, value, column: str = "uuid"):
        """The chassis whose ``column`` (id, uuid) is ``value``."""
        return self._get_row(models.Chassis,
                             exception.ChassisNotFound(chassis=value),
                             getattr(models.Chassis, column) == value)

    def get_chassis_list(self, filters: Iterable = (), **kwargs) -> list:
        return self._list(models.Chassis, filters=filters, **kwargs)

    def update_chassis(self, chassis_id: int, values: dict):
        return self._update_row(models.Chassis, chassis_id, values,
                                exception.ChassisNotFound(chassis=chassis_id),
                                chassis_conflict)

    def destroy_chassis(self, chassis_id: int) -> None:
        N = models.Node
        self._destroy_row(
            models.Chassis, chassis_id,
            exception.ChassisNotFound(chassis=chassis_id),
            used_by=sa.select(N.id).where(N.chassis_id == chassis_id),
            in_use=exception.ChassisNotEmpty(chassis=chassis_id))
