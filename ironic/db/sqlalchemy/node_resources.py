"""Queries of resources that hang off a node: volume connectors and
targets, BIOS settings, inspection inventory and the node's history.

A mixin of ``Connection``; the generic list/paging helper and the
transaction contexts come from ``rows.RowQueries``.
"""

from __future__ import annotations

import dataclasses
import datetime
import uuid as uuidlib
from typing import Any, Iterable

import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironic.common import exception
from ironic.db.sqlalchemy import engine, models, rows


def _not_found(kind: str, ident: Any) -> exception.NotFound:
    """Ironic 39's words: "Volume connector X could not be found."."""
    what = kind.replace("_", " ")
    return exception.NotFound(
        f"{what[:1].upper()}{what[1:]} {ident} could not be found.")


def _conflict_by_uuid(what: str, other: str) -> rows.Conflict:
    """A Conflict naming the UUID when the uuid column clashed, else
    ``other`` formatted with the row's values."""
    def conflict(e: db_exc.DBDuplicateEntry, values: dict) -> Exception:
        if "uuid" in (e.columns or ()):
            return exception.Conflict(
                f"A {what} with UUID {values['uuid']} already exists.")
        return exception.Conflict(other.format(**values))
    return conflict


def _runbook_conflict(e: db_exc.DBDuplicateEntry, values: dict
                      ) -> Exception:
    what = "name" if "name" in (e.columns or ()) else "uuid"
    return exception.Conflict(
        f"A runbook with {what} {values.get(what)} already exists.")


def _deploy_template_conflict(e: db_exc.DBDuplicateEntry, values: dict
                              ) -> Exception:
    if "name" in (e.columns or ()):
        return exception.Conflict(
            f"A deploy template with name {values.get('name')} already "
            f"exists.")
    return exception.Conflict(
        f"A deploy template with UUID {values.get('uuid')} already exists.")


@dataclasses.dataclass(frozen=True)
class _Record:
    """A resource kept as plain rows: its model and how a write that
    clashes with another row is reported."""

    model: Any
    conflict: rows.Conflict
    #: Stored columns the conflict message names on update.
    kept: tuple[str, ...] = ("uuid",)


#: The resources of ``get_record`` and friends, by the name callers use.
_RECORDS = {
    "deploy_template": _Record(models.DeployTemplate,
                               _deploy_template_conflict),
    "runbook": _Record(models.Runbook, _runbook_conflict),
    "volume_connector": _Record(
        models.VolumeConnector,
        _conflict_by_uuid("volume connector",
                          "A volume connector with type {type} and "
                          "connector_id {connector_id} already exists."),
        kept=("uuid", "type", "connector_id")),
    "volume_target": _Record(
        models.VolumeTarget,
        _conflict_by_uuid("volume target",
                          "A volume target with boot index {boot_index} "
                          "already exists for this node."),
        kept=("uuid", "boot_index")),
}


class NodeResourceQueries(rows.RowQueries):
    """Volume connectors/targets, BIOS settings, node history."""


    # resources kept as plain rows ----------------------------------------

    def get_record(self, kind: str, ident: Any, column: str = "uuid"):
        """The ``kind`` row whose ``column`` is ``ident``."""
        model = _RECORDS[kind].model
        return self._get_row(model, _not_found(kind, ident),
                             getattr(model, column) == ident)

    def get_record_list(self, kind: str, filters: Iterable = (),
                        **kwargs) -> list:
        kwargs.setdefault("marker_not_found",
                          _not_found(kind, kwargs.get("marker")))
        return self._list(_RECORDS[kind].model, filters=filters, **kwargs)

    def save_record(self, kind: str, values: dict,
                    obj_id: int | None = None):
        """Create (no ``obj_id``) or update a ``kind`` row."""
        record = _RECORDS[kind]
        if obj_id is None:
            return self._insert_row(record.model, values, record.conflict)
        return self._update_row(record.model, obj_id, values,
                                _not_found(kind, obj_id), record.conflict,
                                kept=record.kept)

    def destroy_record(self, kind: str, obj_id: int) -> None:
        self._destroy_row(_RECORDS[kind].model, obj_id,
                          _not_found(kind, obj_id))

    # BIOS settings -------------------------------------------------------

    def get_bios_settings(self, node_id: int) -> list:
        B = models.BIOSSetting
        return self._get_rows(sa.select(B).where(
            B.node_id == node_id).order_by(B.name))

    def set_bios_settings(self, node_id: int, settings: list[dict]) -> None:
        """Replace the cached settings of a node (the BIOS interface's job;
        tests and the conductor use it)."""
        self._replace_node_rows(models.BIOSSetting, node_id, settings)

    # firmware components -------------------------------------------------

    def get_firmware_components(self, node_id: int) -> list:
        F = models.FirmwareComponent
        return self._get_rows(sa.select(F).where(
            F.node_id == node_id).order_by(F.component))

    def set_firmware_components(self, node_id: int,
                                components: list[dict]) -> None:
        """Replace the recorded components (the firmware interface's job)."""
        self._replace_node_rows(models.FirmwareComponent, node_id,
                                components)

    # inspection inventory ------------------------------------------------

    @engine.retry_on_deadlock
    def set_node_inventory(self, node_id: int, inventory: dict,
                           plugin_data: dict):
        """Record the result of an inspection, replacing the previous one."""
        I = models.NodeInventory  # noqa: E741 - the model's initial
        obj = I(node_id=node_id, inventory_data=inventory,
                plugin_data=plugin_data)
        with self._writer() as session:
            session.execute(sa.delete(I).where(I.node_id == node_id))
            session.add(obj)
            session.flush()
            session.expunge(obj)
        return obj

    def get_node_inventory(self, node_id: int):
        """The recorded inventory of a node; NotFound when there is none."""
        I = models.NodeInventory  # noqa: E741
        return self._get_row(
            I, exception.NotFound(f"Node {node_id} does not have any "
                                  f"inventory."),
            I.node_id == node_id, order_by=I.id.desc())

    def destroy_node_inventory(self, node_id: int) -> None:
        I = models.NodeInventory  # noqa: E741
        with self._writer() as session:
            session.execute(sa.delete(I).where(I.node_id == node_id))

    # node history --------------------------------------------------------

    def add_node_history(self, node_id: int, values: dict):
        values = dict(values, node_id=node_id)
        values.setdefault("uuid", str(uuidlib.uuid4()))
        obj = models.NodeHistory(**values)
        with self._writer() as session:
            session.add(obj)
            session.flush()
            session.expunge(obj)
        return obj

    def get_node_history_list(self, node_id: int, **kwargs) -> list:
        kwargs.setdefault("marker_not_found",
                          _not_found("node history record",
                                     kwargs.get("marker")))
        return self._list(models.NodeHistory,
                          filters=[models.NodeHistory.node_id == node_id],
                          **kwargs)

    def get_node_history_event(self, node_id: int, uuid: str):
        H = models.NodeHistory
        return self._get_row(H, _not_found("node history record", uuid),
                             H.node_id == node_id, H.uuid == uuid)

    @engine.retry_on_deadlock
    def prune_node_history(self, max_entries: int, min_days: int,
                           batch: int) -> int:
        """Delete the oldest events of nodes with more than
        ``max_entries``, sparing events younger than ``min_days``; whole
        nodes at a time until about ``batch`` events went. Returns how
        many were deleted."""
        H = models.NodeHistory
        kept_after = None
        if min_days:
            kept_after = (datetime.datetime.now(datetime.timezone.utc)
                          .replace(tzinfo=None)
                          - datetime.timedelta(days=min_days))
        deleted = 0
        with self._writer() as session:
            crowded = session.execute(
                sa.select(H.node_id, sa.func.count()).group_by(H.node_id)
                .having(sa.func.count() > max_entries)).all()
            for node_id, _count in crowded:
                if deleted >= batch:
                    break
                # The ids past the newest max_entries (ids grow with time).
                old = session.execute(sa.select(H.id, H.created_at).where(
                    H.node_id == node_id).order_by(H.id.desc()).offset(
                    max_entries)).all()
                ids = [r.id for r in old if kept_after is None
                       or (r.created_at and r.created_at < kept_after)]
                if ids:
                    session.execute(sa.delete(H).where(H.id.in_(ids))
                                    .execution_options(
                                        synchronize_session=False))
                    deleted += len(ids)
        return deleted

    @engine.retry_on_deadlock
    def prune_node_inventory(self) -> int:
        """Delete inspection data no node owns any more, and every
        inventory of a node but its newest (an inspection replaces the
        previous one; two that raced leave both). Returns how many rows
        went."""
        I, N = models.NodeInventory, models.Node  # noqa: E741
        with self._writer() as session:
            orphans = session.execute(sa.delete(I).where(
                I.node_id.not_in(sa.select(N.id))).execution_options(
                synchronize_session=False)).rowcount
            newest = sa.select(sa.func.max(I.id)).group_by(
                I.node_id).scalar_subquery()
            ids = list(session.scalars(sa.select(I.id).where(
                I.id.not_in(newest))))
            if ids:
                session.execute(sa.delete(I).where(I.id.in_(ids))
                                .execution_options(
                                    synchronize_session=False))
            return orphans + len(ids)

    # shards --------------------------------------------------------------

    def get_shard_counts(self) -> list[tuple[str | None, int]]:
        """(shard, node count) pairs, largest first, in one GROUP BY."""
        N = models.Node
        count = sa.func.count(N.id)
        with self._reader() as session:
            return [tuple(r) for r in session.execute(
                sa.select(N.shard, count).group_by(N.shard)
                .order_by(count.desc(), N.shard))]

    def get_node_state_counts(self) -> list[tuple[str | None, str | None,
                                                  bool, int]]:
        """(provision state, power state, maintenance, node count) for
        every combination present, in one GROUP BY (the metrics)."""
        N = models.Node
        keys = (N.provision_state, N.power_state, N.maintenance)
        with self._reader() as session:
            return [tuple(r) for r in session.execute(
                sa.select(*keys, sa.func.count(N.id)).group_by(*keys))]

    # deploy templates ----------------------------------------------------

    def get_deploy_templates_by_names(self, names: Iterable[str]) -> list:
        """Templates matching a node's traits (what deploy applies)."""
        T = models.DeployTemplate
        return self._get_rows(sa.select(T).where(
            T.name.in_(list(names))).order_by(T.name))

    # runbooks ------------------------------------------------------------

    def get_runbook_traits(self, runbook_ids: Iterable[int]
                           ) -> dict[int, list[str]]:
        T = models.RunbookTrait
        ids = list(runbook_ids)
        out: dict[int, list[str]] = {i: [] for i in ids}
        if not ids:
            return out
        with self._reader() as session:
            for rid, trait in session.execute(
                    sa.select(T.runbook_id, T.trait).where(
                        T.runbook_id.in_(ids)).order_by(T.trait)):
                out[rid].append(trait)
        return out

    def set_runbook_traits(self, runbook_id: int, traits: Iterable[str],
                           replace: bool = True) -> None:
        """Replace the traits (or, with ``replace=False``, add them)."""
        T = models.RunbookTrait
        with self._writer() as session:
            if replace:
                session.execute(sa.delete(T).where(
                    T.runbook_id == runbook_id))
            for trait in dict.fromkeys(traits):
                if replace or session.get(T, (runbook_id, trait)) is None:
                    session.add(T(runbook_id=runbook_id, trait=trait))

    def delete_runbook_trait(self, runbook_id: int, trait: str) -> None:
        T = models.RunbookTrait
        with self._writer() as session:
            session.execute(sa.delete(T).where(T.runbook_id == runbook_id,
                                               T.trait == trait))

    # ------------------------------------------------------------------
    # the PXE filter

    def get_boot_filter_rows(self, inspection_states: Iterable[str]
                             ) -> list[tuple[str | None, str | None,
                                             str | None]]:
        """``(port address, provision_state, inspect_interface)`` of every
        port, plus ``(None, state, interface)`` for nodes in
        ``inspection_states`` without ports: what ``ironic-pxe-filter``
        decides on, in one query."""
        N, P = models.Node, models.Port
        states = list(inspection_states)
        stmt = (sa.select(P.address, N.provision_state, N.inspect_interface)
                .select_from(N).outerjoin(P, P.node_id == N.id)
                .where(sa.or_(P.address.is_not(None),
                              N.provision_state.in_(states))))
        with self._reader() as session:
            return [tuple(row) for row in session.execute(stmt)]
