"""Allocations: requests for a node of a resource class."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ironic.db.sqlalchemy.models.base import Base
from ironic.db.sqlalchemy.types import JSONDict, JSONList


class Allocation(Base):
    """A request for a node with a resource class and traits (1.52)."""

    __tablename__ = "allocations"
    __table_args__ = (
        sa.UniqueConstraint("uuid", name="uniq_allocations0uuid"),
        sa.UniqueConstraint("name", name="uniq_allocations0name"),
        sa.Index("allocations_state_idx", "state"),
        sa.Index("allocations_node_id_idx", "node_id"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    name: Mapped[str | None] = mapped_column(sa.String(255))
    node_id: Mapped[int | None] = mapped_column(
        sa.Integer, sa.ForeignKey("nodes.id", name="allocations_node_id_fk"))
    #: allocating, active or error.
    state: Mapped[str] = mapped_column(sa.String(15), nullable=False)
    owner: Mapped[str | None] = mapped_column(sa.String(255))
    last_error: Mapped[str | None] = mapped_column(sa.Text)
    resource_class: Mapped[str | None] = mapped_column(sa.String(80))
    traits: Mapped[list] = mapped_column(JSONList, default=list)
    #: UUIDs of the only nodes that may be picked (empty: any).
    candidate_nodes: Mapped[list] = mapped_column(JSONList, default=list)
    extra: Mapped[dict] = mapped_column(JSONDict, default=dict)
    #: Conductor group the allocation is processed in (its conductor's).
    conductor_affinity: Mapped[int | None] = mapped_column(
        sa.Integer, sa.ForeignKey("conductors.id",
                                  name="allocations_conductor_affinity_fk"))
