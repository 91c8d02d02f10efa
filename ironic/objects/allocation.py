"""The Allocation object: a request for a node (API 1.52)."""

from __future__ import annotations

from typing import Any, Sequence

from ironic.common import exception, utils
from ironic.db import api as db_api
from ironic.objects.base import (
    ARRAY,
    CREATE,
    INTEGER,
    WRITE,
    Field,
    IronicObject,
    object_field,
    timestamps,
    uuid_field,
)

ALLOCATING = "allocating"
ACTIVE = "active"
ERROR = "error"
STATES = (ALLOCATING, ACTIVE, ERROR)
_STRINGS = {"items": {"type": "string"}}


class Allocation(IronicObject, db_name="allocation",
                 table="Allocation"):
    fields = {
        "uuid": uuid_field(52, "Unique UUID of the allocation."),
        "name": Field(52, min_length=1, max_length=255, write=WRITE,
                      doc="Unique logical name of the allocation."),
        "node_id": Field(None, type=INTEGER,
                         doc="Database id of the allocated node."),
        "state": Field(52, nullable=False, default=ALLOCATING, max_length=15,
                       schema={"enum": list(STATES)},
                       doc="allocating, active or error."),
        "last_error": Field(52, doc="Why the allocation failed."),
        "resource_class": Field(52, min_length=1, max_length=80,
                                write=CREATE,
                                doc="Resource class requested."),
        "traits": Field(52, type=ARRAY, nullable=False, default=[],
                        write=CREATE, schema=_STRINGS,
                        doc="Traits the node must have."),
        "candidate_nodes": Field(52, type=ARRAY, nullable=False, default=[],
                                 write=CREATE, schema=_STRINGS,
                                 doc="UUIDs of the only nodes to pick from."),
        "extra": object_field(52, "Free-form user data.", WRITE),
        "owner": Field(60, max_length=255, write=CREATE,
                       doc="Project the allocation is for."),
        "conductor_affinity": Field(None, type=INTEGER,
                                    doc="Conductor processing it (db id)."),
        **timestamps(52),
    }

    _not_found = exception.AllocationNotFound
    _not_found_arg = "allocation"
    _is_name = staticmethod(utils.is_valid_logical_name)

    @classmethod
    def claim(cls, alloc_id: int, previous: int | None,
              conductor_id: int) -> bool:
        """Make conductor ``conductor_id`` process an allocation still
        allocating under conductor ``previous`` (one UPDATE, compare and
        swap: of several claimers one wins); True when this one did."""
        return db_api.get_instance().claim_allocation(alloc_id, previous,
                                                      conductor_id)

    @staticmethod
    def node_candidates(*, resource_class: str, traits: Sequence[str] = (),
                        candidate_nodes: Sequence[str] = (),
                        owner: str | None = None,
                        conductor_group: str | None = None
                        ) -> list[dict[str, Any]]:
        """id, uuid and name of the nodes an allocation could get now
        (available, unlocked, free, of the class, with every trait)."""
        return db_api.get_instance().allocation_candidates(
            resource_class=resource_class, traits=traits,
            candidate_nodes=candidate_nodes, owner=owner,
            conductor_group=conductor_group)
