"""The dnsmasq DHCP provider's files (dnsmasq itself answering them is
tested in the functional network-boot tests)."""

from __future__ import annotations

import pytest

from ironic.common import dhcp, dhcp_dnsmasq
from ironic.drivers.modules import ipxe, pxe
from ironic.objects.node import Node
from ironic.objects.port import Port
from ironic.tests import builders

MAC = "52:54:00:12:34:56"


class _Task:
    def __init__(self, node, ports):
        self.node, self.ports = node, ports


@pytest.fixture
def dirs(database, tmp_path, config):
    hosts, opts = tmp_path / "hosts", tmp_path / "opts"
    hosts.mkdir()
    opts.mkdir()
    config("dnsmasq", dhcp_hostsdir=str(hosts), dhcp_optsdir=str(opts))
    config("dhcp", dhcp_provider="dnsmasq")
    config("pxe", tftp_server="192.0.2.1")
    dhcp.reset()
    yield hosts, opts
    dhcp.reset()


@pytest.fixture
def task(database):
    node = builders.make_node()
    ports = [Port(node_id=node.id, address=MAC.upper(), pxe_enabled=True),
             Port(node_id=node.id, address="52:54:00:12:34:57",
                  pxe_enabled=False)]
    for port in ports:
        port.create()
    return _Task(node, ports)


def test_the_entry_point_loads_the_provider(dirs):
    assert isinstance(dhcp.provider(), dhcp_dnsmasq.DnsmasqDHCP)


def test_pxe_options_and_host_file(dirs, task):
    hosts, opts = dirs
    dhcp.provider().update_dhcp(task, pxe.tftp_options("pxelinux.0"))
    tag = Node.get(task.node.uuid).driver_internal_info["dnsmasq_tag"]
    assert sorted(p.name for p in hosts.iterdir()) == [f"ironic-{MAC}.conf"]
    assert (hosts / f"ironic-{MAC}.conf").read_text() == \
        f"{MAC},set:{tag},set:ironic\n"
    assert (opts / f"ironic-{task.node.uuid}.conf").read_text() == (
        f"tag:{tag},67,pxelinux.0\n"
        f"tag:{tag},66,192.0.2.1\n"
        f"tag:{tag},150,192.0.2.1\n"
        f"tag:{tag},option:server-ip-address,192.0.2.1\n")


def test_ipxe_options_keep_their_tags(dirs, task, config):
    config("deploy", http_url="http://192.0.2.1:8080")
    dhcp.provider().update_dhcp(task, ipxe.iPXEBoot().dhcp_options(task))
    tag = Node.get(task.node.uuid).driver_internal_info["dnsmasq_tag"]
    text = (dirs[1] / f"ironic-{task.node.uuid}.conf").read_text()
    assert f"tag:{tag},tag:!ipxe,67,snponly.efi\n" in text
    assert f"tag:{tag},tag:ipxe,67,http://192.0.2.1:8080/boot.ipxe\n" \
        in text


def test_clean_ignores_the_nic_and_drops_the_options(dirs, task):
    hosts, opts = dirs
    provider = dhcp.provider()
    provider.update_dhcp(task, pxe.tftp_options("pxelinux.0"))
    task.node = Node.get(task.node.uuid)
    provider.clean_dhcp(task)
    assert (hosts / f"ironic-{MAC}.conf").read_text() == f"{MAC},ignore\n"
    assert list(opts.iterdir()) == []
    assert "dnsmasq_tag" not in Node.get(
        task.node.uuid).driver_internal_info
    provider.clean_dhcp(task)  # twice is fine


def test_option_line_named_ipv6_option():
    assert dhcp_dnsmasq.option_line("t", {
        "opt_name": "bootfile-url", "opt_value": "http://[2001:db8::1]/x",
        "ip_version": 6}) == "tag:t,option6:bootfile-url,http://[2001:db8::1]/x"
