"""Queries of allocations and of the nodes an allocation may get.

A mixin of ``Connection``: the generic list/paging helper and the
transaction contexts come from ``rows.RowQueries``. Associating a node with
an allocation and freeing it are single transactions, so a node is never
half-allocated.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironic.common import exception
from ironic.db.sqlalchemy import engine, models, rows

A = models.Allocation
N = models.Node


class AllocationQueries(rows.RowQueries):

    @staticmethod
    def _allocation_conflict(e: db_exc.DBDuplicateEntry, values: dict
                             ) -> exception.Conflict:
        if "name" in (e.columns or ()):
            return exception.AllocationDuplicateName(name=values.get("name"))
        return exception.AllocationAlreadyExists(uuid=values.get("uuid"))

    def create_allocation(self, values: dict) -> models.Allocation:
        return self._insert_row(A, values, self._allocation_conflict)

    def get_allocation(self, ident: int | str, column: str = "uuid"
                       ) -> models.Allocation:
        """By ``id``, ``uuid`` or ``name`` (``column``)."""
        return self._get_row(A, exception.AllocationNotFound(allocation=ident),
                             getattr(A, column) == ident)

    def get_allocation_list(self, filters: Iterable = (), **kwargs) -> list:
        kwargs.setdefault("marker_not_found", exception.AllocationNotFound(
            allocation=kwargs.get("marker")))
        return self._list(A, filters=filters, **kwargs)

    def update_allocation(self, alloc_id: int, values: dict
                          ) -> models.Allocation:
        return self._update_row(
            A, alloc_id, values,
            exception.AllocationNotFound(allocation=alloc_id),
            self._allocation_conflict, kept=())

    @engine.retry_on_deadlock
    def destroy_allocation(self, alloc_id: int) -> None:
        """Delete an allocation; a node still pointing at it forgets it."""
        with self._writer() as session:
            session.execute(sa.update(N).where(
                N.allocation_id == alloc_id).values(
                allocation_id=None).execution_options(
                synchronize_session=False))
            self._delete_by_id(session, A, alloc_id,
                               exception.AllocationNotFound(
                                   allocation=alloc_id))

    def claim_allocation(self, alloc_id: int, previous: int | None,
                         conductor_id: int) -> bool:
        """Make ``conductor_id`` process an allocation still allocating
        under ``previous`` (compare-and-swap: one claimer wins)."""
        with self._writer() as session:
            res = session.execute(sa.update(A).where(
                A.id == alloc_id, A.state == "allocating",
                A.conductor_affinity.is_(None) if previous is None
                else A.conductor_affinity == previous).values(
                conductor_affinity=conductor_id).execution_options(
                synchronize_session=False))
            return res.rowcount == 1

    def node_uuids_for(self, idents: Sequence[str]) -> dict[str, str]:
        """{given UUID or name: node UUID} for the nodes that exist."""
        if not idents:
            return {}
        with self._reader() as session:
            rows = session.execute(sa.select(N.uuid, N.name).where(
                sa.or_(N.uuid.in_(idents), N.name.in_(idents)))).all()
        found = {}
        for uuid, name in rows:
            for key in (uuid, name):
                if key in idents:
                    found[key] = uuid
        return found

    def allocation_candidates(self, *, resource_class: str,
                              traits: Sequence[str] = (),
                              candidate_nodes: Sequence[str] = (),
                              owner: str | None = None,
                              conductor_group: str | None = None
                              ) -> list[dict]:
        """uuid and name of the nodes an allocation could get now:
        available, not in maintenance, not locked, without an instance,
        of the resource class and with every trait asked for."""
        conds = [N.provision_state == "available",
                 sa.or_(N.maintenance.is_(False), N.maintenance.is_(None)),
                 N.reservation.is_(None), N.instance_uuid.is_(None),
                 N.allocation_id.is_(None),
                 N.resource_class == resource_class]
        if conductor_group is not None:
            conds.append(N.conductor_group == conductor_group)
        if candidate_nodes:
            conds.append(N.uuid.in_(list(candidate_nodes)))
        if owner:
            conds.append(sa.or_(N.owner == owner, N.lessee == owner))
        wanted = sorted(set(traits))
        if wanted:
            T = models.NodeTrait
            having_all = (sa.select(T.node_id)
                          .where(T.trait.in_(wanted))
                          .group_by(T.node_id)
                          .having(sa.func.count(sa.distinct(T.trait))
                                  == len(wanted)))
            conds.append(N.id.in_(having_all))
        with self._reader() as session:
            rows = session.execute(
                sa.select(N.id, N.uuid, N.name).where(*conds)).all()
        return [dict(r._mapping) for r in rows]
