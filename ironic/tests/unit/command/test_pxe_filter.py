"""``ironic-pxe-filter`` start-up checks, run through its main()."""

import pytest

from ironic.command import pxe_filter
from ironic.conf import CONF


@pytest.fixture
def run(tmp_path, capsys):
    def start(hostsdir=None):
        conf = tmp_path / "ironic.conf"
        text = f"[DEFAULT]\nstate_path = {tmp_path}\n"
        if hostsdir is not None:
            text += f"[pxe_filter]\ndhcp_hostsdir = {hostsdir}\n"
        conf.write_text(text)
        rc = pxe_filter.main(["--config-file", str(conf)])
        return rc, capsys.readouterr().err
    yield start
    CONF([], project="ironic", default_config_files=[])


def test_refuses_to_start_without_a_directory(run, tmp_path):
    rc, err = run()
    assert rc == 1 and "[pxe_filter]dhcp_hostsdir is not set" in err
    rc, err = run(tmp_path / "missing")
    assert rc == 1 and "is not a directory" in err
