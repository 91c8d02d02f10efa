"""Inspection rules, run on the data in-band inspection collects."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ironic.db.sqlalchemy.models.base import Base
from ironic.db.sqlalchemy.types import LongJSONList


class InspectionRule(Base):
    """Conditions on inspection data and the actions taken when they hold.

    ``conditions`` and ``actions`` are stored as the API accepted them
    (``[{"op", "args", "loop"?, "multiple"?}, ...]``); rules of a phase run
    by descending ``priority`` when inspection data is processed.
    """

    __tablename__ = "inspection_rules"
    __table_args__ = (
        sa.UniqueConstraint("uuid", name="uniq_inspection_rules0uuid"),
        sa.Index("inspection_rule_phase_idx", "phase"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    priority: Mapped[int] = mapped_column(
        sa.Integer, default=0, server_default="0", nullable=False)
    description: Mapped[str | None] = mapped_column(sa.String(255))
    sensitive: Mapped[bool] = mapped_column(
        sa.Boolean, default=False, server_default="0", nullable=False)
    phase: Mapped[str] = mapped_column(
        sa.String(16), default="main", server_default="main", nullable=False)
    conditions: Mapped[list] = mapped_column(LongJSONList, default=list)
    actions: Mapped[list] = mapped_column(LongJSONList, default=list)
