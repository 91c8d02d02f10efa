"""Queries of nodes and their traits.

A mixin of ``Connection``. Node reads are the most frequent queries of the
service (every API call on a node, every lock, every agent lookup): the
common ones are statements prepared once (``prepared``) returning plain
rows, not ORM instances.
"""

from __future__ import annotations

import functools
import uuid as uuidlib
from typing import Any, Iterable, Sequence

import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironic.common import exception
from ironic.db.sqlalchemy import engine, models, node_criteria, prepared, rows
from ironic.db.sqlalchemy.ports import port_conflict


def node_conflict(e: db_exc.DBDuplicateEntry, values: dict
                  ) -> exception.IronicException:
    """The exception for a node write that broke a unique constraint."""
    # oslo.db parses the violated constraint into column names on every
    # backend (sqlite "nodes.name", MySQL/PostgreSQL "uniq_nodes0name");
    # the message text is never searched because values can contain
    # anything.
    cols = set(e.columns or ())
    if "name" in cols:
        return exception.DuplicateName(name=values.get("name"))
    if "instance_uuid" in cols:
        return exception.InstanceAssociated(
            instance_uuid=values.get("instance_uuid"),
            node=values.get("uuid"))
    return exception.NodeAlreadyExists(uuid=values.get("uuid"))


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


class NodeQueries(rows.RowQueries):
    """Create, read, update and delete nodes; their traits."""

    @engine.retry_on_deadlock
    def create_node(self, values: dict, traits: Sequence[str] = ()):
        values = dict(values)
        if not values.get("uuid"):
            values["uuid"] = str(uuidlib.uuid4())
        node = models.Node(**values)
        try:
            with self._writer() as session:
                session.add(node)
                session.flush()
                for t in dict.fromkeys(traits):
                    session.add(models.NodeTrait(node_id=node.id, trait=t))
                session.flush()
                session.expunge(node)
        except db_exc.DBDuplicateEntry as e:
            raise node_conflict(e, values) from e
        return node

    def create_node_with_port(self, values: dict, port_values: dict):
        """A node and one port of it in one transaction: of two creations
        naming the same MAC address only one commits (MACAlreadyExists
        for the other)."""
        values = dict(values, uuid=values.get("uuid") or str(uuidlib.uuid4()))
        port_values = dict(port_values,
                           uuid=port_values.get("uuid") or str(uuidlib.uuid4()))
        node = models.Node(**values)
        try:
            with self._writer() as session:
                session.add(node)
                session.flush()
                session.add(models.Port(node_id=node.id, **port_values))
                session.flush()
                session.expunge(node)
        except db_exc.DBDuplicateEntry as e:
            if "address" in set(e.columns or ()):
                raise port_conflict(e, port_values) from e
            raise node_conflict(e, values) from e
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
            with self._reader() as session:
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
        return self._update_row(models.Node, node_id, values,
                                exception.NodeNotFound(node=node_id),
                                node_conflict)

    @engine.retry_on_deadlock
    def destroy_node(self, node_id: int) -> None:
        with self._writer() as session:
            # A node's allocation goes with it, as do its ports and the
            # rows only it refers to.
            for owned in (models.Port, models.Portgroup, models.NodeTrait,
                          models.NodeTag, models.NodeInventory,
                          models.Allocation):
                session.execute(sa.delete(owned).where(
                    owned.node_id == node_id))
            res = session.execute(sa.delete(models.Node).where(
                models.Node.id == node_id))
            if res.rowcount == 0:
                raise exception.NodeNotFound(node=node_id)

    # node traits -------------------------------------------------------

    def get_node_traits(self, node_id: int) -> list[str]:
        with self._reader() as session:
            return list(session.scalars(
                sa.select(models.NodeTrait.trait).where(
                    models.NodeTrait.node_id == node_id).order_by(
                    models.NodeTrait.trait)))

    def get_traits_for_nodes(self, node_ids: Sequence[int]
                             ) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {i: [] for i in node_ids}
        if not node_ids:
            return out
        with self._reader() as session:
            rows = session.execute(
                sa.select(models.NodeTrait.node_id, models.NodeTrait.trait)
                .where(models.NodeTrait.node_id.in_(list(node_ids)))
                .order_by(models.NodeTrait.trait))
            for nid, trait in rows:
                out[nid].append(trait)
        return out

    @engine.retry_on_deadlock
    def set_node_traits(self, node_id: int, traits: Sequence[str]) -> None:
        with self._writer() as session:
            session.execute(sa.delete(models.NodeTrait).where(
                models.NodeTrait.node_id == node_id))
            for t in dict.fromkeys(traits):
                session.add(models.NodeTrait(node_id=node_id, trait=t))

    @engine.retry_on_deadlock
    def add_node_trait(self, node_id: int, trait: str) -> None:
        try:
            with self._writer() as session:
                exists = session.get(models.NodeTrait, (node_id, trait))
                if exists is None:
                    session.add(models.NodeTrait(node_id=node_id,
                                                 trait=trait))
        except db_exc.DBDuplicateEntry:
            pass  # a concurrent request added it: adding is idempotent

    @engine.retry_on_deadlock
    def delete_node_trait(self, node_id: int, trait: str) -> None:
        with self._writer() as session:
            res = session.execute(sa.delete(models.NodeTrait).where(
                models.NodeTrait.node_id == node_id,
                models.NodeTrait.trait == trait))
            if res.rowcount == 0:
                raise exception.NodeTraitNotFound(node=node_id, trait=trait)
