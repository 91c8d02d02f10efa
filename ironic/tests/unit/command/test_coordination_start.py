"""``ironic-conductor`` and ``ironic-pxe-filter`` with a coordination
backend that does not answer: bounded retries, then one clear line and
exit status 75, as for every dependency lost (their supervisor restarts
them)."""

from __future__ import annotations

import signal
import socket

import pytest

from ironic import service
from ironic.command import conductor, pxe_filter
from ironic.conf import CONF
from ironic.coordination import backend


@pytest.fixture
def dead_backend():
    # A port nothing listens on: connections are refused at once.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"redis://127.0.0.1:{port}"


@pytest.fixture
def conf_file(tmp_path, dead_backend, database):
    def write(extra: str = "") -> str:
        path = tmp_path / "ironic.conf"
        path.write_text(
            f"[DEFAULT]\nstate_path = {tmp_path}\nrpc_transport = none\n"
            f"[database]\nconnection = {CONF.database.connection}\n"
            f"[coordination]\nbackend_url = {dead_backend}\n"
            f"max_retries = 1\nretry_interval = 0.1\nmember_timeout = 2\n"
            f"{extra}")
        return str(path)
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM,
                                                 signal.SIGINT)}
    yield write
    for sig, handler in handlers.items():
        signal.signal(sig, handler)
    backend.set_current(None)
    CONF([], project="ironic", default_config_files=[])


def test_conductor_gives_up_with_one_line(conf_file, capsys, caplog):
    caplog.set_level("ERROR")
    rc = conductor.main(["--config-file", conf_file()])
    err = capsys.readouterr().err
    assert rc == service.EXIT_GAVE_UP == 75
    assert "cannot start: the coordination backend did not answer to " \
           "connect after 2 attempts" in err
    assert "max_retries = 1" in err


def test_pxe_filter_gives_up_with_one_line(conf_file, capsys, tmp_path):
    hosts = tmp_path / "hosts"
    hosts.mkdir()
    rc = pxe_filter.main(["--config-file", conf_file(
        f"[pxe_filter]\ndhcp_hostsdir = {hosts}\n")])
    assert rc == service.EXIT_GAVE_UP == 75
    assert "did not answer to connect after 2 attempts" in \
        capsys.readouterr().err
