"""The public shape of a RAID configuration (``target_raid_config``).

A configuration is ``{"logical_disks": [disk, ...]}``; each disk needs a
``raid_level`` and a ``size_gb`` (a positive integer or ``"MAX"``) and may
narrow how the backing disks are chosen. The schema below is the one
contract every RAID interface validates against; its ``description`` texts
are what ``GET /v1/drivers/{driver}/raid/logical_disk_properties`` shows.
"""

from __future__ import annotations

import functools
from typing import Any

import jsonschema

from ironic.common import exception

RAID_LEVELS = ("JBOD", "0", "1", "2", "5", "6", "1+0", "5+0", "6+0")

LOGICAL_DISK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "raid_level": {
            "type": "string", "enum": list(RAID_LEVELS),
            "description": "RAID level of the logical disk: one of "
                           + ", ".join(f"'{lvl}'" for lvl in RAID_LEVELS)
                           + ". Required."},
        "size_gb": {
            "anyOf": [{"type": "integer", "minimum": 1},
                      {"type": "string", "enum": ["MAX"]}],
            "description": "Size of the logical disk in GiB (an integer), "
                           "or 'MAX' to use the space left. Required."},
        "volume_name": {
            "type": "string",
            "description": "Name of the volume; generated when not given. "
                           "Optional."},
        "is_root_volume": {
            "type": "boolean",
            "description": "Whether the node boots from this logical disk "
                           "(false by default). Optional."},
        "share_physical_disks": {
            "type": "boolean",
            "description": "Whether other logical disks may use the same "
                           "physical disks (false by default). Optional."},
        "disk_type": {
            "type": "string", "enum": ["hdd", "ssd"],
            "description": "Preferred kind of physical disk: 'hdd' or "
                           "'ssd'; any kind when not given. Optional."},
        "interface_type": {
            "type": "string", "enum": ["sata", "scsi", "sas"],
            "description": "Preferred disk interface: 'sata', 'scsi' or "
                           "'sas'; any when not given. Optional."},
        "number_of_physical_disks": {
            "type": "integer", "minimum": 1,
            "description": "How many physical disks back the logical disk; "
                           "the minimum of the RAID level when not given. "
                           "Optional."},
        "controller": {
            "type": "string",
            "description": "RAID controller to create the logical disk on; "
                           "chosen by the driver when not given. Optional."},
        "physical_disks": {
            "type": "array", "items": {"type": "string"},
            "description": "Physical disks to build the logical disk from "
                           "(needs 'controller'); chosen by the driver when "
                           "not given. Optional."},
    },
    "required": ["raid_level", "size_gb"],
    "additionalProperties": False,
    "dependentRequired": {"physical_disks": ["controller"]},
}

# A JSON schema, not an ``objects.base.Body``: it is already the one
# declaration of a configuration (the conductor's RAID interface checks a
# body with it, ``/v1/openapi.json`` shows it, logical_disk_properties
# answers its descriptions), and it must stay one. A RAID interface may
# check against a schema of its own (``raid_schema``: a driver's plug-in
# point, a JSON schema), the API never checks the body itself (the node's
# interface does, in the conductor, in its own words: "Invalid RAID
# configuration at ..."), and this leaf module may not import the objects
# floor where ``Body`` lives.
RAID_CONFIG_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "logical_disks": {"type": "array", "items": LOGICAL_DISK_SCHEMA,
                          "minItems": 1},
    },
    "required": ["logical_disks"],
    "additionalProperties": False,
}


def validate_configuration(config: Any,
                           schema: dict[str, Any] | None = None) -> None:
    """InvalidParameterValue (400) unless ``config`` fits the schema.

    At most one logical disk may be the root volume.
    """
    validator = _default_validator() if schema is None else \
        jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(config))
    if error is not None:
        raise exception.InvalidParameterValue(
            err=f"RAID config validation error: {error.message}")
    roots = [d for d in config["logical_disks"] if d.get("is_root_volume")]
    if len(roots) > 1:
        raise exception.InvalidParameterValue(
            err="Invalid RAID configuration: only one logical disk may have "
                "'is_root_volume' set.")


@functools.lru_cache(maxsize=1)
def _default_validator() -> Any:
    jsonschema.Draft202012Validator.check_schema(RAID_CONFIG_SCHEMA)
    return jsonschema.Draft202012Validator(RAID_CONFIG_SCHEMA)


def logical_disk_properties(schema: dict[str, Any] | None = None
                            ) -> dict[str, str]:
    """{property: description} of the logical disks of ``schema``."""
    disk = (schema or RAID_CONFIG_SCHEMA)["properties"]["logical_disks"][
        "items"]
    return {name: prop.get("description", "")
            for name, prop in disk["properties"].items()}
