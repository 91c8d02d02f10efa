"""Queries of resources that hang off a node: volume connectors and
targets, BIOS settings, inspection inventory and the node's history.

A mixin of ``Connection``; the generic list/paging helper and the
transaction contexts come from it.
"""

from __future__ import annotations

import datetime
import uuid as uuidlib
from typing import Any, Iterable

import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironic.common import exception
from ironic.db.sqlalchemy import engine, models

_VOLUME = {
    "volume_connector": (models.VolumeConnector,
                         "A volume connector with type {type} and "
                         "connector_id {connector_id} already exists."),
    "volume_target": (models.VolumeTarget,
                      "A volume target with boot index {boot_index} "
                      "already exists for this node."),
}


def _not_found(kind: str, ident: Any) -> exception.NotFound:
    what = kind.replace("_", " ")
    return exception.NotFound(f"The {what} {ident} could not be found.")


class NodeResourceQueries:
    """Volume connectors/targets, BIOS settings, node history."""

    _reader: Any
    _writer: Any
    _list: Any

    # volume connectors and targets --------------------------------------

    @engine.retry_on_deadlock
    def create_volume(self, kind: str, values: dict):
        model, conflict = _VOLUME[kind]
        values = dict(values)
        values.setdefault("uuid", str(uuidlib.uuid4()))
        obj = model(**values)
        try:
            with self._writer() as session:
                session.add(obj)
                session.flush()
                session.expunge(obj)
        except db_exc.DBDuplicateEntry as e:
            if "uuid" in (e.columns or ()):
                raise exception.Conflict(
                    f"A {kind.replace('_', ' ')} with UUID "
                    f"{values['uuid']} already exists.") from e
            raise exception.Conflict(conflict.format(**values)) from e
        return obj

    def get_volume(self, kind: str, uuid: str):
        model = _VOLUME[kind][0]
        with self._reader() as session:
            obj = session.scalars(sa.select(model).where(
                model.uuid == uuid)).first()
            if obj is None:
                raise _not_found(kind, uuid)
            session.expunge(obj)
            return obj

    def get_volume_list(self, kind: str, filters: Iterable = (),
                        **kwargs) -> list:
        kwargs.setdefault("marker_not_found",
                          _not_found(kind, kwargs.get("marker")))
        return self._list(_VOLUME[kind][0], filters=filters, **kwargs)

    @engine.retry_on_deadlock
    def update_volume(self, kind: str, obj_id: int, values: dict):
        model, conflict = _VOLUME[kind]
        current: dict = {}
        try:
            with self._writer() as session:
                obj = session.get(model, obj_id)
                if obj is None:
                    raise _not_found(kind, obj_id)
                # Read now: the conflict message needs them after rollback.
                current = {c: getattr(obj, c, None) for c in
                           ("type", "connector_id", "boot_index")}
                for key, value in values.items():
                    setattr(obj, key, value)
                session.flush()
                session.expunge(obj)
                return obj
        except db_exc.DBDuplicateEntry as e:
            raise exception.Conflict(
                conflict.format(**{**current, **values})) from e

    def destroy_volume(self, kind: str, obj_id: int) -> None:
        model = _VOLUME[kind][0]
        with self._writer() as session:
            res = session.execute(sa.delete(model).where(model.id == obj_id))
            if res.rowcount == 0:
                raise _not_found(kind, obj_id)

    # BIOS settings -------------------------------------------------------

    def get_bios_settings(self, node_id: int) -> list:
        B = models.BIOSSetting
        with self._reader() as session:
            rows = list(session.scalars(sa.select(B).where(
                B.node_id == node_id).order_by(B.name)))
            for row in rows:
                session.expunge(row)
            return rows

    def set_bios_settings(self, node_id: int, settings: list[dict]) -> None:
        """Replace the cached settings of a node (the BIOS interface's job;
        tests and the conductor use it)."""
        B = models.BIOSSetting
        with self._writer() as session:
            session.execute(sa.delete(B).where(B.node_id == node_id))
            for setting in settings:
                session.add(B(node_id=node_id, **setting))

    # firmware components -------------------------------------------------

    def get_firmware_components(self, node_id: int) -> list:
        F = models.FirmwareComponent
        with self._reader() as session:
            rows = list(session.scalars(sa.select(F).where(
                F.node_id == node_id).order_by(F.component)))
            for row in rows:
                session.expunge(row)
            return rows

    def set_firmware_components(self, node_id: int,
                                components: list[dict]) -> None:
        """Replace the recorded components (the firmware interface's job)."""
        F = models.FirmwareComponent
        with self._writer() as session:
            session.execute(sa.delete(F).where(F.node_id == node_id))
            for comp in components:
                session.add(F(node_id=node_id, **comp))

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
        with self._reader() as session:
            obj = session.scalars(sa.select(I).where(
                I.node_id == node_id).order_by(I.id.desc())).first()
            if obj is None:
                raise exception.NotFound(
                    f"Node {node_id} does not have any inventory.")
            session.expunge(obj)
            return obj

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
                          _not_found("history event", kwargs.get("marker")))
        return self._list(models.NodeHistory,
                          filters=[models.NodeHistory.node_id == node_id],
                          **kwargs)

    def get_node_history_event(self, node_id: int, uuid: str):
        H = models.NodeHistory
        with self._reader() as session:
            obj = session.scalars(sa.select(H).where(
                H.node_id == node_id, H.uuid == uuid)).first()
            if obj is None:
                raise _not_found("history event", uuid)
            session.expunge(obj)
            return obj

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

    @engine.retry_on_deadlock
    def save_deploy_template(self, values: dict, obj_id: int | None = None):
        """Create (no ``obj_id``) or update a deploy template."""
        T = models.DeployTemplate
        try:
            with self._writer() as session:
                if obj_id is None:
                    values = dict(values)
                    values.setdefault("uuid", str(uuidlib.uuid4()))
                    obj = T(**values)
                    session.add(obj)
                else:
                    obj = session.get(T, obj_id)
                    if obj is None:
                        raise _not_found("deploy template", obj_id)
                    for key, value in values.items():
                        setattr(obj, key, value)
                session.flush()
                session.expunge(obj)
                return obj
        except db_exc.DBDuplicateEntry as e:
            if "name" in (e.columns or ()):
                raise exception.Conflict(
                    f"A deploy template with name {values.get('name')} "
                    f"already exists.") from e
            raise exception.Conflict(
                f"A deploy template with UUID {values.get('uuid')} "
                f"already exists.") from e

    def get_deploy_template(self, ident: str, by_name: bool = False):
        T = models.DeployTemplate
        column = T.name if by_name else T.uuid
        with self._reader() as session:
            obj = session.scalars(sa.select(T).where(column == ident)).first()
            if obj is None:
                raise _not_found("deploy template", ident)
            session.expunge(obj)
            return obj

    def get_deploy_template_list(self, filters: Iterable = (), **kwargs
                                 ) -> list:
        kwargs.setdefault("marker_not_found",
                          _not_found("deploy template", kwargs.get("marker")))
        return self._list(models.DeployTemplate, filters=filters, **kwargs)

    def get_deploy_templates_by_names(self, names: Iterable[str]) -> list:
        """Templates matching a node's traits (what deploy applies)."""
        T = models.DeployTemplate
        with self._reader() as session:
            rows = list(session.scalars(sa.select(T).where(
                T.name.in_(list(names))).order_by(T.name)))
            for row in rows:
                session.expunge(row)
            return rows

    def destroy_deploy_template(self, obj_id: int) -> None:
        T = models.DeployTemplate
        with self._writer() as session:
            res = session.execute(sa.delete(T).where(T.id == obj_id))
            if res.rowcount == 0:
                raise _not_found("deploy template", obj_id)

    # runbooks ------------------------------------------------------------

    @engine.retry_on_deadlock
    def save_runbook(self, values: dict, obj_id: int | None = None):
        """Create (no ``obj_id``) or update a runbook."""
        R = models.Runbook
        try:
            with self._writer() as session:
                if obj_id is None:
                    values = dict(values)
                    values.setdefault("uuid", str(uuidlib.uuid4()))
                    obj = R(**values)
                    session.add(obj)
                else:
                    obj = session.get(R, obj_id)
                    if obj is None:
                        raise _not_found("runbook", obj_id)
                    for key, value in values.items():
                        setattr(obj, key, value)
                session.flush()
                session.expunge(obj)
                return obj
        except db_exc.DBDuplicateEntry as e:
            what = "name" if "name" in (e.columns or ()) else "uuid"
            raise exception.Conflict(
                f"A runbook with {what} {values.get(what)} already "
                f"exists.") from e

    def get_runbook(self, ident: str, by_name: bool = False):
        R = models.Runbook
        column = R.name if by_name else R.uuid
        with self._reader() as session:
            obj = session.scalars(sa.select(R).where(column == ident)).first()
            if obj is None:
                raise _not_found("runbook", ident)
            session.expunge(obj)
            return obj

    def get_runbook_list(self, filters: Iterable = (), **kwargs) -> list:
        kwargs.setdefault("marker_not_found",
                          _not_found("runbook", kwargs.get("marker")))
        return self._list(models.Runbook, filters=filters, **kwargs)

    def destroy_runbook(self, obj_id: int) -> None:
        R = models.Runbook
        with self._writer() as session:
            res = session.execute(sa.delete(R).where(R.id == obj_id))
            if res.rowcount == 0:
                raise _not_found("runbook", obj_id)

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
