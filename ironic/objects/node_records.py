"""Records kept beside a node, read by the API as the database returns them.

BIOS settings, firmware components, history events and the inspection
inventory have no behaviour of their own: the API shows their columns as
they are. These functions are their door to the database, so the API never
imports it (the layer contracts in pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from ironic.db import api as db_api
from ironic.objects.base import (
    ARRAY,
    BOOLEAN,
    INTEGER,
    OBJECT,
    TIME,
    UUID,
    Field,
    timestamps,
)

# What each record holds, typed once: the API's documents of them (and
# the names it may show) come from these. ``since`` is the version of the
# API that first shows the member.

#: One cached BIOS setting (1.40; the registry facts from 1.74).
BIOS_SETTING_FIELDS: dict[str, Field] = {
    "name": Field(40, nullable=False, doc="The setting's name."),
    "value": Field(40, doc="Its value, as a string."),
    "attribute_type": Field(74, doc="Enumeration, String, Integer..."),
    "allowable_values": Field(74, type=ARRAY,
                              schema={"items": {"type": "string"}},
                              doc="The values an enumeration takes."),
    "lower_bound": Field(74, type=INTEGER, doc="An integer's minimum."),
    "max_length": Field(74, type=INTEGER, doc="A string's longest."),
    "min_length": Field(74, type=INTEGER, doc="A string's shortest."),
    "read_only": Field(74, type=BOOLEAN, doc="Whether it can be set."),
    "reset_required": Field(74, type=BOOLEAN,
                            doc="Whether a change needs a reboot."),
    "unique": Field(74, type=BOOLEAN,
                    doc="Whether the value is unique to the node."),
    "upper_bound": Field(74, type=INTEGER, doc="An integer's maximum."),
    **timestamps(40),
}

#: One event of a node's history (1.78; project 1.113, states 1.115).
HISTORY_EVENT_FIELDS: dict[str, Field] = {
    "uuid": Field(78, type=UUID, nullable=False, doc="The event's UUID."),
    "created_at": Field(78, type=TIME, doc="When it happened."),
    "severity": Field(78, doc="ERROR, WARNING or INFO."),
    "event_type": Field(78, doc="What kind of event."),
    "event": Field(78, doc="What happened."),
    "conductor": Field(78, doc="The conductor that recorded it."),
    "user": Field(78, doc="Who caused it."),
    "project": Field(113, doc="The project of who caused it."),
    "state": Field(115, doc="The node's provision state then."),
    "target_provision_state": Field(115, doc="Where the node was going."),
    "duration_seconds": Field(115, type=INTEGER,
                              doc="How long the node was in the state."),
}

#: One firmware component of a node (1.86; its identity from 1.114).
FIRMWARE_COMPONENT_FIELDS: dict[str, Field] = {
    **timestamps(86),
    "component": Field(86, nullable=False, doc="bios, bmc, a NIC..."),
    "initial_version": Field(86, nullable=False,
                             doc="The first version seen."),
    "current_version": Field(86, doc="The version running now."),
    "last_version_flashed": Field(86, doc="The version last installed."),
    "vendor": Field(114, doc="Who made the component."),
    "model": Field(114, doc="Its model."),
    "serial_number": Field(114, doc="Its serial number."),
}

#: What inspection recorded of a node (1.81).
INVENTORY_FIELDS: dict[str, Field] = {
    "inventory": Field(81, type=OBJECT, doc="The hardware found."),
    "plugin_data": Field(81, type=OBJECT,
                         doc="What the inspection hooks added."),
}


def bios_settings(node_id: int) -> list[Any]:
    """The node's cached BIOS setting rows, by name."""
    return db_api.get_instance().get_bios_settings(node_id)


def firmware_components(node_id: int) -> list[Any]:
    """The node's recorded firmware component rows."""
    return db_api.get_instance().get_firmware_components(node_id)


def history(node_id: int, *, limit: int | None, marker: str | None,
            sort_key: str = "id", sort_dir: str = "asc") -> list[Any]:
    """A page of the node's history events (oldest first unless sorted
    otherwise) after the event ``marker`` (its UUID); NotFound for an
    unknown marker, InvalidParameterValue for a column it cannot sort
    by."""
    return db_api.get_instance().get_node_history_list(
        node_id, limit=limit, marker=marker, sort_key=sort_key,
        sort_dir=sort_dir)


def add_history(node_id: int, values: dict[str, Any]) -> None:
    """Append an event (the history table's columns) to the node's
    history."""
    db_api.get_instance().add_node_history(node_id, values)


def history_event(node_id: int, uuid: str) -> Any:
    """One history event of the node; NotFound when it has no such one."""
    return db_api.get_instance().get_node_history_event(node_id, uuid)


def inventory(node_id: int) -> Any:
    """The inventory of the node's last inspection (``inventory_data``,
    ``plugin_data``); NotFound when none was recorded."""
    return db_api.get_instance().get_node_inventory(node_id)

