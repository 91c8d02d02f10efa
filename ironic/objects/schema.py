"""The database schema, for the commands that create and upgrade it
(``ironic-dbsync`` and the all-in-one): objects stay the one door through
which anything above reaches ``ironic.db``."""

from __future__ import annotations

from ironic.db import migration


def create() -> None:
    """Fill an empty database with the newest schema (RuntimeError when
    it is not empty)."""
    migration.create_schema()


def upgrade(revision: str = "head") -> None:
    migration.upgrade(revision)


def revision() -> str | None:
    """The schema's revision, None for a database never created."""
    return migration.version()


def close() -> None:
    """Close the database connections this process holds."""
    migration.dispose()
