"""Ports (a node's NICs) and port groups (bonds of them)."""

from sqlalchemy import (
    Boolean,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from ironic.db.sqlalchemy.models.base import Base
from ironic.db.sqlalchemy.types import JSONDict


class Portgroup(Base):
    __tablename__ = "portgroups"
    __table_args__ = (
        UniqueConstraint("uuid", name="uniq_portgroups0uuid"),
        UniqueConstraint("address", name="uniq_portgroups0address"),
        UniqueConstraint("name", name="uniq_portgroups0name"),
        Index("portgroup_node_id_idx", "node_id"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    name: Mapped[str | None] = mapped_column(String(255))
    node_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("nodes.id", name="portgroups_node_id_fk"),
        nullable=False)
    address: Mapped[str | None] = mapped_column(String(64))
    extra: Mapped[dict] = mapped_column(JSONDict, default=dict)
    internal_info: Mapped[dict] = mapped_column(JSONDict, default=dict)
    standalone_ports_supported: Mapped[bool] = mapped_column(Boolean,
                                                             default=True)
    mode: Mapped[str | None] = mapped_column(String(255))
    properties: Mapped[dict] = mapped_column(JSONDict, default=dict)
    physical_network: Mapped[str | None] = mapped_column(String(64))
    category: Mapped[str | None] = mapped_column(String(80))
    dynamic_portgroup: Mapped[bool | None] = mapped_column(Boolean,
                                                           default=False)


class Port(Base):
    __tablename__ = "ports"
    __table_args__ = (
        UniqueConstraint("address", name="uniq_ports0address"),
        UniqueConstraint("uuid", name="uniq_ports0uuid"),
        UniqueConstraint("name", name="uniq_ports0name"),
        Index("port_node_id_idx", "node_id"),
        Index("port_portgroup_id_idx", "portgroup_id"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    name: Mapped[str | None] = mapped_column(String(255))
    address: Mapped[str] = mapped_column(String(64), nullable=False)
    node_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("nodes.id", name="ports_node_id_fk"),
        nullable=False)
    portgroup_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("portgroups.id", name="ports_portgroup_id_fk"))
    extra: Mapped[dict] = mapped_column(JSONDict, default=dict)
    internal_info: Mapped[dict] = mapped_column(JSONDict, default=dict)
    local_link_connection: Mapped[dict] = mapped_column(JSONDict, default=dict)
    pxe_enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    physical_network: Mapped[str | None] = mapped_column(String(64))
    is_smartnic: Mapped[bool] = mapped_column(Boolean, default=False)
    description: Mapped[str | None] = mapped_column(Text)
    vendor: Mapped[str | None] = mapped_column(String(32))
    category: Mapped[str | None] = mapped_column(String(80))
    # Rows older than the column are available too (server default).
    available_for_dynamic_portgroup: Mapped[bool] = mapped_column(
        Boolean, default=True, server_default="1", nullable=False)
