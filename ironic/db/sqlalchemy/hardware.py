"""Queries about the hardware types and interfaces conductors serve.

A mixin of ``Connection``: each conductor records the (hardware type,
interface type, interface name, default) it serves (seed 003) when it
starts; the API reads the rows of live conductors to validate node
interfaces and to answer ``/v1/drivers`` without loading any driver.
"""

from __future__ import annotations

from typing import Iterable

import sqlalchemy as sa

from ironic.db.sqlalchemy import engine, models, rows
from ironic.db.sqlalchemy.conductors import alive_clause


class HardwareQueries(rows.RowQueries):

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
                    alive_clause(interval)).distinct())]

    def list_live_hardware(self, interval: int) -> list[dict]:
        """Rows of ``conductor_hardware_interfaces`` of live conductors.

        Each row has hostname, hardware_type, interface_type,
        interface_name and default, in registration order (a conductor
        registers each type's interfaces preferred first).
        """
        H, C = models.ConductorHardwareInterfaces, models.Conductor
        stmt = (sa.select(C.hostname, H.hardware_type, H.interface_type,
                          H.interface_name, H.default)
                .join(C, C.id == H.conductor_id)
                .where(alive_clause(interval))
                .order_by(C.hostname, H.id))
        with self._reader() as session:
            return [dict(r._mapping) for r in session.execute(stmt)]
