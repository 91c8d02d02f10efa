"""Schema management used by ``ironic-dbsync`` and the tests."""

import os

import sqlalchemy as sa
from alembic import command as alembic_command
from alembic import config as alembic_config
from alembic import migration as alembic_migration

from ironic.db.sqlalchemy import api as sqla_api

_INI = os.path.join(os.path.dirname(__file__), "sqlalchemy", "alembic.ini")


def _config(connection=None) -> alembic_config.Config:
    cfg = alembic_config.Config(_INI)
    cfg.set_main_option("script_location",
                        os.path.join(os.path.dirname(_INI), "alembic"))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def dispose() -> None:
    """Close the engine's connections (a command is done with them)."""
    sqla_api.dispose()


def upgrade(revision: str = "head", engine=None) -> None:
    engine = engine or sqla_api.get_engine()
    with engine.begin() as conn:
        alembic_command.upgrade(_config(conn), revision)


def create_schema(engine=None) -> None:
    """Create an empty database at head directly from the migrations.

    Refuses to touch a database that already has a version, so it cannot be
    used to clobber an existing deployment.
    """
    engine = engine or sqla_api.get_engine()
    current = version(engine)
    if current is not None:
        raise RuntimeError(
            f"The database is not empty: it is at revision {current}. "
            f"Use 'ironic-dbsync upgrade' to bring it to the latest schema.")
    tables = sorted(sa.inspect(engine).get_table_names())
    if tables:
        raise RuntimeError(
            f"The database is not empty: it holds the tables "
            f"{', '.join(tables)} and no schema revision. create_schema "
            f"only fills an empty database.")
    upgrade("head", engine)


def version(engine=None) -> str | None:
    engine = engine or sqla_api.get_engine()
    with engine.connect() as conn:
        return alembic_migration.MigrationContext.configure(
            conn).get_current_revision()
