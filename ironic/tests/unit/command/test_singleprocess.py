"""``ironic``'s main(): the defaults of the all-in-one service."""

import pytest

from ironic.command import singleprocess
from ironic.conf import CONF
from ironic.db.sqlalchemy import api as sqla_api


@pytest.fixture
def run_aio(tmp_path, monkeypatch):
    """Run main() with the conductor and the server replaced: the server
    reports the address it would listen on."""
    seen = {}

    class Conductor:
        class pool:  # noqa: N801 - stands in for the worker pool
            running = 0  # none outlived stop(): main() returns

        fatal = None

        def start(self, stop=None):
            seen["conductor"] = "started"

        def stop(self):
            seen["conductor"] = "stopped"

    def serve(application=None):
        seen["address"] = (CONF.api.host_ip, CONF.api.port)
        seen["rpc_transport"] = CONF.rpc_transport

    monkeypatch.setattr(singleprocess.base_manager, "ConductorService",
                        Conductor)
    monkeypatch.setattr(singleprocess.server, "serve", serve)
    sqla_api.dispose()

    def run(conf_text: str = "") -> dict:
        conf = tmp_path / "ironic.conf"
        conf.write_text(f"[DEFAULT]\nstate_path = {tmp_path}\n{conf_text}")
        assert singleprocess.main(["--config-file", str(conf)]) == 0
        return seen
    yield run
    sqla_api.dispose()
    for name, group in (("host_ip", "api"), ("rpc_transport", None)):
        CONF.clear_default(name, group=group)
    CONF([], project="ironic", default_config_files=[])


def test_listens_on_loopback_port_6385_by_default(run_aio):
    seen = run_aio()
    assert seen == {"address": ("127.0.0.1", 6385), "rpc_transport": "none",
                    "conductor": "stopped"}


def test_configured_address_wins(run_aio):
    seen = run_aio("[api]\nhost_ip = 0.0.0.0\nport = 7000\n")
    assert seen["address"] == ("0.0.0.0", 7000)


def test_ironic_api_keeps_the_option_default():
    # Only the all-in-one changes the default; the option's own is the
    # reference service's.
    assert CONF.api.host_ip == "0.0.0.0"


@pytest.fixture
def fresh_database_option():
    # An earlier main() left its sqlite file as an override.
    CONF.clear_override("connection", group="database")
    yield
    CONF.clear_override("connection", group="database")


def _refused_start(conf, text: str, capsys) -> str:
    """main() on ``text`` as ironic.conf must fail: what it printed."""
    conf.write_text(text)
    try:
        assert singleprocess.main(["--config-file", str(conf)]) == 1
    finally:
        sqla_api.dispose()
        CONF([], project="ironic", default_config_files=[])
    return capsys.readouterr().err.strip()


def test_a_state_directory_that_cannot_be_made_is_one_line(
        tmp_path, capsys, fresh_database_option):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    err = _refused_start(tmp_path / "ironic.conf",
                         f"[DEFAULT]\nstate_path = {blocker / 'state'}\n",
                         capsys)
    assert err == (f"ironic: cannot start: cannot create the state "
                   f"directory {blocker / 'state'}: Not a directory")


def test_a_database_that_cannot_be_opened_is_one_line(
        tmp_path, capsys, fresh_database_option):
    database = tmp_path / "db.sqlite"
    database.mkdir()
    err = _refused_start(tmp_path / "ironic.conf",
                         f"[DEFAULT]\nstate_path = {tmp_path}\n[database]\n"
                         f"connection = sqlite:///{database}\n", capsys)
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"the database sqlite:///{database} cannot be opened" in err


def test_a_lost_coordination_backend_exits_75(tmp_path, monkeypatch):
    # The conductor inside lost its backend for good (it set ``fatal``
    # and woke the command): the status of every dependency lost.
    from ironic import service

    class Conductor:
        class pool:  # noqa: N801 - stands in for the worker pool
            running = 0

        fatal = None

        def start(self, stop=None):
            pass

        def stop(self):
            pass

    def serve(application=None):
        Conductor.fatal = "the coordination backend did not answer"

    monkeypatch.setattr(singleprocess.base_manager, "ConductorService",
                        Conductor)
    monkeypatch.setattr(singleprocess.server, "serve", serve)
    sqla_api.dispose()
    conf = tmp_path / "ironic.conf"
    conf.write_text(f"[DEFAULT]\nstate_path = {tmp_path}\n")
    try:
        assert singleprocess.main(["--config-file", str(conf)]) == \
            service.EXIT_GAVE_UP == 75
    finally:
        sqla_api.dispose()
        CONF.clear_default("host_ip", group="api")
        CONF.clear_default("rpc_transport")
        CONF([], project="ironic", default_config_files=[])
