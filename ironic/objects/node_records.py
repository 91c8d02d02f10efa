"""Records kept beside a node, read by the API as the database returns them.

BIOS settings, firmware components, history events and the inspection
inventory have no behaviour of their own: the API shows their columns as
they are. These functions are their door to the database, so the API never
imports it (the layer contracts in pyproject.toml).
"""

from __future__ import annotations

from typing import Any

from ironic.db import api as db_api


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

