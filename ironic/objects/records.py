"""Resources kept as plain rows: deploy templates and runbooks.

They have no behaviour of their own beyond validation, which the API does;
the API reads and writes their rows as the database returns them, through
a ``Records`` store here (the one door to ``ironic.db``). Runbooks also
carry traits.
"""

from __future__ import annotations

from typing import Any, Iterable

from ironic import interfaces
from ironic.db import api as db_api
from ironic.db.sqlalchemy import tables
from ironic.objects.base import (
    ARRAY,
    BOOLEAN,
    INTEGER,
    WRITE,
    Field,
    object_field,
    timestamps,
    uuid_field,
)


class Records:
    """Get, list, save and destroy the rows of one resource."""

    def __init__(self, kind: str, table: str) -> None:
        #: The resource's name in the db API's ``*_record`` functions.
        self.kind = kind
        self.table = table

    def get(self, ident: str, *, by_name: bool = False) -> Any:
        """The row with this UUID (or name); NotFound when none."""
        return db_api.get_instance().get_record(
            self.kind, ident, "name" if by_name else "uuid")

    def list(self, criteria: Iterable[tuple[str, Any]] = (),
             **page: Any) -> list:
        """A page of rows meeting the ``(column, value)`` criteria."""
        return db_api.get_instance().get_record_list(
            self.kind, tables.conditions(self.table, criteria), **page)

    def save(self, values: dict, record_id: int | None = None) -> Any:
        """Create a row (no ``record_id``) or update one; the row saved."""
        return db_api.get_instance().save_record(self.kind, values,
                                                 record_id)

    def destroy(self, record_id: int) -> None:
        db_api.get_instance().destroy_record(self.kind, record_id)


def _extra(since: int) -> Field:
    return object_field(since, "Free-form operator data.", WRITE,
                        body_null=False)


def _steps(since: int, order_key: str, doc: str) -> Field:
    """A list of steps, each naming an interface, a step, its arguments
    and (``order_key``) where it runs."""
    step = {
        "type": "object",
        "properties": {
            "interface": {"type": "string",
                          "enum": list(interfaces.STEP_TYPES)},
            "step": {"type": "string", "minLength": 1, "maxLength": 255},
            "args": {"type": "object"},
            order_key: {"type": "integer", "minimum": 0},
        },
        "required": ["interface", "step", "args", order_key],
        "additionalProperties": False,
    }
    return Field(since, type=ARRAY, nullable=False, default=[], write=WRITE,
                 body_null=False, schema={"minItems": 1, "items": step},
                 doc=doc)


def _name(since: int, doc: str) -> Field:
    return Field(since, nullable=False, min_length=1, max_length=255,
                 write=WRITE, doc=doc)


DEPLOY_TEMPLATE_FIELDS: dict[str, Field] = {
    "uuid": uuid_field(55, "Unique UUID."),
    "name": _name(55, "Unique name: the trait that selects it."),
    "steps": _steps(55, "priority", "Deploy steps it adds."),
    "extra": _extra(55),
    **timestamps(55),
}

RUNBOOK_FIELDS: dict[str, Field] = {
    "uuid": uuid_field(92, "Unique UUID."),
    "name": _name(92, "Unique name."),
    "steps": _steps(92, "order", "Steps it runs, in order."),
    "disable_ramdisk": Field(92, type=BOOLEAN, nullable=False, default=False,
                             write=WRITE, body_null=False,
                             doc="Run without booting the agent."),
    "public": Field(92, type=BOOLEAN, nullable=False, default=False,
                    write=WRITE, body_null=False,
                    doc="Whether every project may use it."),
    "owner": Field(92, max_length=255, write=WRITE,
                   doc="Project owning it."),
    # The column is TEXT; the API bounds it.
    "description": Field(112, max_length=4096, write=WRITE,
                         doc="Free-form description."),
    "extra": _extra(92),
    **timestamps(92),
}

DEPLOY_TEMPLATES = Records("deploy_template", "DeployTemplate")


def deploy_templates_named(names: Iterable[str]) -> list[Any]:
    """The deploy templates whose names are among ``names`` (a node's
    instance traits), in one query."""
    return db_api.get_instance().get_deploy_templates_by_names(names)
RUNBOOKS = Records("runbook", "Runbook")


def runbook_traits(runbook_ids: Iterable[int]) -> dict[int, list[str]]:
    """{runbook id: its traits} for these runbooks."""
    return db_api.get_instance().get_runbook_traits(list(runbook_ids))


def set_runbook_traits(runbook_id: int, traits: Iterable[str], *,
                       replace: bool = True) -> None:
    """Make ``traits`` the runbook's traits (or add them: replace=False)."""
    db_api.get_instance().set_runbook_traits(runbook_id, traits,
                                             replace=replace)


def delete_runbook_trait(runbook_id: int, trait: str) -> None:
    """Remove one trait of the runbook (nothing when it lacks it)."""
    db_api.get_instance().delete_runbook_trait(runbook_id, trait)


class VolumeRecords(Records):
    """Volume connectors or targets: rows of a node, by UUID."""

    def create(self, values: dict) -> Any:
        return self.save(values)

    def update(self, record_id: int, values: dict) -> Any:
        return self.save(values, record_id)


#: What a volume connector's ``type`` may be.
CONNECTOR_TYPES = ("iqn", "ip", "mac", "wwnn", "wwpn", "port", "portgroup")

VOLUME_CONNECTOR_FIELDS: dict[str, Field] = {
    "uuid": uuid_field(32, "Unique UUID."),
    "node_id": Field(None, type=INTEGER, nullable=False,
                     doc="Database id of its node."),
    "type": Field(32, nullable=False, max_length=32, write=WRITE,
                  schema={"enum": list(CONNECTOR_TYPES)},
                  doc="Kind of connector (iqn, wwpn, ...)."),
    "connector_id": _name(32, "The connector's identifier of that kind."),
    "extra": _extra(32),
    **timestamps(32),
}

VOLUME_TARGET_FIELDS: dict[str, Field] = {
    "uuid": uuid_field(32, "Unique UUID."),
    "node_id": Field(None, type=INTEGER, nullable=False,
                     doc="Database id of its node."),
    "volume_type": Field(32, nullable=False, min_length=1, max_length=64,
                         write=WRITE, doc="Kind of volume (iscsi, ...)."),
    "properties": object_field(32, "How to reach the volume.", WRITE,
                               body_null=False),
    "boot_index": Field(32, type=INTEGER, nullable=False, write=WRITE,
                        schema={"minimum": 0},
                        doc="Place in the node's boot order."),
    "volume_id": Field(32, nullable=False, min_length=1, max_length=36,
                       write=WRITE, doc="The volume's identifier."),
    "extra": _extra(32),
    **timestamps(32),
}

#: The typed fields of the resources kept as plain rows, by model name.
FIELDS_BY_TABLE: dict[str, dict[str, Field]] = {
    "DeployTemplate": DEPLOY_TEMPLATE_FIELDS, "Runbook": RUNBOOK_FIELDS,
    "VolumeConnector": VOLUME_CONNECTOR_FIELDS,
    "VolumeTarget": VOLUME_TARGET_FIELDS,
}

VOLUME_CONNECTORS = VolumeRecords("volume_connector", "VolumeConnector")
VOLUME_TARGETS = VolumeRecords("volume_target", "VolumeTarget")
