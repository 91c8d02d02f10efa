"""The alembic history builds exactly the schema the models declare (sqlite).

The same checks run on MariaDB and PostgreSQL in
``ironic/tests/integration/test_db_backends.py``.
"""

import pytest
import sqlalchemy as sa

from ironic.db import migration
from ironic.db.sqlalchemy import models
from ironic.tests import dbutils


def _sqlite_engine(tmp_path):
    return sa.create_engine(f"sqlite:///{tmp_path}/m.sqlite")


def test_empty_database_has_no_version(tmp_path):
    engine = _sqlite_engine(tmp_path)
    assert migration.version(engine) is None


def test_upgrade_empty_to_head(tmp_path):
    engine = _sqlite_engine(tmp_path)
    migration.upgrade("head", engine)
    assert migration.version(engine) == dbutils.head_revision()
    tables = set(sa.inspect(engine).get_table_names())
    assert set(models.Base.metadata.tables) <= tables


def test_models_match_migrated_schema(tmp_path):
    engine = _sqlite_engine(tmp_path)
    migration.upgrade("head", engine)
    assert dbutils.schema_differences(engine) == []


def test_comparison_notices_a_drifted_schema(tmp_path):
    # Guards the comparison itself: a column the migrations forgot, a
    # missing index and an unnamed foreign key must all be reported.
    engine = _sqlite_engine(tmp_path)
    migration.upgrade("head", engine)
    with engine.begin() as conn:
        conn.execute(sa.text("DROP INDEX driver_idx"))
        conn.execute(sa.text("ALTER TABLE chassis DROP COLUMN description"))
        conn.execute(sa.text("DROP TABLE node_tags"))
        conn.execute(sa.text(
            "CREATE TABLE node_tags (node_id INTEGER NOT NULL "
            "REFERENCES nodes (id) ON DELETE CASCADE, tag VARCHAR(255) "
            "NOT NULL, created_at DATETIME, updated_at DATETIME, "
            "PRIMARY KEY (node_id, tag))"))
        conn.execute(sa.text("CREATE INDEX node_tags_idx ON node_tags (tag)"))
    kinds = {d[0][0] if isinstance(d, list) else d[0]
             for d in dbutils.schema_differences(engine)}
    assert {"add_index", "add_column", "foreign_key_names"} <= kinds


def test_upgrade_twice_is_harmless(tmp_path):
    engine = _sqlite_engine(tmp_path)
    migration.upgrade("head", engine)
    migration.upgrade("head", engine)
    assert migration.version(engine) == dbutils.head_revision()


def test_create_schema_refuses_a_database_with_tables(tmp_path):
    engine = _sqlite_engine(tmp_path)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE somebody_elses (id INTEGER)"))
    with pytest.raises(RuntimeError, match="not empty.*somebody_elses"):
        migration.create_schema(engine)
    assert migration.version(engine) is None


def test_history_has_a_single_head():
    # Two changes landing migrations on the same parent leave two heads,
    # and `upgrade head` then fails for every deployment.
    from alembic.script import ScriptDirectory

    from ironic.db import migration
    heads = ScriptDirectory.from_config(migration._config()).get_heads()
    assert len(heads) == 1, heads


def _insert_minimal(conn, table: str, **values) -> None:
    """A row with ``values`` and a filler in every other NOT NULL column."""
    for col in sa.inspect(conn).get_columns(table):
        if col["nullable"] or col["default"] is not None or \
                col["name"] in values or col["name"] == "id":
            continue
        is_text = isinstance(col["type"], (sa.String, sa.Text))
        values[col["name"]] = "{}" if is_text else 0
    names = ", ".join(values)
    marks = ", ".join(f":{n}" for n in values)
    conn.execute(sa.text(f"INSERT INTO {table} ({names}) VALUES ({marks})"),
                 values)


def test_ports_existing_before_1_111_stay_available(tmp_path):
    # Rows written before the column existed read as available, as new
    # ports are by default; existing port groups are not dynamic.
    from alembic.script import ScriptDirectory
    rev = ScriptDirectory.from_config(migration._config()).get_revision(
        "f5a1c3e7b942")
    engine = _sqlite_engine(tmp_path)
    migration.upgrade(rev.down_revision, engine)
    with engine.begin() as conn:
        # sqlite leaves foreign keys unchecked here: no node row needed.
        _insert_minimal(conn, "ports", node_id=1,
                        uuid="2be26c0b-03f2-4d2e-ae87-c02d7f33c123",
                        address="52:54:00:00:00:01")
        _insert_minimal(conn, "portgroups", node_id=1,
                        uuid="3be26c0b-03f2-4d2e-ae87-c02d7f33c123")
    migration.upgrade("head", engine)
    with engine.connect() as conn:
        flag = conn.execute(sa.text(
            "SELECT available_for_dynamic_portgroup FROM ports")).scalar()
        dynamic = conn.execute(sa.text(
            "SELECT dynamic_portgroup FROM portgroups")).scalar()
    assert (bool(flag), bool(dynamic)) == (True, False)
    assert dynamic is not None
