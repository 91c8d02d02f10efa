"""Alembic environment: runs migrations on the connection we are handed."""

from alembic import context

from ironic.db.sqlalchemy import models

target_metadata = models.Base.metadata


def run_migrations_online() -> None:
    connectable = context.config.attributes.get("connection")
    if connectable is None:
        from ironic.db.sqlalchemy import api as sqla_api
        connectable = sqla_api.get_engine()
        with connectable.connect() as connection:
            _run(connection)
    else:
        _run(connectable)


def _run(connection) -> None:
    context.configure(connection=connection,
                      target_metadata=target_metadata,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
