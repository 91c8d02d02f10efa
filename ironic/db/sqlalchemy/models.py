"""SQLAlchemy models: the database schema, nothing else.

Column names follow the Bare Metal API field names so the API, the objects
and the database speak about the same things. The alembic history under
``alembic/versions`` must produce exactly this schema; a test compares them.
"""

import datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from ironic.db.sqlalchemy.types import (
    JSONDict,
    JSONList,
    LongJSONDict,
    LongJSONList,
)


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


class Base(DeclarativeBase):
    # Each table extends it into a tuple of constraints and these options.
    __table_args__: Any = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}

    created_at: Mapped[datetime.datetime | None] = mapped_column(
        DateTime, default=_utcnow)
    updated_at: Mapped[datetime.datetime | None] = mapped_column(
        DateTime, onupdate=_utcnow)


class Chassis(Base):
    __tablename__ = "chassis"
    __table_args__ = (UniqueConstraint("uuid", name="uniq_chassis0uuid"),
                      Base.__table_args__)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    extra: Mapped[dict] = mapped_column(JSONDict, default=dict)
    description: Mapped[str | None] = mapped_column(String(255))


class Conductor(Base):
    __tablename__ = "conductors"
    __table_args__ = (
        UniqueConstraint("hostname", name="uniq_conductors0hostname"),
        Index("conductor_group_online_idx", "conductor_group", "online"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    hostname: Mapped[str] = mapped_column(String(255), nullable=False)
    drivers: Mapped[list] = mapped_column(JSONList, default=list)
    online: Mapped[bool] = mapped_column(Boolean, default=True,
                                         nullable=False)
    conductor_group: Mapped[str] = mapped_column(
        String(255), nullable=False, default="", server_default="")


class ConductorHardwareInterfaces(Base):
    __tablename__ = "conductor_hardware_interfaces"
    __table_args__ = (
        UniqueConstraint("conductor_id", "hardware_type", "interface_type",
                         "interface_name",
                         name="uniq_conductorhardwareinterfaces0"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    conductor_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("conductors.id", ondelete="CASCADE",
                            name="conductor_hardware_interfaces_conductor_id_fk"),
        nullable=False)
    hardware_type: Mapped[str] = mapped_column(String(255), nullable=False)
    interface_type: Mapped[str] = mapped_column(String(16), nullable=False)
    interface_name: Mapped[str] = mapped_column(String(255), nullable=False)
    default: Mapped[bool] = mapped_column(Boolean, default=False,
                                          nullable=False)


class Node(Base):
    __tablename__ = "nodes"
    __table_args__ = (
        UniqueConstraint("uuid", name="uniq_nodes0uuid"),
        UniqueConstraint("instance_uuid", name="uniq_nodes0instance_uuid"),
        UniqueConstraint("name", name="uniq_nodes0name"),
        Index("provision_state_idx", "provision_state"),
        Index("reservation_idx", "reservation"),
        Index("conductor_affinity_idx", "conductor_affinity"),
        Index("driver_idx", "driver"),
        Index("conductor_group_idx", "conductor_group"),
        Index("owner_idx", "owner"),
        Index("lessee_idx", "lessee"),
        Index("resource_class_idx", "resource_class"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    name: Mapped[str | None] = mapped_column(String(255))
    chassis_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("chassis.id", name="nodes_chassis_id_fk"))
    instance_uuid: Mapped[str | None] = mapped_column(String(36))
    instance_name: Mapped[str | None] = mapped_column(String(255))
    driver: Mapped[str] = mapped_column(String(255), nullable=False)
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

    power_state: Mapped[str | None] = mapped_column(String(15))
    target_power_state: Mapped[str | None] = mapped_column(String(15))
    provision_state: Mapped[str | None] = mapped_column(String(15))
    target_provision_state: Mapped[str | None] = mapped_column(String(15))
    provision_updated_at: Mapped[datetime.datetime | None] = mapped_column(
        DateTime)
    last_error: Mapped[str | None] = mapped_column(Text)
    console_enabled: Mapped[bool] = mapped_column(Boolean, default=False)
    maintenance: Mapped[bool] = mapped_column(Boolean, default=False)
    maintenance_reason: Mapped[str | None] = mapped_column(Text)
    fault: Mapped[str | None] = mapped_column(String(255))
    reservation: Mapped[str | None] = mapped_column(String(255))
    conductor_affinity: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("conductors.id", name="nodes_conductor_affinity_fk"))
    conductor_group: Mapped[str] = mapped_column(
        String(255), nullable=False, default="", server_default="")
    inspection_started_at: Mapped[datetime.datetime | None] = mapped_column(
        DateTime)
    inspection_finished_at: Mapped[datetime.datetime | None] = mapped_column(
        DateTime)

    resource_class: Mapped[str | None] = mapped_column(String(80))
    owner: Mapped[str | None] = mapped_column(String(255))
    lessee: Mapped[str | None] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(Text)
    automated_clean: Mapped[bool | None] = mapped_column(Boolean)
    protected: Mapped[bool] = mapped_column(Boolean, default=False,
                                            server_default="0",
                                            nullable=False)
    protected_reason: Mapped[str | None] = mapped_column(Text)
    retired: Mapped[bool | None] = mapped_column(Boolean, default=False,
                                                 server_default="0")
    retired_reason: Mapped[str | None] = mapped_column(Text)
    allocation_id: Mapped[int | None] = mapped_column(Integer)
    boot_mode: Mapped[str | None] = mapped_column(String(16))
    secure_boot: Mapped[bool | None] = mapped_column(Boolean)
    shard: Mapped[str | None] = mapped_column(String(255))
    parent_node: Mapped[str | None] = mapped_column(String(36))
    health: Mapped[str | None] = mapped_column(String(255))
    disable_power_off: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default="0", nullable=False)
    auto_discovered: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default="0", nullable=False)

    bios_interface: Mapped[str | None] = mapped_column(String(255))
    boot_interface: Mapped[str | None] = mapped_column(String(255))
    console_interface: Mapped[str | None] = mapped_column(String(255))
    deploy_interface: Mapped[str | None] = mapped_column(String(255))
    firmware_interface: Mapped[str | None] = mapped_column(String(255))
    inspect_interface: Mapped[str | None] = mapped_column(String(255))
    management_interface: Mapped[str | None] = mapped_column(String(255))
    network_interface: Mapped[str | None] = mapped_column(String(255))
    power_interface: Mapped[str | None] = mapped_column(String(255))
    raid_interface: Mapped[str | None] = mapped_column(String(255))
    rescue_interface: Mapped[str | None] = mapped_column(String(255))
    storage_interface: Mapped[str | None] = mapped_column(String(255))
    vendor_interface: Mapped[str | None] = mapped_column(String(255))


class Allocation(Base):
    """A request for a node with a resource class and traits (1.52)."""

    __tablename__ = "allocations"
    __table_args__ = (
        UniqueConstraint("uuid", name="uniq_allocations0uuid"),
        UniqueConstraint("name", name="uniq_allocations0name"),
        Index("allocations_state_idx", "state"),
        Index("allocations_node_id_idx", "node_id"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    name: Mapped[str | None] = mapped_column(String(255))
    node_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("nodes.id", name="allocations_node_id_fk"))
    #: allocating, active or error.
    state: Mapped[str] = mapped_column(String(15), nullable=False)
    owner: Mapped[str | None] = mapped_column(String(255))
    last_error: Mapped[str | None] = mapped_column(Text)
    resource_class: Mapped[str | None] = mapped_column(String(80))
    traits: Mapped[list] = mapped_column(JSONList, default=list)
    #: UUIDs of the only nodes that may be picked (empty: any).
    candidate_nodes: Mapped[list] = mapped_column(JSONList, default=list)
    extra: Mapped[dict] = mapped_column(JSONDict, default=dict)
    #: Conductor group the allocation is processed in (its conductor's).
    conductor_affinity: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("conductors.id",
                            name="allocations_conductor_affinity_fk"))


class NodeTrait(Base):
    __tablename__ = "node_traits"
    __table_args__ = (Index("node_traits_idx", "trait"),
                      Base.__table_args__)

    node_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("nodes.id", ondelete="CASCADE",
                            name="node_traits_node_id_fk"), primary_key=True)
    trait: Mapped[str] = mapped_column(String(255), primary_key=True)


class NodeTag(Base):
    __tablename__ = "node_tags"
    __table_args__ = (Index("node_tags_idx", "tag"), Base.__table_args__)

    node_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("nodes.id", ondelete="CASCADE",
                            name="node_tags_node_id_fk"), primary_key=True)
    tag: Mapped[str] = mapped_column(String(255), primary_key=True)


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


class VolumeConnector(Base):
    """How a node reaches remote storage (an initiator identity)."""

    __tablename__ = "volume_connectors"
    __table_args__ = (
        UniqueConstraint("uuid", name="uniq_volumeconnectors0uuid"),
        UniqueConstraint("type", "connector_id",
                         name="uniq_volumeconnectors0type0connector_id"),
        Index("volume_connectors_node_id_idx", "node_id"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    node_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("nodes.id", ondelete="CASCADE",
                            name="volume_connectors_node_id_fk"),
        nullable=False)
    type: Mapped[str] = mapped_column(String(32), nullable=False)
    connector_id: Mapped[str] = mapped_column(String(255), nullable=False)
    extra: Mapped[dict] = mapped_column(JSONDict, nullable=False,
                                        default=dict)


class VolumeTarget(Base):
    """A remote volume attached to a node, in boot order."""

    __tablename__ = "volume_targets"
    __table_args__ = (
        UniqueConstraint("uuid", name="uniq_volumetargets0uuid"),
        UniqueConstraint("node_id", "boot_index",
                         name="uniq_volumetargets0node_id0boot_index"),
        Index("volume_targets_node_id_idx", "node_id"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    node_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("nodes.id", ondelete="CASCADE",
                            name="volume_targets_node_id_fk"),
        nullable=False)
    volume_type: Mapped[str] = mapped_column(String(64), nullable=False)
    properties: Mapped[dict] = mapped_column(JSONDict, nullable=False,
                                             default=dict)
    boot_index: Mapped[int] = mapped_column(Integer, nullable=False)
    volume_id: Mapped[str] = mapped_column(String(36), nullable=False)
    extra: Mapped[dict] = mapped_column(JSONDict, nullable=False,
                                        default=dict)


class BIOSSetting(Base):
    """One BIOS setting of a node as its BIOS interface last read it."""

    __tablename__ = "bios_settings"
    __table_args__ = (Base.__table_args__,)

    node_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("nodes.id", ondelete="CASCADE",
                            name="bios_settings_node_id_fk"),
        primary_key=True)
    name: Mapped[str] = mapped_column(String(255), primary_key=True)
    value: Mapped[str | None] = mapped_column(Text)
    attribute_type: Mapped[str | None] = mapped_column(String(255))
    allowable_values: Mapped[list] = mapped_column(JSONList, default=list)
    lower_bound: Mapped[int | None] = mapped_column(Integer)
    max_length: Mapped[int | None] = mapped_column(Integer)
    min_length: Mapped[int | None] = mapped_column(Integer)
    read_only: Mapped[bool | None] = mapped_column(Boolean)
    reset_required: Mapped[bool | None] = mapped_column(Boolean)
    unique: Mapped[bool | None] = mapped_column(Boolean)
    upper_bound: Mapped[int | None] = mapped_column(Integer)


class NodeHistory(Base):
    """An event in a node's life (errors mostly), newest last."""

    __tablename__ = "node_history"
    __table_args__ = (
        UniqueConstraint("uuid", name="uniq_nodehistory0uuid"),
        Index("history_node_id_idx", "node_id"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    node_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("nodes.id", ondelete="CASCADE",
                            name="node_history_node_id_fk"),
        nullable=False)
    conductor: Mapped[str | None] = mapped_column(String(255))
    event_type: Mapped[str | None] = mapped_column(String(255))
    severity: Mapped[str | None] = mapped_column(String(255))
    event: Mapped[str | None] = mapped_column(Text)
    user: Mapped[str | None] = mapped_column(String(32))
    project: Mapped[str | None] = mapped_column(String(80))
    # Where the node was when the event happened, and for how long.
    state: Mapped[str | None] = mapped_column(String(255))
    target_provision_state: Mapped[str | None] = mapped_column(String(255))
    duration_seconds: Mapped[int | None] = mapped_column(Integer)


class DeployTemplate(Base):
    """Deploy steps applied to nodes whose traits include its name."""

    __tablename__ = "deploy_templates"
    __table_args__ = (
        UniqueConstraint("uuid", name="uniq_deploytemplates0uuid"),
        UniqueConstraint("name", name="uniq_deploytemplates0name"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    #: [{"interface", "step", "args", "priority"}, ...] in the given order.
    steps: Mapped[list] = mapped_column(JSONList, default=list)
    extra: Mapped[dict] = mapped_column(JSONDict, default=dict)


class FirmwareComponent(Base):
    """Firmware version of one component of a node, as last read."""

    __tablename__ = "firmware_information"
    __table_args__ = (
        UniqueConstraint("node_id", "component",
                         name="uniq_firmwareinformation0node_id0component"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    node_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("nodes.id", ondelete="CASCADE",
                            name="firmware_information_node_id_fk"),
        nullable=False)
    component: Mapped[str] = mapped_column(String(255), nullable=False)
    initial_version: Mapped[str] = mapped_column(String(255),
                                                 nullable=False)
    current_version: Mapped[str | None] = mapped_column(String(255))
    last_version_flashed: Mapped[str | None] = mapped_column(String(255))
    vendor: Mapped[str | None] = mapped_column(String(255))
    model: Mapped[str | None] = mapped_column(String(255))
    serial_number: Mapped[str | None] = mapped_column(String(255))


class Runbook(Base):
    """A named, ordered list of steps projects may run on their nodes."""

    __tablename__ = "runbooks"
    __table_args__ = (
        UniqueConstraint("uuid", name="uniq_runbooks0uuid"),
        UniqueConstraint("name", name="uniq_runbooks0name"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    #: [{"interface", "step", "args", "order"}, ...]
    steps: Mapped[list] = mapped_column(JSONList, default=list)
    disable_ramdisk: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default="0", nullable=False)
    public: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default="0", nullable=False)
    owner: Mapped[str | None] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(Text)
    extra: Mapped[dict] = mapped_column(JSONDict, default=dict)


class RunbookTrait(Base):
    __tablename__ = "runbook_traits"
    __table_args__ = (Base.__table_args__,)

    runbook_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("runbooks.id", ondelete="CASCADE",
                            name="runbook_traits_runbook_id_fk"),
        primary_key=True)
    trait: Mapped[str] = mapped_column(String(255), primary_key=True)


class NodeInventory(Base):
    """What the last in-band inspection of a node collected.

    ``inventory_data`` is the hardware inventory exactly as the ramdisk sent
    it (never changed by inspection hooks); ``plugin_data`` is everything
    else the ramdisk sent plus what the hooks derived from it.
    """

    __tablename__ = "node_inventory"
    __table_args__ = (
        Index("inventory_node_id_idx", "node_id"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    inventory_data: Mapped[dict] = mapped_column(LongJSONDict, default=dict)
    plugin_data: Mapped[dict] = mapped_column(LongJSONDict, default=dict)
    node_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("nodes.id", ondelete="CASCADE",
                            name="node_inventory_node_id_fk"),
        nullable=False)


class InspectionRule(Base):
    """Conditions on inspection data and the actions taken when they hold.

    ``conditions`` and ``actions`` are stored as the API accepted them
    (``[{"op", "args", "loop"?, "multiple"?}, ...]``); rules of a phase run
    by descending ``priority`` when inspection data is processed.
    """

    __tablename__ = "inspection_rules"
    __table_args__ = (
        UniqueConstraint("uuid", name="uniq_inspection_rules0uuid"),
        Index("inspection_rule_phase_idx", "phase"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    priority: Mapped[int] = mapped_column(
        Integer, default=0, server_default="0", nullable=False)
    description: Mapped[str | None] = mapped_column(String(255))
    sensitive: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default="0", nullable=False)
    phase: Mapped[str] = mapped_column(
        String(16), default="main", server_default="main", nullable=False)
    conditions: Mapped[list] = mapped_column(LongJSONList, default=list)
    actions: Mapped[list] = mapped_column(LongJSONList, default=list)
