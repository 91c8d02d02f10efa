"""The Portgroup object: ports of one node bonded together."""

from __future__ import annotations

from ironic.common import exception, utils
from ironic.db import api as db_api
from ironic.objects.base import (
    BOOLEAN,
    INTEGER,
    WRITE,
    Field,
    IronicObject,
    object_field,
    timestamps,
    uuid_field,
)


class Portgroup(IronicObject, db_name="portgroup", table="Portgroup"):
    fields = {
        "uuid": uuid_field(23, "Unique UUID of the port group."),
        "name": Field(23, max_length=255, write=WRITE,
                      doc="Unique logical name of the port group."),
        "address": Field(23, write=WRITE, doc="MAC address of the bond."),
        "node_id": Field(None, type=INTEGER, nullable=False,
                         doc="Database id of the node it belongs to."),
        "extra": object_field(23, "Free-form operator data.", WRITE),
        "internal_info": object_field(23,
                                      "Private state kept by the service."),
        "standalone_ports_supported": Field(
            23, type=BOOLEAN, nullable=False, default=True, write=WRITE,
            body_also=("string",),
            doc="Whether its ports may also be used on their own."),
        "mode": Field(26, min_length=1, max_length=255, write=WRITE,
                      doc="Bonding mode, e.g. active-backup or 802.3ad."),
        "properties": object_field(
            26, "Bonding options (miimon, xmit_hash...).", WRITE),
        "physical_network": Field(102, max_length=64, write=WRITE,
                                  doc="Physical network it is on."),
        "category": Field(103, max_length=80, write=WRITE,
                          doc="Operator-defined category."),
        "dynamic_portgroup": Field(
            111, type=BOOLEAN, default=False,
            doc="Whether the service assembles this group itself from the "
                "ports available to dynamic port groups (read-only)."),
        **timestamps(23),
    }

    _not_found = exception.PortgroupNotFound
    _not_found_arg = "portgroup"
    _is_name = staticmethod(utils.is_valid_logical_name)

    @classmethod
    def list_for_node(cls, node_id: int) -> list[Portgroup]:
        """Every port group of the node (by database id)."""
        return [cls.from_db(row) for row in
                db_api.get_instance().get_portgroups_of_node(node_id)]
