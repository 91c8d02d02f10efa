"""Queries of ports and port groups.

A mixin of ``Connection``. A port's MAC address, UUID and name are each
unique, and so are a port group's: which one a write clashed with decides
the API's 409 message.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironic.common import exception
from ironic.db.sqlalchemy import models, rows


def port_conflict(e: db_exc.DBDuplicateEntry, values: dict
                  ) -> exception.IronicException:
    """The exception for a port write that broke a unique constraint."""
    # oslo.db names the violated columns; the message is never searched,
    # as values can contain anything (a port named "eth0address").
    cols = set(e.columns or ())
    if "address" in cols:
        return exception.MACAlreadyExists(mac=values.get("address"))
    if "name" in cols:
        return exception.Conflict(
            f"A port with name {values.get('name')} already exists.")
    return exception.PortAlreadyExists(uuid=values.get("uuid"))


def portgroup_conflict(e: db_exc.DBDuplicateEntry, values: dict
                       ) -> exception.IronicException:
    """The exception for a port group write that broke a unique
    constraint."""
    cols = set(e.columns or ())
    if "address" in cols:
        return exception.PortgroupMACAlreadyExists(mac=values.get("address"))
    if "name" in cols:
        return exception.PortgroupDuplicateName(name=values.get("name"))
    return exception.PortgroupAlreadyExists(uuid=values.get("uuid"))


class PortQueries(rows.RowQueries):
    """Create, read, update and delete ports and port groups."""

    # ports -------------------------------------------------------------

    def create_port(self, values: dict):
        return self._insert_row(models.Port, values, port_conflict)

    def get_port(self, value, column: str = "uuid"):
        """The port whose ``column`` (id, uuid, address, name) is
        ``value``."""
        return self._get_row(models.Port, exception.PortNotFound(port=value),
                             getattr(models.Port, column) == value)

    def get_port_list(self, filters: Iterable = (), **kwargs) -> list:
        return self._list(models.Port, filters=filters, **kwargs)

    def node_ids_with_port_addresses(self, addresses: Sequence[str]
                                     ) -> set[int]:
        """Ids of the nodes owning ports with any of ``addresses``."""
        rows = self.get_port_list(
            filters=[models.Port.address.in_(list(addresses))],
            columns=["id", "node_id"], limit=None)
        return {r["node_id"] for r in rows}

    def get_ports_of_node(self, node_id: int) -> list:
        return self.get_port_list(filters=[models.Port.node_id == node_id])

    def update_port(self, port_id: int, values: dict):
        return self._update_row(models.Port, port_id, values,
                                exception.PortNotFound(port=port_id),
                                port_conflict)

    def destroy_port(self, port_id: int) -> None:
        self._destroy_row(models.Port, port_id,
                          exception.PortNotFound(port=port_id))

    # port groups -------------------------------------------------------

    def create_portgroup(self, values: dict):
        return self._insert_row(models.Portgroup, values, portgroup_conflict)

    def get_portgroup(self, value, column: str = "uuid"):
        """The port group whose ``column`` (id, uuid, name) is ``value``."""
        PG = models.Portgroup
        return self._get_row(PG, exception.PortgroupNotFound(portgroup=value),
                             getattr(PG, column) == value)

    def get_portgroup_list(self, filters: Iterable = (), **kwargs) -> list:
        return self._list(models.Portgroup, filters=filters, **kwargs)

    def get_portgroups_of_node(self, node_id: int) -> list:
        return self.get_portgroup_list(
            filters=[models.Portgroup.node_id == node_id])

    def update_portgroup(self, pg_id: int, values: dict):
        return self._update_row(models.Portgroup, pg_id, values,
                                exception.PortgroupNotFound(portgroup=pg_id),
                                portgroup_conflict)

    def destroy_portgroup(self, pg_id: int) -> None:
        P = models.Port
        self._destroy_row(
            models.Portgroup, pg_id,
            exception.PortgroupNotFound(portgroup=pg_id),
            used_by=sa.select(P.id).where(P.portgroup_id == pg_id),
            in_use=exception.PortgroupNotEmpty(portgroup=pg_id))
