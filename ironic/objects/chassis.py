"""The Chassis object: a named group of nodes."""

from __future__ import annotations

from ironic.common import exception
from ironic.db import api as db_api
from ironic.objects.base import (
    WRITE,
    Field,
    IronicObject,
    object_field,
    timestamps,
    uuid_field,
)


class Chassis(IronicObject, db_name="chassis", table="Chassis"):
    fields = {
        "uuid": uuid_field(1, "Unique UUID of the chassis."),
        "description": Field(1, max_length=255, write=WRITE,
                             doc="Free-form description."),
        "extra": object_field(1, "Free-form operator data.", WRITE),
        **timestamps(1),
    }

    _not_found = exception.ChassisNotFound
    _not_found_arg = "chassis"

    @classmethod
    def get_by_uuid(cls, uuid: str) -> Chassis:
        """The chassis with exactly this UUID; ChassisNotFound if none."""
        return cls.from_db(db_api.get_instance().get_chassis(uuid))
