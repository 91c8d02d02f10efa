"""Ports (a node's NICs) and port groups (bonds of them)."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ironic.db.sqlalchemy.models.base import Base
from ironic.db.sqlalchemy.types import JSONDict


class Portgroup(Base):
    __tablename__ = "portgroups"
    __table_args__ = (
        sa.UniqueConstraint("uuid", name="uniq_portgroups0uuid"),
        sa.UniqueConstraint("address", name="uniq_portgroups0address"),
        sa.UniqueConstraint("name", name="uniq_portgroups0name"),
        sa.Index("portgroup_node_id_idx", "node_id"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    name: Mapped[str | None] = mapped_column(sa.String(255))
    node_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey("nodes.id", name="portgroups_node_id_fk"),
        nullable=False)
    address: Mapped[str | None] = mapped_column(sa.String(64))
    extra: Mapped[dict] = mapped_column(JSONDict, default=dict)
    internal_info: Mapped[dict] = mapped_column(JSONDict, default=dict)
    standalone_ports_supported: Mapped[bool] = mapped_column(sa.Boolean,
                                                             default=True)
    mode: Mapped[str | None] = mapped_column(sa.String(255))
    properties: Mapped[dict] = mapped_column(JSONDict, default=dict)
    physical_network: Mapped[str | None] = mapped_column(sa.String(64))
    category: Mapped[str | None] = mapped_column(sa.String(80))
    dynamic_portgroup: Mapped[bool | None] = mapped_column(sa.Boolean,
                                                           default=False)


class Port(Base):
    __tablename__ = "ports"
    __table_args__ = (
        sa.UniqueConstraint("address", name="uniq_ports0address"),
        sa.UniqueConstraint("uuid", name="uniq_ports0uuid"),
        sa.UniqueConstraint("name", name="uniq_ports0name"),
        sa.Index("port_node_id_idx", "node_id"),
        sa.Index("port_portgroup_id_idx", "portgroup_id"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    name: Mapped[str | None] = mapped_column(sa.String(255))
    address: Mapped[str] = mapped_column(sa.String(64), nullable=False)
    node_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey("nodes.id", name="ports_node_id_fk"),
        nullable=False)
    portgroup_id: Mapped[int | None] = mapped_column(
        sa.Integer, sa.ForeignKey("portgroups.id",
                                  name="ports_portgroup_id_fk"))
    extra: Mapped[dict] = mapped_column(JSONDict, default=dict)
    internal_info: Mapped[dict] = mapped_column(JSONDict, default=dict)
    local_link_connection: Mapped[dict] = mapped_column(JSONDict, default=dict)
    pxe_enabled: Mapped[bool] = mapped_column(sa.Boolean, default=True)
    physical_network: Mapped[str | None] = mapped_column(sa.String(64))
    is_smartnic: Mapped[bool] = mapped_column(sa.Boolean, default=False)
    description: Mapped[str | None] = mapped_column(sa.Text)
    vendor: Mapped[str | None] = mapped_column(sa.String(32))
    category: Mapped[str | None] = mapped_column(sa.String(80))
    # Rows older than the column are available too (server default).
    available_for_dynamic_portgroup: Mapped[bool] = mapped_column(
        sa.Boolean, default=True, server_default="1", nullable=False)
