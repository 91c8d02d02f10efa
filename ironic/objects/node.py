"""The Node object."""

from __future__ import annotations

from typing import Any, Iterable

from ironic import interfaces
from ironic.common import exception, scrub, utils
from ironic.db import api as db_api
from ironic.objects.base import (
    ARRAY,
    BOOLEAN,
    CREATE,
    INTEGER,
    READ_ONLY,
    TIME,
    UUID,
    WRITE,
    Field,
    IronicObject,
    object_field,
    timestamps,
    uuid_field,
)

# The bound of most short strings a client writes (their columns').
_NAME = 255


def _flag(since: int, doc: str, default: bool = False,
          write: str | None = WRITE) -> Field:
    """A true/false column a client sets as a JSON boolean (no null)."""
    return Field(since, type=BOOLEAN, nullable=False, default=default,
                 write=write, body_null=False, doc=doc)


class Node(IronicObject):
    fields = {
        "uuid": uuid_field(1, "Unique UUID of the node."),
        "name": Field(5, max_length=_NAME, write=WRITE,
                      doc="Unique logical name of the node."),
        "chassis_id": Field(None, type=INTEGER,
                            doc="Database id of the chassis."),
        "instance_uuid": Field(1, type=UUID, write=WRITE,
                               doc="UUID of the instance deployed on it."),
        "instance_name": Field(104, max_length=_NAME, write=WRITE,
                               doc="Name of the instance."),
        "driver": Field(1, nullable=False, min_length=1, max_length=_NAME,
                        write=WRITE, doc="Hardware type of the node."),
        "driver_info": object_field(1, "How to reach the BMC.", WRITE),
        "driver_internal_info": object_field(3, "The driver's private state."),
        "instance_info": object_field(1, "What to deploy.", WRITE),
        "properties": object_field(1, "Physical properties.", WRITE),
        "extra": object_field(1, "Free-form operator data.", WRITE),
        "raid_config": object_field(12, "Current RAID config."),
        "target_raid_config": object_field(12, "RAID config to apply.",
                                           CREATE),
        "network_data": object_field(66, "Static network configuration.",
                                     WRITE),
        "clean_step": object_field(7, "Cleaning step running now."),
        "deploy_step": object_field(44, "Deploy step running now."),
        "service_step": object_field(87, "Service step running now."),
        "power_state": Field(1, max_length=15, doc="Current power state."),
        "target_power_state": Field(1, max_length=15,
                                    doc="Power state being set."),
        "provision_state": Field(1, max_length=15,
                                 doc="Current provision state."),
        "target_provision_state": Field(1, max_length=15,
                                        doc="Provision state aimed for."),
        "provision_updated_at": Field(1, type=TIME,
                                      doc="When provision_state changed."),
        "last_error": Field(1, doc="Last error of an operation."),
        "console_enabled": _flag(1, "Whether the console is enabled.",
                                 write=READ_ONLY),
        "maintenance": _flag(1, "Whether the node is in maintenance."),
        "maintenance_reason": Field(1, write=WRITE,
                                    doc="Why it is in maintenance."),
        "fault": Field(42, max_length=_NAME,
                       doc="Fault that put it in maintenance."),
        "reservation": Field(1, max_length=_NAME,
                             doc="Conductor holding the node's lock."),
        "conductor_affinity": Field(None, type=INTEGER,
                                    doc="Conductor that prepared the node."),
        "conductor_group": Field(
            46, nullable=False, default="", max_length=_NAME, write=WRITE,
            schema={"pattern": r"^[a-zA-Z0-9_\-\.:]*$"},
            doc="Conductor group serving the node."),
        "inspection_started_at": Field(6, type=TIME,
                                       doc="When inspection started."),
        "inspection_finished_at": Field(6, type=TIME,
                                        doc="When inspection ended."),
        "resource_class": Field(21, max_length=80, write=WRITE,
                                doc="Resource class for scheduling."),
        "owner": Field(50, max_length=_NAME, write=WRITE,
                       doc="Project owning the node."),
        "lessee": Field(65, max_length=_NAME, write=WRITE,
                        doc="Project leasing the node."),
        # The column is TEXT; the API bounds it.
        "description": Field(51, max_length=4096, write=WRITE,
                             doc="Free-form description."),
        "automated_clean": Field(47, type=BOOLEAN, write=WRITE,
                                 doc="Per-node automated clean switch."),
        "protected": _flag(48, "Whether the instance is protected."),
        "protected_reason": Field(48, write=WRITE,
                                  doc="Why it is protected."),
        "retired": Field(61, type=BOOLEAN, default=False, write=WRITE,
                         doc="Whether it is retired."),
        "retired_reason": Field(61, write=WRITE, doc="Why it is retired."),
        "allocation_id": Field(None, type=INTEGER,
                               doc="Database id of its allocation."),
        "boot_mode": Field(75, max_length=16, doc="Current boot mode."),
        "secure_boot": Field(75, type=BOOLEAN,
                             doc="Whether secure boot is on."),
        "shard": Field(82, max_length=_NAME, write=WRITE,
                       doc="Shard the node belongs to."),
        # A client may name the parent by name; it is stored by UUID.
        "parent_node": Field(83, type=UUID, write=WRITE,
                             doc="UUID of the parent node."),
        "disable_power_off": _flag(95, "Never power the node off."),
        # Not in Ironic 39's API (it keeps the flag in the plugin data);
        # the inspection merge spec puts it beside continue_inspection.
        "auto_discovered": _flag(84, "Whether auto-discovery enrolled it "
                                     "(read-only).", write=READ_ONLY),
        "health": Field(109, max_length=_NAME,
                        doc="Health the BMC reports (OK, Warning, "
                            "Critical)."),
        **timestamps(1),
        # Kept in the node_traits table, not a column of nodes.
        "traits": Field(37, type=ARRAY, default=[],
                        doc="Traits of the node."),
    }
    fields.update({
        column: Field(interfaces.NODE_FIELD_SINCE[kind], max_length=_NAME,
                      write=WRITE, doc=f"{kind} interface of the node.")
        for kind, column in interfaces.FIELDS.items()})

    #: Typed here as save() writes it back.
    last_error: str | None

    def save(self) -> None:
        # last_error is read through the API: whatever exception text was
        # put there, no token or password in it.
        if "last_error" in self._changed and self.last_error:
            self.last_error = scrub.text(self.last_error)
        super().save()

    _db_create = "create_node"
    _db_update = "update_node"
    _db_destroy = "destroy_node"
    _table = "Node"
    _db_list = "get_node_list"

    @classmethod
    def _computed_fields(cls) -> frozenset[str]:
        return frozenset({"traits"})

    @classmethod
    def get(cls, ident: str | int, *, with_traits: bool = False) -> Node:
        """Load by database id, UUID or logical name."""
        if with_traits:
            return cls.snapshot(ident).node()
        row = getattr(db_api.get_instance(),
                      f"get_node_by_{_column_of(ident)}")(ident)
        node = cls.from_db(row)
        object.__setattr__(node, "traits", None)
        return node

    @classmethod
    def as_read_elsewhere(cls, values: dict[str, Any]) -> Node:
        """The node as another service read it (e.g. the API, for a
        conductor): only the fields in ``values``, nothing read here.

        A field not given is absent (reading it raises AttributeError)
        rather than defaulted, so that no decision is taken on a value
        nobody read. Whoever writes with it must make the write
        conditional on what was read (``update_if_unreserved``).
        """
        unknown = set(values) - set(cls.fields) - {"id"}
        if unknown:
            raise ValueError(f"not node fields: {', '.join(sorted(unknown))}")
        node = cls.__new__(cls)
        node.__dict__.update(values)
        node.__dict__.setdefault("id", None)
        node.__dict__["_changed"] = set()
        return node

    @classmethod
    def list_by_ids(cls, ids: Iterable[int]) -> list[Node]:
        """The nodes with these database ids (whole rows, one query,
        without traits), by id."""
        return [cls.from_db(row) for row in
                db_api.get_instance().get_nodes_matching(
                    [("ids", ids)], limit=None)]

    @classmethod
    def get_by_port_addresses(cls, addresses: list[str]) -> Node:
        """The one node owning ports with any of ``addresses`` (the
        ramdisk's lookup); NodeNotFound when none does or several do."""
        return cls.from_db(
            db_api.get_instance().get_node_by_port_addresses(addresses))

    @classmethod
    def snapshot(cls, ident: str | int) -> NodeSnapshot:
        """The node and its traits as read now, not yet made an object."""
        return NodeSnapshot(db_api.get_instance().fetch_node_with_traits(
            _column_of(ident), ident))

    def create(self) -> None:
        traits = self.traits or []
        db_obj = db_api.get_instance().create_node(
            self._db_values(self.fields), traits)
        self._refresh_from(db_obj)
        object.__setattr__(self, "traits", list(traits))

    @classmethod
    def create_with_port(cls, values: dict[str, Any],
                         port_values: dict[str, Any]) -> None:
        """Create a node and one port of it in one transaction: of two
        creations naming the same MAC address one fails (MACAlreadyExists).
        """
        db_api.get_instance().create_node_with_port(values, port_values)

    def load_traits(self) -> list[str]:
        traits = db_api.get_instance().get_node_traits(self.id)
        object.__setattr__(self, "traits", traits)
        return traits

    # Traits are written at once, not through save(): the API edits them
    # one request at a time, apart from the node's other fields.
    def set_traits(self, traits: list[str]) -> None:
        db_api.get_instance().set_node_traits(self.id, traits)

    def add_trait(self, trait: str) -> None:
        db_api.get_instance().add_node_trait(self.id, trait)

    def remove_trait(self, trait: str) -> None:
        """NodeTraitNotFound when the node does not have ``trait``."""
        db_api.get_instance().delete_node_trait(self.id, trait)

    def update_if_unreserved(self, values: dict[str, Any],
                             unchanged: Iterable[str]) -> bool:
        """Write ``values`` (fields) in one conditional UPDATE, without
        taking the node's lock: only while nobody holds it and the fields
        named in ``unchanged`` (and those written) are still as this
        object read them. True when written (the object then shows it);
        False leaves row and object as they were.
        """
        names = set(unchanged) | set(values)
        expected = {name: getattr(self, name) for name in names}
        written_at = db_api.get_instance().update_node_if_unreserved(
            self.id, dict(values), expected)
        if written_at is None:
            return False
        for name, value in values.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "updated_at", written_at)
        return True

    def child_uuids(self) -> list[str]:
        """UUIDs of the nodes whose parent_node is this node."""
        return db_api.get_instance().get_child_node_uuids(self.uuid)


def list_rows(criteria: Iterable[tuple[str, Any]], *, columns: list[str],
              limit: int | None = None, marker: str | None = None,
              sort_key: str = "id", sort_dir: str = "asc"
              ) -> list[dict[str, Any]]:
    """A page of the nodes meeting every ``(name, value)`` criterion (see
    ``ironic.db.sqlalchemy.node_criteria``), as mappings of ``columns``:
    the list views render these rows without building objects."""
    return db_api.get_instance().get_nodes_matching(
        criteria, columns=columns, limit=limit, marker=marker,
        sort_key=sort_key, sort_dir=sort_dir)


def uuids_for(idents: list[str]) -> dict[str, str]:
    """{given UUID or name: node UUID} for the nodes that exist."""
    return db_api.get_instance().node_uuids_for(idents)


def traits_for(node_ids: list[int]) -> dict[int, list[str]]:
    """{node id: its traits} for the nodes of a list page."""
    return db_api.get_instance().get_traits_for_nodes(node_ids)


def _column_of(ident: str | int) -> str:
    if isinstance(ident, int):
        return "id"
    if utils.is_uuid_like(ident):
        return "uuid"
    if utils.is_valid_logical_name(ident):
        return "name"
    raise exception.NodeNotFound(node=ident)


class NodeSnapshot:
    """One read of a node's row and traits.

    Two snapshots with equal ``stamp`` read the same stored values of the
    node and its traits. The stamp is None when that cannot be told (the
    read was retried through SQLAlchemy, or a value did not pickle).
    Turning the rows into a ``Node`` (JSON decoding, datetimes) waits until
    ``node()`` is called.
    """

    __slots__ = ("_fetched",)

    def __init__(self, fetched: Any) -> None:
        # The database layer's ``prepared.Fetched``.
        self._fetched = fetched

    @property
    def stamp(self) -> bytes | None:
        return self._fetched.stamp()

    def column(self, name: str) -> Any:
        """A plain column (id, uuid, driver, ...) as stored."""
        return self._fetched.value(name)

    def node(self) -> Node:
        row, traits = db_api.get_instance().node_and_traits(self._fetched)
        node = Node.from_db(row)
        object.__setattr__(node, "traits", traits)
        return node
