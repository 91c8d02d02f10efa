"""SQLAlchemy implementation of the database API.

Queries are written with SQLAlchemy 2 ``select``/``update``/``delete``
statements inside oslo.db enginefacade transactions. Lists select only the
columns they are asked for and page by key (never by offset).
"""

from __future__ import annotations

import functools
import uuid as uuidlib
from typing import Any, Iterable, Sequence

import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironic.common import exception
from ironic.db.sqlalchemy import engine, models, node_criteria, prepared, rows
from ironic.db.sqlalchemy.allocations import AllocationQueries
from ironic.db.sqlalchemy.conductors import ConductorQueries
from ironic.db.sqlalchemy.hardware import HardwareQueries
from ironic.db.sqlalchemy.inspection_rules import InspectionRuleQueries
from ironic.db.sqlalchemy.node_resources import NodeResourceQueries

_reader = engine.reader
_writer = engine.writer
get_engine = engine.get_engine


def dispose() -> None:
    """Forget the engine and the connection object (tests switch DBs)."""
    global _CONNECTION
    engine.dispose()
    _CONNECTION = None


_CONNECTION: Connection | None = None


def get_connection() -> Connection:
    global _CONNECTION
    if _CONNECTION is None:
        _CONNECTION = Connection()
    return _CONNECTION


def _new_uuid() -> str:
    return str(uuidlib.uuid4())


# Columns that may not be used to sort because they hold JSON or are
# otherwise not orderable in a meaningful way.
_UNSORTABLE = {"driver_info", "driver_internal_info", "instance_info",
               "properties", "extra", "raid_config", "target_raid_config",
               "network_data", "clean_step", "deploy_step", "service_step",
               "internal_info", "local_link_connection"}


def _order_and_page(stmt, model, sort_key: str, sort_dir: str,
                    marker_row: Any | None):
    """Order by (sort_key, id) and start after ``marker_row``.

    NULLs sort first ascending and last descending on every backend: the
    ``IS NULL`` term makes the order portable.
    """
    col = getattr(model, sort_key)
    idcol = model.id
    asc = sort_dir == "asc"
    if sort_key == "id":
        stmt = stmt.order_by(idcol.asc() if asc else idcol.desc())
        if marker_row is not None:
            stmt = stmt.where(idcol > marker_row.id if asc
                              else idcol < marker_row.id)
        return stmt
    isnull = col.is_(None)
    if asc:
        stmt = stmt.order_by(isnull.desc(), col.asc(), idcol.asc())
    else:
        stmt = stmt.order_by(isnull.asc(), col.desc(), idcol.desc())
    if marker_row is None:
        return stmt
    mval = getattr(marker_row, sort_key)
    mid = marker_row.id
    if asc:
        if mval is None:
            cond = sa.or_(sa.and_(isnull, idcol > mid), col.is_not(None))
        else:
            cond = sa.or_(col > mval, sa.and_(col == mval, idcol > mid))
    else:
        if mval is None:
            cond = sa.and_(isnull, idcol < mid)
        else:
            cond = sa.or_(col < mval, sa.and_(col == mval, idcol < mid),
                          isnull)
    return stmt.where(cond)


@functools.cache
def _node_query(column: str) -> prepared.PreparedSelect:
    node = models.Node.__table__
    return prepared.PreparedSelect(
        sa.select(node).where(node.c[column] == sa.bindparam("value")))


@functools.cache
def _node_with_traits_query(column: str) -> prepared.PreparedSelect:
    # Built once per column: constructing the statement cost as much as
    # running it.
    node, trait = models.Node.__table__, models.NodeTrait.__table__
    return prepared.PreparedSelect(
        sa.select(node, trait.c.trait.label("node_trait"))
        .select_from(node.outerjoin(trait, trait.c.node_id == node.c.id))
        .where(node.c[column] == sa.bindparam("value"))
        .order_by(trait.c.trait))


# Agents send a handful of MACs; lookups with more take the general path.
_PREPARED_ADDRESSES = 16


@functools.cache
def _node_by_addresses_query(count: int) -> prepared.PreparedSelect:
    # One statement for the ramdisk's lookup, repeated by every agent at
    # every boot. No LIMIT: addresses are unique, so at most ``count``
    # nodes match (more than one means the MACs are ambiguous).
    node, port = models.Node.__table__, models.Port.__table__
    owners = sa.select(port.c.node_id).where(port.c.address.in_(
        [sa.bindparam(f"a{i}") for i in range(count)]))
    return prepared.PreparedSelect(
        sa.select(node).where(node.c.id.in_(owners)))


def _row_to_dict(row) -> dict:
    return dict(row._mapping)


class Connection(ConductorQueries, HardwareQueries, NodeResourceQueries,
                 AllocationQueries, InspectionRuleQueries):
    """All queries of the service."""

    # ------------------------------------------------------------------
    # generic helpers

    def _list(self, model, *, columns: Sequence[str] | None = None,
              filters: Iterable = (), limit: int | None = None,
              marker: str | None = None, sort_key: str = "id",
              sort_dir: str = "asc", marker_not_found=None,
              joins: Iterable = ()) -> list[dict]:
        # Only real columns: getattr() on the class would also find
        # relationships, methods and dunders (AttributeError -> a 500).
        if sort_key in _UNSORTABLE or sort_key not in model.__table__.c:
            raise exception.InvalidParameterValue(
                err=f"The sort_key value \"{sort_key}\" is an invalid field "
                    f"for sorting")
        if sort_dir not in ("asc", "desc"):
            raise exception.InvalidParameterValue(
                err=f"Invalid sort direction: {sort_dir}. Acceptable values "
                    f"are 'asc' or 'desc'")
        if columns:
            # Plain columns need no Session: a Core connection skips the
            # ORM's execution context (about a third of a small page).
            # The marker and the page are two statements; the marker's
            # values are all the page needs from the first.
            with engine.reading() as conn:
                stmt = self._page_statement(
                    model, conn, [getattr(model, c) for c in columns],
                    filters, limit, marker, sort_key, sort_dir,
                    marker_not_found, joins)
                # Plain tuples: a thousand-row page is built noticeably
                # faster than through Row objects.
                return [dict(zip(columns, r, strict=True))
                        for r in conn.execute(stmt).tuples()]
        with _reader() as session:
            stmt = self._page_statement(
                model, session, [model], filters, limit, marker, sort_key,
                sort_dir, marker_not_found, joins)
            out = []
            for (obj,) in session.execute(stmt):
                session.expunge(obj)
                out.append(obj)
            return out

    @staticmethod
    def _page_statement(model, runner, cols: list, filters: Iterable,
                        limit: int | None, marker: str | None,
                        sort_key: str, sort_dir: str, marker_not_found,
                        joins: Iterable) -> sa.Select:
        """The SELECT of one page; ``runner`` (a session or a connection)
        looks the marker up."""
        marker_row = None
        if marker is not None:
            marker_row = runner.execute(
                sa.select(model.id, getattr(model, sort_key)).where(
                    model.uuid == marker)).first()
            if marker_row is None:
                raise marker_not_found or exception.InvalidParameterValue(
                    err=f"Marker {marker} not found")
        stmt = sa.select(*cols)
        for j in joins:
            stmt = stmt.outerjoin(*j) if isinstance(j, tuple) else \
                stmt.outerjoin(j)
        for f in filters:
            stmt = stmt.where(f)
        stmt = _order_and_page(stmt, model, sort_key, sort_dir, marker_row)
        if limit:
            stmt = stmt.limit(limit)
        return stmt

    @staticmethod
    def _translate_integrity(e: db_exc.DBDuplicateEntry, model_name: str,
                             values: dict) -> exception.IronicException:
        # oslo.db parses the violated constraint into column names on every
        # backend (sqlite "nodes.name", MySQL/PostgreSQL "uniq_nodes0name");
        # the message text is never searched because values can contain
        # anything, e.g. a port named "eth0address".
        cols = set(e.columns or ())
        if model_name == "node":
            if "name" in cols:
                return exception.DuplicateName(name=values.get("name"))
            if "instance_uuid" in cols:
                return exception.InstanceAssociated(
                    instance_uuid=values.get("instance_uuid"),
                    node=values.get("uuid"))
            return exception.NodeAlreadyExists(uuid=values.get("uuid"))
        if model_name == "port":
            if "address" in cols:
                return exception.MACAlreadyExists(mac=values.get("address"))
            if "name" in cols:
                return exception.Conflict(
                    f"A port with name {values.get('name')} already exists.")
            return exception.PortAlreadyExists(uuid=values.get("uuid"))
        if model_name == "portgroup":
            if "address" in cols:
                return exception.PortgroupMACAlreadyExists(
                    mac=values.get("address"))
            if "name" in cols:
                return exception.PortgroupDuplicateName(
                    name=values.get("name"))
            return exception.PortgroupAlreadyExists(uuid=values.get("uuid"))
        return exception.ChassisAlreadyExists(uuid=values.get("uuid"))

    def _create(self, model, model_name: str, values: dict):
        return self._insert_row(model, values, self._conflict(model_name))

    def _update(self, model, model_name: str, obj_id: int, values: dict,
                not_found):
        return self._update_row(model, obj_id, values, not_found,
                                self._conflict(model_name))

    @classmethod
    def _conflict(cls, model_name: str) -> rows.Conflict:
        return lambda e, values: cls._translate_integrity(e, model_name,
                                                          values)

    # ------------------------------------------------------------------
    # nodes

    @engine.retry_on_deadlock
    def create_node(self, values: dict, traits: Sequence[str] = ()):
        values = dict(values)
        if not values.get("uuid"):
            values["uuid"] = _new_uuid()
        node = models.Node(**values)
        try:
            with _writer() as session:
                session.add(node)
                session.flush()
                for t in dict.fromkeys(traits):
                    session.add(models.NodeTrait(node_id=node.id, trait=t))
                session.flush()
                session.expunge(node)
        except db_exc.DBDuplicateEntry as e:
            raise self._translate_integrity(e, "node", values) from e
        return node

    def create_node_with_port(self, values: dict, port_values: dict):
        """A node and one port of it in one transaction: of two creations
        naming the same MAC address only one commits (MACAlreadyExists
        for the other)."""
        values = dict(values, uuid=values.get("uuid") or _new_uuid())
        port_values = dict(port_values,
                           uuid=port_values.get("uuid") or _new_uuid())
        node = models.Node(**values)
        try:
            with _writer() as session:
                session.add(node)
                session.flush()
                session.add(models.Port(node_id=node.id, **port_values))
                session.flush()
                session.expunge(node)
        except db_exc.DBDuplicateEntry as e:
            if "address" in set(e.columns or ()):
                raise self._translate_integrity(e, "port",
                                                port_values) from e
            raise self._translate_integrity(e, "node", values) from e
        return node

    def get_node_with_traits(self, column: str, value) -> tuple:
        """The node whose ``column`` equals ``value`` and its traits.

        One statement (the node outer-joined to its traits): a single GET
        of a node needs both, and one query is one snapshot.
        """
        return self.node_and_traits(
            self.fetch_node_with_traits(column, value))

    def fetch_node_with_traits(self, column: str, value
                               ) -> prepared.Fetched:
        """The rows of ``get_node_with_traits`` before any processing (see
        ``prepared.Fetched``); ``node_and_traits`` makes them its result."""
        fetched = _node_with_traits_query(column).fetch(value=value)
        if not len(fetched):
            raise exception.NodeNotFound(node=value)
        return fetched

    @staticmethod
    def node_and_traits(fetched: prepared.Fetched) -> tuple:
        """The node row and its trait names from the rows of
        ``fetch_node_with_traits``."""
        rows = fetched.rows()
        # A plain row, not an ORM instance: the caller only reads its
        # columns.
        return rows[0], [r.node_trait for r in rows
                         if r.node_trait is not None]

    def _node_row(self, column: str, value, not_found) -> Any:
        # A plain row from one statement: node reads are the most frequent
        # query of the service (every API call on a node, every lock), and
        # their callers only read columns.
        row = _node_query(column).first(value=value)
        if row is None:
            raise not_found
        return row

    def get_node_by_id(self, node_id: int):
        return self._node_row("id", node_id,
                              exception.NodeNotFound(node=node_id))

    def get_node_by_uuid(self, node_uuid: str):
        return self._node_row("uuid", node_uuid,
                              exception.NodeNotFound(node=node_uuid))

    def get_node_by_name(self, node_name: str):
        return self._node_row("name", node_name,
                              exception.NodeNotFound(node=node_name))

    def get_node_by_instance(self, instance: str):
        return self._node_row(
            "instance_uuid", instance,
            exception.NotFound(f"Instance {instance} could not be found."))

    def get_node_by_port_addresses(self, addresses: Sequence[str]):
        """The one node owning ports with any of ``addresses`` (the ramdisk
        lookup); NodeNotFound when none does or when several do."""
        addresses = list(addresses)
        if 0 < len(addresses) <= _PREPARED_ADDRESSES:
            rows = _node_by_addresses_query(len(addresses)).all(
                **{f"a{i}": a for i, a in enumerate(addresses)})
        else:
            with _reader() as session:
                ids = session.scalars(
                    sa.select(models.Port.node_id).where(
                        models.Port.address.in_(addresses)).distinct()
                    .limit(2)).all()
            rows = [self.get_node_by_id(i) for i in ids]
        if len(rows) != 1:
            what = "Multiple nodes" if rows else "No node"
            raise exception.NodeNotFound(
                f"{what} with MAC addresses {', '.join(addresses)} found.")
        return rows[0]

    def get_nodes_matching(self, criteria: node_criteria.Criteria,
                           **kwargs) -> list:
        """``get_node_list`` for the nodes meeting every one of
        ``criteria`` (see ``node_criteria``)."""
        return self.get_node_list(
            filters=node_criteria.conditions(criteria), **kwargs)

    def get_child_node_uuids(self, parent_uuid: str) -> list[str]:
        """UUIDs of the nodes whose ``parent_node`` is ``parent_uuid``."""
        rows = self.get_node_list(
            filters=[models.Node.parent_node == parent_uuid],
            columns=["id", "uuid"])
        return [r["uuid"] for r in rows]

    def count_nodes_in_provision_state(self, states: Iterable[str]) -> int:
        N = models.Node
        with self._reader() as session:
            return session.scalar(sa.select(sa.func.count()).select_from(
                N).where(N.provision_state.in_(list(states))))

    def get_node_list(self, filters: Iterable = (), **kwargs) -> list:
        kwargs.setdefault("marker_not_found",
                          exception.NodeNotFound(node=kwargs.get("marker")))
        return self._list(models.Node, filters=filters, **kwargs)

    def update_node(self, node_id: int, values: dict):
        """Write ``values`` without regard to the node lock (API-side edits;
        conductors use ``update_node_locked``)."""
        return self._update(models.Node, "node", node_id, values,
                            exception.NodeNotFound(node=node_id))

    @engine.retry_on_deadlock
    def destroy_node(self, node_id: int) -> None:
        with _writer() as session:
            session.execute(sa.delete(models.Port).where(
                models.Port.node_id == node_id))
            session.execute(sa.delete(models.Portgroup).where(
                models.Portgroup.node_id == node_id))
            session.execute(sa.delete(models.NodeTrait).where(
                models.NodeTrait.node_id == node_id))
            session.execute(sa.delete(models.NodeTag).where(
                models.NodeTag.node_id == node_id))
            session.execute(sa.delete(models.NodeInventory).where(
                models.NodeInventory.node_id == node_id))
            # A node's allocation goes with it.
            session.execute(sa.delete(models.Allocation).where(
                models.Allocation.node_id == node_id))
            res = session.execute(sa.delete(models.Node).where(
                models.Node.id == node_id))
            if res.rowcount == 0:
                raise exception.NodeNotFound(node=node_id)

    # node traits -------------------------------------------------------

    def get_node_traits(self, node_id: int) -> list[str]:
        with _reader() as session:
            return list(session.scalars(
                sa.select(models.NodeTrait.trait).where(
                    models.NodeTrait.node_id == node_id).order_by(
                    models.NodeTrait.trait)))

    def get_traits_for_nodes(self, node_ids: Sequence[int]
                             ) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {i: [] for i in node_ids}
        if not node_ids:
            return out
        with _reader() as session:
            rows = session.execute(
                sa.select(models.NodeTrait.node_id, models.NodeTrait.trait)
                .where(models.NodeTrait.node_id.in_(list(node_ids)))
                .order_by(models.NodeTrait.trait))
            for nid, trait in rows:
                out[nid].append(trait)
        return out

    @engine.retry_on_deadlock
    def set_node_traits(self, node_id: int, traits: Sequence[str]) -> None:
        with _writer() as session:
            session.execute(sa.delete(models.NodeTrait).where(
                models.NodeTrait.node_id == node_id))
            for t in dict.fromkeys(traits):
                session.add(models.NodeTrait(node_id=node_id, trait=t))

    @engine.retry_on_deadlock
    def add_node_trait(self, node_id: int, trait: str) -> None:
        try:
            with _writer() as session:
                exists = session.get(models.NodeTrait, (node_id, trait))
                if exists is None:
                    session.add(models.NodeTrait(node_id=node_id,
                                                 trait=trait))
        except db_exc.DBDuplicateEntry:
            pass  # a concurrent request added it: adding is idempotent

    @engine.retry_on_deadlock
    def delete_node_trait(self, node_id: int, trait: str) -> None:
        with _writer() as session:
            res = session.execute(sa.delete(models.NodeTrait).where(
                models.NodeTrait.node_id == node_id,
                models.NodeTrait.trait == trait))
            if res.rowcount == 0:
                raise exception.NodeTraitNotFound(node=node_id, trait=trait)

    # ------------------------------------------------------------------
    # ports

    def create_port(self, values: dict):
        return self._create(models.Port, "port", values)

    def get_port(self, value, column: str = "uuid"):
        """The port whose ``column`` (id, uuid, address, name) is
        ``value``."""
        return self._get_row(models.Port, exception.PortNotFound(port=value),
                             getattr(models.Port, column) == value)

    def get_port_list(self, filters: Iterable = (), **kwargs) -> list:
        return self._list(models.Port, filters=filters, **kwargs)

    def node_ids_with_port_addresses(self, addresses: Sequence[str]
                                     ) -> set[int]:
        """Ids of the nodes owning ports with any of ``addresses``."""
        rows = self.get_port_list(
            filters=[models.Port.address.in_(list(addresses))],
            columns=["id", "node_id"], limit=None)
        return {r["node_id"] for r in rows}

    def get_ports_of_node(self, node_id: int) -> list:
        return self.get_port_list(filters=[models.Port.node_id == node_id])

    def update_port(self, port_id: int, values: dict):
        return self._update(models.Port, "port", port_id, values,
                            exception.PortNotFound(port=port_id))

    def destroy_port(self, port_id: int) -> None:
        self._destroy_row(models.Port, port_id,
                          exception.PortNotFound(port=port_id))

    # ------------------------------------------------------------------
    # portgroups

    def create_portgroup(self, values: dict):
        return self._create(models.Portgroup, "portgroup", values)

    def get_portgroup(self, value, column: str = "uuid"):
        """The port group whose ``column`` (id, uuid, name) is ``value``."""
        PG = models.Portgroup
        return self._get_row(PG, exception.PortgroupNotFound(portgroup=value),
                             getattr(PG, column) == value)

    def get_portgroup_list(self, filters: Iterable = (), **kwargs) -> list:
        return self._list(models.Portgroup, filters=filters, **kwargs)

    def get_portgroups_of_node(self, node_id: int) -> list:
        return self.get_portgroup_list(
            filters=[models.Portgroup.node_id == node_id])

    def update_portgroup(self, pg_id: int, values: dict):
        return self._update(models.Portgroup, "portgroup", pg_id, values,
                            exception.PortgroupNotFound(portgroup=pg_id))

    def destroy_portgroup(self, pg_id: int) -> None:
        P = models.Port
        self._destroy_row(
            models.Portgroup, pg_id,
            exception.PortgroupNotFound(portgroup=pg_id),
            used_by=sa.select(P.id).where(P.portgroup_id == pg_id),
            in_use=exception.PortgroupNotEmpty(portgroup=pg_id))

    # ------------------------------------------------------------------
    # chassis

    def create_chassis(self, values: dict):
        return self._create(models.Chassis, "chassis", values)

    def get_chassis(self, value, column: str = "uuid"):
        """The chassis whose ``column`` (id, uuid) is ``value``."""
        return self._get_row(models.Chassis,
                             exception.ChassisNotFound(chassis=value),
                             getattr(models.Chassis, column) == value)

    def get_chassis_list(self, filters: Iterable = (), **kwargs) -> list:
        return self._list(models.Chassis, filters=filters, **kwargs)

    def update_chassis(self, chassis_id: int, values: dict):
        return self._update(models.Chassis, "chassis", chassis_id, values,
                            exception.ChassisNotFound(chassis=chassis_id))

    def destroy_chassis(self, chassis_id: int) -> None:
        N = models.Node
        self._destroy_row(
            models.Chassis, chassis_id,
            exception.ChassisNotFound(chassis=chassis_id),
            used_by=sa.select(N.id).where(N.chassis_id == chassis_id),
            in_use=exception.ChassisNotEmpty(chassis=chassis_id))

    # ------------------------------------------------------------------
    # id <-> uuid helpers used by the API to render relations

    def uuids_for_ids(self, model_name: str, ids: Iterable[int | None]
                      ) -> dict[int, str]:
        model = {"node": models.Node, "chassis": models.Chassis,
                 "portgroup": models.Portgroup,
                 "allocation": models.Allocation}[model_name]
        ids = [i for i in set(ids) if i is not None]
        if not ids:
            return {}
        with _reader() as session:
            return dict(session.execute(sa.select(model.id, model.uuid).where(
                model.id.in_(ids))).all())
