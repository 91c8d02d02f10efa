"""What a node's BIOS and firmware interfaces last read from its BMC.

Drivers receive a task, never a database session: they hand the settings
they read to these functions, which keep one row per BIOS setting or
firmware component of the node (``GET /v1/nodes/{node}/bios`` and
``/firmware`` serve them).
"""

from __future__ import annotations

from ironic.db import api as db_api

#: The optional registry facts of a BIOS setting, as the API names them.
BIOS_REGISTRY_FIELDS = ("attribute_type", "allowable_values", "lower_bound",
                        "max_length", "min_length", "read_only",
                        "reset_required", "unique", "upper_bound")


def replace_bios_settings(node_id: int, settings: list[dict]) -> None:
    """Make ``settings`` ({"name", "value", registry fields...}) the
    node's cached BIOS settings, dropping those no longer reported."""
    rows = []
    for setting in settings:
        row = {"name": setting["name"],
               "value": None if setting.get("value") is None
               else str(setting["value"])}
        row.update({f: setting.get(f) for f in BIOS_REGISTRY_FIELDS})
        row["allowable_values"] = row["allowable_values"] or []
        rows.append(row)
    db_api.get_instance().set_bios_settings(node_id, rows)


def bios_settings(node_id: int) -> dict[str, str | None]:
    """The cached BIOS settings of a node, name to value."""
    return {row.name: row.value
            for row in db_api.get_instance().get_bios_settings(node_id)}


def firmware_components(node_id: int) -> dict[str, dict]:
    """The recorded firmware components of a node, by component name."""
    return {row.component: {"initial_version": row.initial_version,
                            "current_version": row.current_version,
                            "last_version_flashed": row.last_version_flashed}
            for row in db_api.get_instance().get_firmware_components(
                node_id)}


def replace_firmware_components(node_id: int,
                                components: list[dict]) -> None:
    """Record components ({"component", "initial_version",
    "current_version", "last_version_flashed"})."""
    db_api.get_instance().set_firmware_components(node_id, components)
