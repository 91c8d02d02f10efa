"""Queries of inspection rules.

A mixin of ``Connection``: the generic list/paging helper and the
transaction contexts come from ``rows.RowQueries``.
"""

from __future__ import annotations

from typing import Any, Iterable

import sqlalchemy as sa
from oslo_db import exception as db_exc

from ironic.common import exception
from ironic.db.sqlalchemy import models, rows

R = models.InspectionRule


def _not_found(ident: Any) -> exception.InspectionRuleNotFound:
    return exception.InspectionRuleNotFound(rule=ident)


def _conflict(e: db_exc.DBDuplicateEntry, values: dict
              ) -> exception.InspectionRuleAlreadyExists:
    # The uuid is the rule's only unique column.
    return exception.InspectionRuleAlreadyExists(uuid=values["uuid"])


class InspectionRuleQueries(rows.RowQueries):

    def create_inspection_rule(self, values: dict) -> models.InspectionRule:
        return self._insert_row(R, values, _conflict)

    def get_inspection_rule(self, ident: int | str, column: str = "uuid"
                            ) -> models.InspectionRule:
        """By ``uuid`` or database ``id`` (``column``)."""
        return self._get_row(R, _not_found(ident), getattr(R, column) == ident)

    def get_inspection_rule_list(self, filters: Iterable = (),
                                 **kwargs) -> list:
        kwargs.setdefault("marker_not_found", _not_found(kwargs.get("marker")))
        return self._list(R, filters=filters, **kwargs)

    def get_inspection_rules_for_phase(self, phase: str
                                       ) -> list[models.InspectionRule]:
        """Every rule of ``phase``, highest priority first."""
        return self._get_rows(sa.select(R).where(
            R.phase == phase).order_by(R.priority.desc(), R.id))

    def update_inspection_rule(self, rule_id: int, values: dict
                               ) -> models.InspectionRule:
        return self._update_row(R, rule_id, values, _not_found(rule_id),
                                _conflict)

    def destroy_inspection_rule(self, rule_id: int) -> None:
        self._destroy_row(R, rule_id, _not_found(rule_id))
