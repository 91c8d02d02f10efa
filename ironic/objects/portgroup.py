"""The Portgroup object: ports of one node bonded together."""

from __future__ import annotations

from ironic.common import exception, utils
from ironic.db import api as db_api
from ironic.objects.base import Field, IronicObject


class Portgroup(IronicObject):
    fields = {
        "uuid": Field(23, doc="Unique UUID of the port group."),
        "name": Field(23, doc="Unique logical name of the port group."),
        "address": Field(23, doc="MAC address of the bond."),
        "node_id": Field(None, doc="Database id of the node it belongs to."),
        "extra": Field(23, default={}, doc="Free-form operator data."),
        "internal_info": Field(23, default={},
                               doc="Private state kept by the service."),
        "standalone_ports_supported": Field(
            23, default=True,
            doc="Whether its ports may also be used on their own."),
        "mode": Field(26, doc="Bonding mode, e.g. active-backup or 802.3ad."),
        "properties": Field(26, default={},
                            doc="Bonding options (miimon, xmit_hash...)."),
        "physical_network": Field(102, doc="Physical network it is on."),
        "category": Field(103, doc="Operator-defined category."),
        "dynamic_portgroup": Field(
            111, default=False,
            doc="Whether the service assembles this group itself from the "
                "ports available to dynamic port groups (read-only)."),
        "created_at": Field(23, doc="Creation time."),
        "updated_at": Field(23, doc="Last update time."),
    }

    _db_create = "create_portgroup"
    _db_update = "update_portgroup"
    _db_destroy = "destroy_portgroup"
    _table = "Portgroup"
    _db_list = "get_portgroup_list"

    @classmethod
    def list_for_node(cls, node_id: int) -> list[Portgroup]:
        """Every port group of the node (by database id)."""
        return [cls.from_db(row) for row in
                db_api.get_instance().get_portgroups_of_node(node_id)]

    @classmethod
    def get(cls, ident: str | int) -> Portgroup:
        """Load by database id, UUID or logical name."""
        dbapi = db_api.get_instance()
        if isinstance(ident, int):
            return cls.from_db(dbapi.get_portgroup_by_id(ident))
        if utils.is_uuid_like(ident):
            return cls.from_db(dbapi.get_portgroup_by_uuid(
                utils.normalize_uuid(ident)))
        if utils.is_valid_logical_name(ident):
            return cls.from_db(dbapi.get_portgroup_by_name(ident))
        raise exception.PortgroupNotFound(portgroup=ident)
