"""``ironic-dbsync`` run through its main() against a sqlite file."""

import pytest
import sqlalchemy as sa

from ironic.command import dbsync
from ironic.conf import CONF
from ironic.db.sqlalchemy import api as sqla_api
from ironic.tests import dbutils


@pytest.fixture
def dbsync_run(tmp_path, capsys):
    """Run ``ironic-dbsync ARGS`` with a config file naming a sqlite file."""
    db_path = tmp_path / "state" / "ironic.sqlite"
    conf = tmp_path / "ironic.conf"
    conf.write_text(f"[DEFAULT]\nstate_path = {tmp_path / 'state'}\n"
                    f"[database]\nconnection = sqlite:///{db_path}\n")
    sqla_api.dispose()

    def run(*args):
        rc = dbsync.main(["--config-file", str(conf), *args])
        out = capsys.readouterr()
        # oslo.log may share the stream; the command's answer is last.
        lines = out.out.splitlines() or [""]
        return rc, lines[-1], out.err
    run.db_path = db_path
    yield run
    sqla_api.dispose()
    CONF([], project="ironic", default_config_files=[])


def test_version_of_an_empty_database_is_none(dbsync_run):
    assert dbsync_run("version")[:2] == (0, "None")
    # ensure_state_path created the directory of the embedded database.
    assert dbsync_run.db_path.parent.is_dir()


def test_create_schema_then_version(dbsync_run):
    head = dbutils.head_revision()
    rc, out, _ = dbsync_run("create_schema")
    assert rc == 0 and head in out
    assert dbsync_run("version")[:2] == (0, head)
    engine = sa.create_engine(f"sqlite:///{dbsync_run.db_path}")
    assert dbutils.schema_differences(engine) == []


def test_create_schema_refuses_a_migrated_database(dbsync_run):
    assert dbsync_run("create_schema")[0] == 0
    rc, _, err = dbsync_run("create_schema")
    assert rc == 1
    assert "not empty" in err and "ironic-dbsync upgrade" in err


def test_create_schema_refuses_foreign_tables(dbsync_run):
    dbsync_run.db_path.parent.mkdir()
    engine = sa.create_engine(f"sqlite:///{dbsync_run.db_path}")
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE legacy (id INTEGER)"))
    rc, _, err = dbsync_run("create_schema")
    assert rc == 1 and "legacy" in err
    assert sa.inspect(engine).get_table_names() == ["legacy"]


def test_upgrade_is_repeatable(dbsync_run):
    head = dbutils.head_revision()
    assert dbsync_run("upgrade")[0] == 0
    rc, out, _ = dbsync_run("upgrade", "--revision", "head")
    assert rc == 0 and head in out
    assert dbsync_run("version")[1] == head


def test_upgrade_to_an_unknown_revision_fails_cleanly(dbsync_run):
    rc, _, err = dbsync_run("upgrade", "--revision", "deadbeef")
    assert rc == 1 and "deadbeef" in err and "Traceback" not in err


def test_online_data_migrations_accepts_the_usual_options(dbsync_run):
    assert dbsync_run("upgrade")[0] == 0
    rc, out, _ = dbsync_run("online_data_migrations", "--max-count", "50")
    assert rc == 0 and "No online data migrations" in out


def test_config_is_reusable_after_main(dbsync_run):
    dbsync_run("version")
    # No sub-command is left registered to make the next parse fail.
    CONF([], project="ironic", default_config_files=[])
    assert CONF.auth_strategy
