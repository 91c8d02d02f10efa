"""The Port object: one network interface of a node."""

from __future__ import annotations

from ironic.common import exception
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

_SWITCH_KEY = {"type": "string", "minLength": 1, "maxLength": 255}
#: The keys of a port's local_link_connection (which API version accepts
#: each is the API's business).
LOCAL_LINK_CONNECTION = {
    "properties": {
        "switch_id": _SWITCH_KEY, "port_id": _SWITCH_KEY,
        "switch_info": _SWITCH_KEY, "hostname": _SWITCH_KEY,
        "network_type": {"enum": ["managed", "unmanaged"]},
        # OVN VTEP switches
        "vtep-logical-switch": _SWITCH_KEY,
        "vtep-physical-switch": _SWITCH_KEY,
    },
    "additionalProperties": False,
}


class Port(IronicObject, db_name="port", table="Port"):
    fields = {
        "uuid": uuid_field(1, "Unique UUID of the port."),
        # Checked as a MAC or InfiniBand GUID, not by length.
        "address": Field(1, nullable=False, write=WRITE,
                         doc="MAC (or InfiniBand GUID) address."),
        "node_id": Field(None, type=INTEGER, nullable=False,
                         doc="Database id of the node it belongs to."),
        "portgroup_id": Field(None, type=INTEGER,
                              doc="Database id of its port group."),
        "extra": object_field(1, "Free-form operator data.", WRITE),
        "internal_info": object_field(18,
                                      "Private state kept by the service."),
        "local_link_connection": object_field(
            19, "Switch port the interface is cabled to.", WRITE,
            schema=LOCAL_LINK_CONNECTION),
        "pxe_enabled": Field(19, type=BOOLEAN, nullable=False, default=True,
                             write=WRITE, body_also=("string",),
                             doc="Whether the port may PXE boot the node."),
        "physical_network": Field(34, max_length=64, write=WRITE,
                                  doc="Physical network it is on."),
        "is_smartnic": Field(53, type=BOOLEAN, nullable=False,
                             default=False, write=WRITE,
                             body_also=("string",),
                             doc="Whether this is a Smart NIC port."),
        "name": Field(88, min_length=1, max_length=255, write=WRITE,
                      doc="Unique name of the port."),
        # The column is TEXT; the API bounds it.
        "description": Field(97, max_length=4096, write=WRITE,
                             doc="Free-form description."),
        "vendor": Field(100, max_length=32, write=WRITE,
                        doc="Vendor of the network interface."),
        "category": Field(101, max_length=80, write=WRITE,
                          doc="Operator-defined category."),
        # Strictly a JSON boolean (1.111), unlike the older flags.
        "available_for_dynamic_portgroup": Field(
            111, type=BOOLEAN, nullable=False, default=True, write=WRITE,
            body_null=False,
            doc="Whether the port may join a dynamic port group."),
        **timestamps(1),
    }

    _not_found = exception.PortNotFound
    _not_found_arg = "port"

    @staticmethod
    def _is_name(value: object) -> bool:
        # Any other string: port names are free-form.
        return isinstance(value, str) and bool(value)

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
        return cls.from_db(db_api.get_instance().get_port(address,
                                                          "address"))
