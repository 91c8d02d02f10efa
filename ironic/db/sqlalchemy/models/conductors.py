"""The conductors and the hardware interfaces each one serves."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ironic.db.sqlalchemy.models.base import Base
from ironic.db.sqlalchemy.types import JSONList


class Conductor(Base):
    __tablename__ = "conductors"
    __table_args__ = (
        sa.UniqueConstraint("hostname", name="uniq_conductors0hostname"),
        sa.Index("conductor_group_online_idx", "conductor_group", "online"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    hostname: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    drivers: Mapped[list] = mapped_column(JSONList, default=list)
    online: Mapped[bool] = mapped_column(sa.Boolean, default=True,
                                         nullable=False)
    conductor_group: Mapped[str] = mapped_column(
        sa.String(255), nullable=False, default="", server_default="")


class ConductorHardwareInterfaces(Base):
    __tablename__ = "conductor_hardware_interfaces"
    __table_args__ = (
        sa.UniqueConstraint("conductor_id", "hardware_type", "interface_type",
                            "interface_name",
                            name="uniq_conductorhardwareinterfaces0"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    conductor_id: Mapped[int] = mapped_column(
        sa.Integer,
        sa.ForeignKey("conductors.id", ondelete="CASCADE",
                      name="conductor_hardware_interfaces_conductor_id_fk"),
        nullable=False)
    hardware_type: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    interface_type: Mapped[str] = mapped_column(sa.String(16), nullable=False)
    interface_name: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    default: Mapped[bool] = mapped_column(sa.Boolean, default=False,
                                          nullable=False)
