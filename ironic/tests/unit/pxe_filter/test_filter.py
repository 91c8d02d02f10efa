"""The PXE filter on a real host directory and a real sqlite database."""

from __future__ import annotations

import logging
import os

import pytest

from ironic.common import states
from ironic.db import api as db_api
from ironic.objects.port import Port
from ironic.pxe_filter import hostsdir
from ironic.pxe_filter import service as pxe_service
from ironic.tests import builders

INSPECTED = "52:54:00:00:00:01"
IDLE = "52:54:00:00:00:02"


def _port(node, mac):
    Port(node_id=node.id, address=mac).create()


def _files(path) -> dict[str, str]:
    return {name: (path / name).read_text() for name in os.listdir(path)
            if not name.startswith(".")}


@pytest.fixture
def hosts(tmp_path, config):
    path = tmp_path / "hostsdir"
    path.mkdir()
    config("pxe_filter", dhcp_hostsdir=str(path))
    return path


@pytest.fixture
def nodes(database):
    inspected = builders.make_node(provision_state=states.INSPECTWAIT,
                                   inspect_interface="agent")
    idle = builders.make_node(provision_state=states.MANAGEABLE,
                              inspect_interface="agent")
    _port(inspected, INSPECTED)
    _port(idle, IDLE)
    return inspected, idle


def _filter(hosts, policy=None):
    return pxe_service.PXEFilter(hostsdir.HostsDir(str(hosts)), policy)


def test_sync_writes_the_ironic_39_layout(hosts, nodes):
    assert _filter(hosts).sync()
    assert _files(hosts) == {
        INSPECTED: f"{INSPECTED}\n",
        IDLE: f"{IDLE},ignore\n",
        # A node is in inspection: unknown machines may boot (it may have
        # NICs without ports).
        "unknown_hosts_filter": "*:*:*:*:*:*\n",
    }


def test_unknown_machines_follow_auto_discovery(hosts, nodes, config):
    inspected, _ = nodes
    inspected.provision_state = states.MANAGEABLE
    inspected.save()
    pxe = _filter(hosts)
    pxe.sync()
    assert _files(hosts)["unknown_hosts_filter"] == "*:*:*:*:*:*,ignore\n"
    assert _files(hosts)[INSPECTED] == f"{INSPECTED},ignore\n"
    config("auto_discovery", enabled=True)
    pxe.sync()
    assert _files(hosts)["unknown_hosts_filter"] == "*:*:*:*:*:*\n"


def test_only_supported_inspect_interfaces_are_allowed(hosts, nodes,
                                                       config):
    config("pxe_filter", supported_inspect_interfaces=["redfish"])
    _filter(hosts).sync()
    assert _files(hosts)[INSPECTED] == f"{INSPECTED},ignore\n"
    assert _files(hosts)["unknown_hosts_filter"].endswith(",ignore\n")


def test_second_sync_writes_nothing(hosts, nodes, monkeypatch):
    pxe = _filter(hosts)
    pxe.sync()
    writes = []
    monkeypatch.setattr(pxe.dir, "write_many",
                        lambda changes: writes.extend(changes) or 0)
    pxe.sync()
    assert writes == []


def test_deleted_port_falls_under_the_unknown_rule(hosts, nodes, config):
    pxe = _filter(hosts)
    pxe.sync()
    dbapi = db_api.get_instance()
    [row] = [p for p in dbapi.get_port_list() if p.address == IDLE]
    dbapi.destroy_port(row.id)
    pxe.sync()
    # dnsmasq never forgets a deleted file: the MAC stays, as unknown
    # machines are treated now (allowed: a node is in inspection).
    assert _files(hosts)[IDLE] == f"{IDLE}\n"


def test_update_allows_and_denies_now(hosts, nodes):
    pxe = _filter(hosts)
    pxe.sync()
    other = "52:54:00:00:00:99"
    assert pxe.update(allow=[IDLE.upper(), "zz:not-a-mac"],
                      deny=[INSPECTED, other])
    files = _files(hosts)
    assert files[IDLE] == f"{IDLE}\n"
    assert files[INSPECTED] == f"{INSPECTED},ignore\n"
    assert files[other] == f"{other},ignore\n"


def test_block_all_ignores_everyone(hosts, nodes):
    pxe = _filter(hosts)
    pxe.sync()
    assert pxe.block_all()
    assert all(text.endswith(",ignore\n") for text in
               _files(hosts).values())


class _Follower:
    def may_allow(self) -> bool:
        return False


def test_a_filter_not_allowed_to_allow_allows_nothing(hosts, nodes, config):
    config("auto_discovery", enabled=True)
    pxe = _filter(hosts, _Follower())
    pxe.sync()
    pxe.update(allow=[IDLE])
    assert all(text.endswith(",ignore\n") for text in
               _files(hosts).values())


def test_malformed_mac_in_the_database_is_one_log_line(hosts, nodes,
                                                       caplog):
    inspected, _ = nodes
    db_api.get_instance().create_port({"node_id": inspected.id,
                                       "address": "not-a-mac"})
    caplog.set_level(logging.WARNING, logger="ironic.pxe_filter")
    assert _filter(hosts).sync()
    lines = [r for r in caplog.records if "not-a-mac" in r.getMessage()]
    assert len(lines) == 1
    assert _files(hosts)[INSPECTED] == f"{INSPECTED}\n"


def test_unwritable_directory_is_one_log_line(hosts, nodes, caplog,
                                              tmp_path):
    caplog.set_level(logging.ERROR, logger="ironic.pxe_filter")
    gone = tmp_path / "missing"
    pxe = pxe_service.PXEFilter(hostsdir.HostsDir(str(gone)))
    assert not pxe.sync()
    assert not pxe.update(allow=[IDLE])
    assert not pxe.block_all()
    errors = [r.getMessage() for r in caplog.records]
    assert len(errors) == 3 and all(str(gone) in e for e in errors)


def test_read_only_directory_is_logged_not_raised(hosts, nodes, caplog):
    # Root ignores permission bits: a file where the directory should be
    # makes it unwritable for everyone.
    caplog.set_level(logging.ERROR, logger="ironic.pxe_filter")
    blocker = hosts.parent / "a-file"
    blocker.write_text("x")
    pxe = pxe_service.PXEFilter(hostsdir.HostsDir(str(blocker)))
    assert not pxe.sync()
    assert [r for r in caplog.records if "a-file" in r.getMessage()]


def test_a_sync_does_not_undo_a_newer_quick_update(hosts, nodes):
    pxe = _filter(hosts)
    pxe.sync()
    stale = pxe._rows()

    def rows_then_update():
        # The conductor's broadcast arrives after this sync read the
        # database (where IDLE is not in inspection yet).
        pxe.update(allow=[IDLE])
        return stale
    pxe._rows = rows_then_update
    pxe.sync()
    assert _files(hosts)[IDLE] == f"{IDLE}\n"
    # The next synchronisation reads newer data and decides again.
    pxe._rows = lambda: stale
    pxe.sync()
    assert _files(hosts)[IDLE] == f"{IDLE},ignore\n"
