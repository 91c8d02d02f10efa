"""The declarative base of every table: InnoDB, utf8mb4, timestamps."""

import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


class Base(DeclarativeBase):
    # Each table extends it into a tuple of constraints and these options.
    __table_args__: Any = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}

    created_at: Mapped[datetime.datetime | None] = mapped_column(
        sa.DateTime, default=_utcnow)
    updated_at: Mapped[datetime.datetime | None] = mapped_column(
        sa.DateTime, onupdate=_utcnow)
