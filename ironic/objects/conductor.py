"""The Conductor object: one registered conductor service."""

from __future__ import annotations

import builtins

from ironic.conf import CONF
from ironic.db import api as db_api
from ironic.objects.base import ARRAY, BOOLEAN, TIME, Field, IronicObject


class Conductor(IronicObject):
    fields = {
        "hostname": Field(49, nullable=False, max_length=255,
                          doc="Host name the conductor registered as."),
        "conductor_group": Field(49, nullable=False, default="",
                                 max_length=255,
                                 doc="Conductor group it serves."),
        "drivers": Field(49, type=ARRAY, nullable=False, default=[],
                         doc="Hardware types it serves."),
        "online": Field(None, type=BOOLEAN, nullable=False, default=True,
                        doc="False once it unregistered."),
        "created_at": Field(49, type=TIME, doc="First registration time."),
        "updated_at": Field(49, type=TIME, doc="Last heartbeat."),
    }

    _db_create = "register_conductor"
    _db_update = "_unused"
    _db_destroy = "_unused"

    @property
    def alive(self) -> bool:
        """Online with a heartbeat younger than [conductor]heartbeat_timeout."""
        return db_api.get_instance().conductor_alive(
            self, CONF.conductor.heartbeat_timeout)

    @classmethod
    def get_by_hostname(cls, hostname: str) -> Conductor:
        return cls.from_db(db_api.get_instance().get_conductor(hostname))

    @classmethod
    def list(cls, **kwargs) -> builtins.list[Conductor]:
        return [cls.from_db(r) for r in
                db_api.get_instance().list_conductors(**kwargs)]

    @classmethod
    def list_alive(cls) -> builtins.list[Conductor]:
        return [cls.from_db(r) for r in
                db_api.get_instance().get_active_conductors(
                    CONF.conductor.heartbeat_timeout)]

    @classmethod
    def register(cls, hostname: str, conductor_group: str,
                 drivers: builtins.list[str], update_existing: bool = False
                 ) -> Conductor:
        row = db_api.get_instance().register_conductor(
            {"hostname": hostname, "conductor_group": conductor_group,
             "drivers": drivers}, update_existing=update_existing)
        return cls.from_db(row)

    def touch(self, online: bool = True) -> None:
        """Heartbeat; ``online=False`` keeps the conductor out of the ring."""
        db_api.get_instance().touch_conductor(self.hostname, online=online)

    def unregister(self) -> None:
        db_api.get_instance().unregister_conductor(self.hostname)

    @staticmethod
    def record_hardware_interfaces(conductor_id: int,
                                   interfaces: builtins.list[dict]) -> None:
        """Replace the hardware interface records (hardware_type,
        interface_type, interface_name, default) of conductor
        ``conductor_id``."""
        db_api.get_instance().register_conductor_hardware_interfaces(
            conductor_id, interfaces)

    @staticmethod
    def live_hardware() -> builtins.list[dict]:
        """The hardware interface records of the live conductors, each
        with its conductor's hostname, in registration order."""
        return db_api.get_instance().list_live_hardware(
            CONF.conductor.heartbeat_timeout)
