"""Nodes, the chassis they may sit in, and their traits and tags."""

import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ironic.db.sqlalchemy.models.base import Base
from ironic.db.sqlalchemy.types import JSONDict, LongJSONDict


class Chassis(Base):
    __tablename__ = "chassis"
    __table_args__ = (sa.UniqueConstraint("uuid", name="uniq_chassis0uuid"),
                      Base.__table_args__)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    extra: Mapped[dict] = mapped_column(JSONDict, default=dict)
    description: Mapped[str | None] = mapped_column(sa.String(255))


class Node(Base):
    __tablename__ = "nodes"
    __table_args__ = (
        sa.UniqueConstraint("uuid", name="uniq_nodes0uuid"),
        sa.UniqueConstraint("instance_uuid", name="uniq_nodes0instance_uuid"),
        sa.UniqueConstraint("name", name="uniq_nodes0name"),
        sa.Index("provision_state_idx", "provision_state"),
        sa.Index("reservation_idx", "reservation"),
        sa.Index("conductor_affinity_idx", "conductor_affinity"),
        sa.Index("driver_idx", "driver"),
        sa.Index("conductor_group_idx", "conductor_group"),
        sa.Index("owner_idx", "owner"),
        sa.Index("lessee_idx", "lessee"),
        sa.Index("resource_class_idx", "resource_class"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    name: Mapped[str | None] = mapped_column(sa.String(255))
    chassis_id: Mapped[int | None] = mapped_column(
        sa.Integer, sa.ForeignKey("chassis.id", name="nodes_chassis_id_fk"))
    instance_uuid: Mapped[str | None] = mapped_column(sa.String(36))
    instance_name: Mapped[str | None] = mapped_column(sa.String(255))
    driver: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    driver_info: Mapped[dict] = mapped_column(JSONDict, default=dict)
    driver_internal_info: Mapped[dict] = mapped_column(LongJSONDict, default=dict)
    instance_info: Mapped[dict] = mapped_column(LongJSONDict, default=dict)
    properties: Mapped[dict] = mapped_column(JSONDict, default=dict)
    extra: Mapped[dict] = mapped_column(JSONDict, default=dict)
    raid_config: Mapped[dict] = mapped_column(JSONDict, default=dict)
    target_raid_config: Mapped[dict] = mapped_column(JSONDict, default=dict)
    network_data: Mapped[dict] = mapped_column(JSONDict, default=dict)
    clean_step: Mapped[dict] = mapped_column(JSONDict, default=dict)
    deploy_step: Mapped[dict] = mapped_column(JSONDict, default=dict)
    service_step: Mapped[dict] = mapped_column(JSONDict, default=dict)

    power_state: Mapped[str | None] = mapped_column(sa.String(15))
    target_power_state: Mapped[str | None] = mapped_column(sa.String(15))
    provision_state: Mapped[str | None] = mapped_column(sa.String(15))
    target_provision_state: Mapped[str | None] = mapped_column(sa.String(15))
    provision_updated_at: Mapped[datetime.datetime | None] = mapped_column(
        sa.DateTime)
    last_error: Mapped[str | None] = mapped_column(sa.Text)
    console_enabled: Mapped[bool] = mapped_column(sa.Boolean, default=False)
    maintenance: Mapped[bool] = mapped_column(sa.Boolean, default=False)
    maintenance_reason: Mapped[str | None] = mapped_column(sa.Text)
    fault: Mapped[str | None] = mapped_column(sa.String(255))
    reservation: Mapped[str | None] = mapped_column(sa.String(255))
    conductor_affinity: Mapped[int | None] = mapped_column(
        sa.Integer, sa.ForeignKey("conductors.id",
                                  name="nodes_conductor_affinity_fk"))
    conductor_group: Mapped[str] = mapped_column(
        sa.String(255), nullable=False, default="", server_default="")
    inspection_started_at: Mapped[datetime.datetime | None] = mapped_column(
        sa.DateTime)
    inspection_finished_at: Mapped[datetime.datetime | None] = mapped_column(
        sa.DateTime)

    resource_class: Mapped[str | None] = mapped_column(sa.String(80))
    owner: Mapped[str | None] = mapped_column(sa.String(255))
    lessee: Mapped[str | None] = mapped_column(sa.String(255))
    description: Mapped[str | None] = mapped_column(sa.Text)
    automated_clean: Mapped[bool | None] = mapped_column(sa.Boolean)
    protected: Mapped[bool] = mapped_column(sa.Boolean, default=False,
                                            server_default="0",
                                            nullable=False)
    protected_reason: Mapped[str | None] = mapped_column(sa.Text)
    retired: Mapped[bool | None] = mapped_column(sa.Boolean, default=False,
                                                 server_default="0")
    retired_reason: Mapped[str | None] = mapped_column(sa.Text)
    allocation_id: Mapped[int | None] = mapped_column(sa.Integer)
    boot_mode: Mapped[str | None] = mapped_column(sa.String(16))
    secure_boot: Mapped[bool | None] = mapped_column(sa.Boolean)
    shard: Mapped[str | None] = mapped_column(sa.String(255))
    parent_node: Mapped[str | None] = mapped_column(sa.String(36))
    health: Mapped[str | None] = mapped_column(sa.String(255))
    disable_power_off: Mapped[bool] = mapped_column(
        sa.Boolean, default=False, server_default="0", nullable=False)
    auto_discovered: Mapped[bool] = mapped_column(
        sa.Boolean, default=False, server_default="0", nullable=False)

    bios_interface: Mapped[str | None] = mapped_column(sa.String(255))
    boot_interface: Mapped[str | None] = mapped_column(sa.String(255))
    console_interface: Mapped[str | None] = mapped_column(sa.String(255))
    deploy_interface: Mapped[str | None] = mapped_column(sa.String(255))
    firmware_interface: Mapped[str | None] = mapped_column(sa.String(255))
    inspect_interface: Mapped[str | None] = mapped_column(sa.String(255))
    management_interface: Mapped[str | None] = mapped_column(sa.String(255))
    network_interface: Mapped[str | None] = mapped_column(sa.String(255))
    power_interface: Mapped[str | None] = mapped_column(sa.String(255))
    raid_interface: Mapped[str | None] = mapped_column(sa.String(255))
    rescue_interface: Mapped[str | None] = mapped_column(sa.String(255))
    storage_interface: Mapped[str | None] = mapped_column(sa.String(255))
    vendor_interface: Mapped[str | None] = mapped_column(sa.String(255))


class NodeTrait(Base):
    __tablename__ = "node_traits"
    __table_args__ = (sa.Index("node_traits_idx", "trait"),
                      Base.__table_args__)

    node_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey("nodes.id", ondelete="CASCADE",
                                  name="node_traits_node_id_fk"),
        primary_key=True)
    trait: Mapped[str] = mapped_column(sa.String(255), primary_key=True)


class NodeTag(Base):
    __tablename__ = "node_tags"
    __table_args__ = (sa.Index("node_tags_idx", "tag"), Base.__table_args__)

    node_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey("nodes.id", ondelete="CASCADE",
                                  name="node_tags_node_id_fk"),
        primary_key=True)
    tag: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
