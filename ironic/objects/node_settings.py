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


#: What the BMC says identifies a firmware component (API 1.114).
FIRMWARE_IDENTITY_FIELDS = ("vendor", "model", "serial_number")


def firmware_components(node_id: int) -> dict[str, dict]:
    """The recorded firmware components of a node, by component name."""
    return {row.component: {"initial_version": row.initial_version,
                            "current_version": row.current_version,
                            "last_version_flashed": row.last_version_flashed,
                            **{f: getattr(row, f)
                               for f in FIRMWARE_IDENTITY_FIELDS}}
            for row in db_api.get_instance().get_firmware_components(
                node_id)}


def replace_firmware_components(node_id: int,
                                components: list[dict]) -> None:
    """Record components ({"component", "initial_version",
    "current_version", "last_version_flashed", identity fields})."""
    db_api.get_instance().set_firmware_components(node_id, components)


def record_firmware(node_id: int, found: dict[str, dict],
                    flashed: set[str] | frozenset[str] = frozenset()
                    ) -> None:
    """Record what a firmware interface read now.

    ``found`` maps a component to {"current_version", identity fields};
    the first version ever seen stays the initial one, and components in
    ``flashed`` were just updated (their version is the last flashed).
    """
    known = firmware_components(node_id)
    rows = []
    for name, now in sorted(found.items()):
        old = known.get(name, {})
        version = now["current_version"]
        rows.append({
            "component": name,
            "initial_version": old.get("initial_version") or version,
            "current_version": version,
            "last_version_flashed": version if name in flashed
            else old.get("last_version_flashed"),
            **{f: now.get(f) for f in FIRMWARE_IDENTITY_FIELDS}})
    replace_firmware_components(node_id, rows)
