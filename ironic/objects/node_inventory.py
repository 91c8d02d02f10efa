"""The inventory an inspection recorded for a node.

Inspect interfaces hand what they found to ``record``, never a database
session; ``GET /v1/nodes/{node}/inventory`` serves the last record.
"""

from __future__ import annotations

from ironic.db import api as db_api


def record(node_id: int, inventory: dict, plugin_data: dict) -> None:
    """Make ``inventory`` and ``plugin_data`` the node's inventory,
    replacing the previous inspection's."""
    db_api.get_instance().set_node_inventory(node_id, inventory, plugin_data)
