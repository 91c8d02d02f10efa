"""``ironic-conductor`` waits for its database before starting: bounded by
the retries, ended by SIGTERM; run through its main()."""

import os
import signal
import threading

import pytest

from ironic.command import conductor
from ironic.conductor import dependencies
from ironic.conf import CONF
from ironic.db.sqlalchemy import api as sqla_api


@pytest.fixture
def run(tmp_path, capsys):
    def start(retries: int, interval: int):
        conf = tmp_path / "ironic.conf"
        # A directory cannot be opened as a sqlite database: the database
        # is "away" for as long as the test wants.
        conf.write_text(
            f"[DEFAULT]\nstate_path = {tmp_path}\nrpc_transport = none\n"
            f"host = c1\n"
            f"[database]\nconnection = sqlite:///{tmp_path}\n"
            f"max_retries = {retries}\nretry_interval = {interval}\n")
        sqla_api.dispose()
        rc = conductor.main(["--config-file", str(conf)])
        return rc, capsys.readouterr().err
    yield start
    sqla_api.dispose()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    CONF([], project="ironic", default_config_files=[])


def test_gives_up_with_one_line_after_its_retries(run):
    rc, err = run(retries=2, interval=0)
    assert rc == dependencies.EXIT_GAVE_UP
    [line] = [x for x in err.splitlines() if "gives up" in x]
    assert "the database did not answer 3 checks" in line


def test_sigterm_ends_the_wait(run):
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM)).start()
    rc, err = run(retries=-1, interval=3600)
    assert rc == 0
    assert "gives up" not in err
