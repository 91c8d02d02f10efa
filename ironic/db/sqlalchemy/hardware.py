"""Queries about the hardware types and interfaces conductors serve.

A mixin of ``Connection``: the API reads these rows to validate node
interfaces and to answer ``/v1/drivers`` without loading any driver.
"""

from __future__ import annotations

import datetime

import sqlalchemy as sa

from ironic.db.sqlalchemy import models, rows


class HardwareQueries(rows.RowQueries):

    def list_live_hardware(self, interval: int) -> list[dict]:
        """Rows of ``conductor_hardware_interfaces`` of live conductors.

        Each row has hostname, hardware_type, interface_type,
        interface_name and default, in registration order (a conductor
        registers each type's interfaces preferred first).
        """
        H, C = models.ConductorHardwareInterfaces, models.Conductor
        since = datetime.datetime.now(datetime.timezone.utc).replace(
            tzinfo=None) - datetime.timedelta(seconds=interval)
        seen = sa.func.coalesce(C.updated_at, C.created_at)
        stmt = (sa.select(C.hostname, H.hardware_type, H.interface_type,
                          H.interface_name, H.default)
                .join(C, C.id == H.conductor_id)
                .where(C.online.is_(True), seen >= since)
                .order_by(C.hostname, H.id))
        with self._reader() as session:
            return [dict(r._mapping) for r in session.execute(stmt)]
