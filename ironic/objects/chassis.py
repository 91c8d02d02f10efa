"""The Chassis object: a named group of nodes."""

from __future__ import annotations

from ironic.common import exception
from ironic.db import api as db_api
from ironic.objects.base import (
    CREATE,
    OBJECT,
    UUID,
    WRITE,
    Field,
    IronicObject,
    timestamps,
)


class Chassis(IronicObject, db_name="chassis", table="Chassis"):
    fields = {
        "uuid": Field(1, type=UUID, nullable=False, write=CREATE,
                      body_null=True, doc="Unique UUID of the chassis."),
        "description": Field(1, max_length=255, write=WRITE,
                             doc="Free-form description."),
        "extra": Field(1, type=OBJECT, nullable=False, default={},
                       write=WRITE, doc="Free-form operator data."),
        **timestamps(1),
    }

    _not_found = exception.ChassisNotFound
    _not_found_arg = "chassis"

    @classmethod
    def get_by_uuid(cls, uuid: str) -> Chassis:
        """The chassis with exactly this UUID; ChassisNotFound if none."""
        return cls.from_db(db_api.get_instance().get_chassis(uuid))
