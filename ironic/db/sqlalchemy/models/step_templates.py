"""Named lists of steps: deploy templates and runbooks."""

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from ironic.db.sqlalchemy.models.base import Base
from ironic.db.sqlalchemy.types import JSONDict, JSONList


class DeployTemplate(Base):
    """Deploy steps applied to nodes whose traits include its name."""

    __tablename__ = "deploy_templates"
    __table_args__ = (
        sa.UniqueConstraint("uuid", name="uniq_deploytemplates0uuid"),
        sa.UniqueConstraint("name", name="uniq_deploytemplates0name"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    name: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    #: [{"interface", "step", "args", "priority"}, ...] in the given order.
    steps: Mapped[list] = mapped_column(JSONList, default=list)
    extra: Mapped[dict] = mapped_column(JSONDict, default=dict)


class Runbook(Base):
    """A named, ordered list of steps projects may run on their nodes."""

    __tablename__ = "runbooks"
    __table_args__ = (
        sa.UniqueConstraint("uuid", name="uniq_runbooks0uuid"),
        sa.UniqueConstraint("name", name="uniq_runbooks0name"),
        Base.__table_args__)

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True)
    uuid: Mapped[str] = mapped_column(sa.String(36), nullable=False)
    name: Mapped[str] = mapped_column(sa.String(255), nullable=False)
    #: [{"interface", "step", "args", "order"}, ...]
    steps: Mapped[list] = mapped_column(JSONList, default=list)
    disable_ramdisk: Mapped[bool] = mapped_column(
        sa.Boolean, default=False, server_default="0", nullable=False)
    public: Mapped[bool] = mapped_column(
        sa.Boolean, default=False, server_default="0", nullable=False)
    owner: Mapped[str | None] = mapped_column(sa.String(255))
    description: Mapped[str | None] = mapped_column(sa.Text)
    extra: Mapped[dict] = mapped_column(JSONDict, default=dict)


class RunbookTrait(Base):
    __tablename__ = "runbook_traits"
    __table_args__ = (Base.__table_args__,)

    runbook_id: Mapped[int] = mapped_column(
        sa.Integer, sa.ForeignKey("runbooks.id", ondelete="CASCADE",
                                  name="runbook_traits_runbook_id_fk"),
        primary_key=True)
    trait: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
