"""Queries of inspection rules.

A mixin of ``Connection``: the generic list/paging helper and the
transaction contexts come from it.
"""

from __future__ import annotations

import uuid as uuidlib
from typing import Any, Iterable

import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironic.common import exception
from ironic.db.sqlalchemy import engine, models

R = models.InspectionRule


class InspectionRuleQueries:
    _reader: Any
    _writer: Any
    _list: Any

    @engine.retry_on_deadlock
    def create_inspection_rule(self, values: dict) -> models.InspectionRule:
        values = dict(values)
        if not values.get("uuid"):
            values["uuid"] = str(uuidlib.uuid4())
        try:
            with self._writer() as session:
                obj = R(**values)
                session.add(obj)
                session.flush()
                session.expunge(obj)
                return obj
        except db_exc.DBDuplicateEntry as e:
            raise exception.InspectionRuleAlreadyExists(
                uuid=values["uuid"]) from e

    def get_inspection_rule(self, ident: int | str, column: str = "uuid"
                            ) -> models.InspectionRule:
        """By ``uuid`` or database ``id`` (``column``)."""
        with self._reader() as session:
            obj = session.scalars(sa.select(R).where(
                getattr(R, column) == ident)).first()
            if obj is None:
                raise exception.InspectionRuleNotFound(rule=ident)
            session.expunge(obj)
            return obj

    def get_inspection_rule_list(self, filters: Iterable = (),
                                 **kwargs) -> list:
        kwargs.setdefault("marker_not_found", exception.InspectionRuleNotFound(
            rule=kwargs.get("marker")))
        return self._list(R, filters=filters, **kwargs)

    def get_inspection_rules_for_phase(self, phase: str
                                       ) -> list[models.InspectionRule]:
        """Every rule of ``phase``, highest priority first."""
        with self._reader() as session:
            rows = list(session.scalars(sa.select(R).where(
                R.phase == phase).order_by(R.priority.desc(), R.id)))
            for row in rows:
                session.expunge(row)
            return rows

    @engine.retry_on_deadlock
    def update_inspection_rule(self, rule_id: int, values: dict
                               ) -> models.InspectionRule:
        with self._writer() as session:
            obj = session.get(R, rule_id)
            if obj is None:
                raise exception.InspectionRuleNotFound(rule=rule_id)
            for key, value in values.items():
                setattr(obj, key, value)
            session.flush()
            session.expunge(obj)
            return obj

    def destroy_inspection_rule(self, rule_id: int) -> None:
        with self._writer() as session:
            res = session.execute(sa.delete(R).where(R.id == rule_id))
            if res.rowcount == 0:
                raise exception.InspectionRuleNotFound(rule=rule_id)
