"""Database helpers for tests: schema comparison and throw-away databases."""

from __future__ import annotations

import contextlib
import re
import uuid
from typing import Iterator

import sqlalchemy as sa
from alembic import autogenerate
from alembic import migration as alembic_migration
from alembic import script as alembic_script

from ironic.db import migration
from ironic.db.sqlalchemy import models


def head_revision() -> str:
    scripts = alembic_script.ScriptDirectory.from_config(migration._config())
    heads = scripts.get_heads()
    assert len(heads) == 1, f"the alembic history has several heads: {heads}"
    return heads[0]


def _unquote(text: str | None) -> str | None:
    if text is None:
        return None
    return re.sub(r"^\((.*)\)$", r"\1", text).strip("'\"")


def _compare_server_default(_ctx, _inspected_col, _metadata_col,
                            inspected: str | None, _metadata_default,
                            rendered_metadata: str | None) -> bool | None:
    # alembic's sqlite and MySQL comparisons strip quotes only from
    # non-empty literals, so server_default="" is reported as changed
    # although the database holds exactly ''. Settle that case here and
    # leave every other default to alembic (None means "you decide").
    if rendered_metadata == "" and _unquote(inspected) == "":
        return False
    return None


def schema_differences(engine: sa.engine.Engine) -> list:
    """What alembic autogenerate would change to reach the models."""
    with engine.connect() as conn:
        ctx = alembic_migration.MigrationContext.configure(conn, opts={
            "compare_type": True,
            "compare_server_default": _compare_server_default,
        })
        diffs = list(autogenerate.compare_metadata(ctx, models.Base.metadata))
    return diffs + _foreign_key_name_differences(engine)


def _foreign_key_name_differences(engine: sa.engine.Engine) -> list:
    """alembic ignores constraint names of foreign keys; later migrations
    need them to drop or alter a key, so they must match the models."""
    inspector = sa.inspect(engine)
    diffs = []
    for table in models.Base.metadata.sorted_tables:
        expected = {(tuple(fk.column_keys), fk.name)
                    for fk in table.foreign_key_constraints}
        found = {(tuple(fk["constrained_columns"]), fk["name"])
                 for fk in inspector.get_foreign_keys(table.name)}
        if expected != found:
            diffs.append(("foreign_key_names", table.name,
                          sorted(expected), sorted(found)))
    return diffs


@contextlib.contextmanager
def scratch_database(server_url: str) -> Iterator[str]:
    """A new, randomly named database on a MariaDB/PostgreSQL server.

    Yields its URL and drops it afterwards, whatever the test did.
    """
    name = "ironic_test_" + uuid.uuid4().hex[:12]
    admin = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f"CREATE DATABASE {name}"))
        url = sa.engine.make_url(server_url).set(database=name)
        try:
            yield url.render_as_string(hide_password=False)
        finally:
            with admin.connect() as conn:
                if admin.dialect.name == "postgresql":
                    # Sessions a failed test leaked must not block the drop.
                    conn.execute(sa.text(
                        "SELECT pg_terminate_backend(pid) FROM "
                        "pg_stat_activity WHERE datname = :n AND "
                        "pid <> pg_backend_pid()"), {"n": name})
                conn.execute(sa.text(f"DROP DATABASE {name}"))
    finally:
        admin.dispose()


def expected_order(rows: list[dict], key: str, direction: str) -> list[int]:
    """The ids in the order the DB API promises: by ``key`` then by id, with
    NULLs first ascending and last descending, on every backend."""
    def sort_key(row):
        value = row[key]
        return (value is not None, value if value is not None else 0,
                row["id"])
    ordered = sorted(rows, key=sort_key)
    if direction == "desc":
        ordered.reverse()
    return [row["id"] for row in ordered]


def walk_pages(list_fn, key: str, direction: str, limit: int) -> list[int]:
    """Follow markers page by page, as the API's ``next`` links do."""
    seen: list[int] = []
    marker = None
    while True:
        page = list_fn(columns=["id", "uuid"], sort_key=key,
                       sort_dir=direction, limit=limit, marker=marker)
        seen.extend(row["id"] for row in page)
        if len(page) < limit:
            return seen
        marker = page[-1]["uuid"]
        assert len(seen) <= 10_000, "pagination does not terminate"
