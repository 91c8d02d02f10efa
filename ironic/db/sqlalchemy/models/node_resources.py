"""What hangs off one node: volumes, BIOS settings, history, firmware
versions and the inspection inventory; all go with their node."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ironic.db.sqlalchemy.models.base import Base
from ironic.db.sqlalchemy.types import JSONDict, JSONList, LongJSONDict


class VolumeConnector(Base):
    """How a node reaches remote storage (an initiator identity)."""

    __tablename__ = "volume_connectors"
    __table_args__ = (
        sa.UniqueConstraint("uuid", name="uniq_volumeconnectors0uuid"),
        sa.UniqueConstraint("type", "connector_id",
                            name="uniq_volumeconnectors0type0connector_id"),
        sa.Index("volume_connectors_node_id_idx", "node_id"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    node_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey("nodes.id", ondelete="CASCADE",
                                  name="volume_connectors_node_id_fk"),
        nullable=False)
    type: Mapped[str] = mapped_column(sa.String(32), nullable=False)
    connector_id: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    extra: Mapped[dict] = mapped_column(JSONDict, nullable=False,
                                        default=dict)


class VolumeTarget(Base):
    """A remote volume attached to a node, in boot order."""

    __tablename__ = "volume_targets"
    __table_args__ = (
        sa.UniqueConstraint("uuid", name="uniq_volumetargets0uuid"),
        sa.UniqueConstraint("node_id", "boot_index",
                            name="uniq_volumetargets0node_id0boot_index"),
        sa.Index("volume_targets_node_id_idx", "node_id"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    node_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey("nodes.id", ondelete="CASCADE",
                                  name="volume_targets_node_id_fk"),
        nullable=False)
    volume_type: Mapped[str] = mapped_column(sa.String(64), nullable=False)
    properties: Mapped[dict] = mapped_column(JSONDict, nullable=False,
                                             default=dict)
    boot_index: Mapped[int] = mapped_column(sa.Integer, nullable=False)
    volume_id: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    extra: Mapped[dict] = mapped_column(JSONDict, nullable=False,
                                        default=dict)


class BIOSSetting(Base):
    """One BIOS setting of a node as its BIOS interface last read it."""

    __tablename__ = "bios_settings"
    __table_args__ = (Base.__table_args__,)

    node_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey("nodes.id", ondelete="CASCADE",
                                  name="bios_settings_node_id_fk"),
        primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    value: Mapped[str | None] = mapped_column(sa.Text)
    attribute_type: Mapped[str | None] = mapped_column(sa.String(255))
    allowable_values: Mapped[list] = mapped_column(JSONList, default=list)
    lower_bound: Mapped[int | None] = mapped_column(sa.Integer)
    max_length: Mapped[int | None] = mapped_column(sa.Integer)
    min_length: Mapped[int | None] = mapped_column(sa.Integer)
    read_only: Mapped[bool | None] = mapped_column(sa.Boolean)
    reset_required: Mapped[bool | None] = mapped_column(sa.Boolean)
    unique: Mapped[bool | None] = mapped_column(sa.Boolean)
    upper_bound: Mapped[int | None] = mapped_column(sa.Integer)


class NodeHistory(Base):
    """An event in a node's life (errors mostly), newest last."""

    __tablename__ = "node_history"
    __table_args__ = (
        sa.UniqueConstraint("uuid", name="uniq_nodehistory0uuid"),
        sa.Index("history_node_id_idx", "node_id"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    node_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey("nodes.id", ondelete="CASCADE",
                                  name="node_history_node_id_fk"),
        nullable=False)
    conductor: Mapped[str | None] = mapped_column(sa.String(255))
    event_type: Mapped[str | None] = mapped_column(sa.String(255))
    severity: Mapped[str | None] = mapped_column(sa.String(255))
    event: Mapped[str | None] = mapped_column(sa.Text)
    user: Mapped[str | None] = mapped_column(sa.String(32))
    project: Mapped[str | None] = mapped_column(sa.String(80))
    # Where the node was when the event happened, and for how long.
    state: Mapped[str | None] = mapped_column(sa.String(255))
    target_provision_state: Mapped[str | None] = mapped_column(sa.String(255))
    duration_seconds: Mapped[int | None] = mapped_column(sa.Integer)


class FirmwareComponent(Base):
    """Firmware version of one component of a node, as last read."""

    __tablename__ = "firmware_information"
    __table_args__ = (
        sa.UniqueConstraint("node_id", "component",
                            name="uniq_firmwareinformation0node_id0component"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    node_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey("nodes.id", ondelete="CASCADE",
                                  name="firmware_information_node_id_fk"),
        nullable=False)
    component: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    initial_version: Mapped[str] = mapped_column(sa.String(255),
                                                 nullable=False)
    current_version: Mapped[str | None] = mapped_column(sa.String(255))
    last_version_flashed: Mapped[str | None] = mapped_column(sa.String(255))
    vendor: Mapped[str | None] = mapped_column(sa.String(255))
    model: Mapped[str | None] = mapped_column(sa.String(255))
    serial_number: Mapped[str | None] = mapped_column(sa.String(255))


class NodeInventory(Base):
    """What the last in-band inspection of a node collected.

    ``inventory_data`` is the hardware inventory exactly as the ramdisk sent
    it (never changed by inspection hooks); ``plugin_data`` is everything
    else the ramdisk sent plus what the hooks derived from it.
    """

    __tablename__ = "node_inventory"
    __table_args__ = (
        sa.Index("inventory_node_id_idx", "node_id"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    inventory_data: Mapped[dict] = mapped_column(LongJSONDict, default=dict)
    plugin_data: Mapped[dict] = mapped_column(LongJSONDict, default=dict)
    node_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey("nodes.id", ondelete="CASCADE",
                                  name="node_inventory_node_id_fk"),
        nullable=False)
