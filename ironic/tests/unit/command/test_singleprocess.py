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
        def start(self):
            seen["conductor"] = "started"

        def stop(self):
            seen["conductor"] = "stopped"

    def serve_forever():
        seen["address"] = (CONF.api.host_ip, CONF.api.port)
        seen["rpc_transport"] = CONF.rpc_transport

    monkeypatch.setattr(singleprocess.base_manager, "ConductorService",
                        Conductor)
    monkeypatch.setattr(singleprocess.wsgi_service, "serve_forever",
                        serve_forever)
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
