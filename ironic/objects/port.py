"""The Port object: one network interface of a node."""

from __future__ import annotations

from ironic.common import exception, utils
from ironic.db import api as db_api
from ironic.objects.base import Field, IronicObject


class Port(IronicObject):
    fields = {
        "uuid": Field(1, doc="Unique UUID of the port."),
        "address": Field(1, doc="MAC (or InfiniBand GUID) address."),
        "node_id": Field(None, doc="Database id of the node it belongs to."),
        "portgroup_id": Field(None, doc="Database id of its port group."),
        "extra": Field(1, default={}, doc="Free-form operator data."),
        "internal_info": Field(18, default={},
                               doc="Private state kept by the service."),
        "local_link_connection": Field(
            19, default={}, doc="Switch port the interface is cabled to."),
        "pxe_enabled": Field(19, default=True,
                             doc="Whether the port may PXE boot the node."),
        "physical_network": Field(34, doc="Physical network it is on."),
        "is_smartnic": Field(53, default=False,
                             doc="Whether this is a Smart NIC port."),
        "name": Field(88, doc="Unique name of the port."),
        "description": Field(97, doc="Free-form description."),
        "vendor": Field(100, doc="Vendor of the network interface."),
        "category": Field(101, doc="Operator-defined category."),
        "available_for_dynamic_portgroup": Field(
            111, default=True,
            doc="Whether the port may join a dynamic port group."),
        "created_at": Field(1, doc="Creation time."),
        "updated_at": Field(1, doc="Last update time."),
    }

    _db_create = "create_port"
    _db_update = "update_port"
    _db_destroy = "destroy_port"
    _table = "Port"
    _db_list = "get_port_list"

    @staticmethod
    def boot_filter_rows(inspection_states) -> list[tuple]:
        """``(address, provision_state, inspect_interface)`` of every port
        (and of port-less nodes in ``inspection_states``), for the PXE
        filter; one query."""
        return db_api.get_instance().get_boot_filter_rows(inspection_states)

    @staticmethod
    def node_ids_with_addresses(addresses: list[str]) -> set[int]:
        """Database ids of the nodes owning ports with any of these
        (normalized) MAC addresses; one query."""
        return db_api.get_instance().node_ids_with_port_addresses(addresses)

    @classmethod
    def list_for_node(cls, node_id: int) -> list[Port]:
        """Every port of the node (by database id)."""
        return [cls.from_db(row) for row in
                db_api.get_instance().get_ports_of_node(node_id)]

    @classmethod
    def get_by_address(cls, address: str) -> Port:
        """The port with MAC ``address``; PortNotFound when none has it."""
        return cls.from_db(db_api.get_instance().get_port_by_address(address))

    @classmethod
    def get(cls, ident: str | int) -> Port:
        """Load by database id, UUID or name."""
        dbapi = db_api.get_instance()
        if isinstance(ident, int):
            return cls.from_db(dbapi.get_port_by_id(ident))
        if utils.is_uuid_like(ident):
            return cls.from_db(dbapi.get_port_by_uuid(
                utils.normalize_uuid(ident)))
        if isinstance(ident, str) and ident:
            return cls.from_db(dbapi.get_port_by_name(ident))
        raise exception.PortNotFound(port=ident)
