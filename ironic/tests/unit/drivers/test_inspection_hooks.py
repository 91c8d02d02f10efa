"""Inspection hooks one by one, on real nodes and ports in sqlite."""

from __future__ import annotations

import binascii

import pytest

from ironic.common import exception
from ironic.db import api as db_api
from ironic.db.sqlalchemy import models
from ironic.drivers.modules.inspector.hooks import base, root_device
from ironic.drivers.modules.inspector.hooks import (
    local_link_connection as llc,
)
from ironic.objects.node import Node
from ironic.objects.port import Port
from ironic.tests import data

GIB = 1024 ** 3


class _Task:
    """The part of a task hooks use: the node and its ports."""

    def __init__(self, node: Node):
        self.node = node

    @property
    def ports(self):
        return db_api.get_instance().get_port_list(
            filters=[models.Port.node_id == self.node.id])


@pytest.fixture
def task(database):
    node = Node(driver="fake-hardware", properties={})
    node.create()
    return _Task(node)


@pytest.fixture
def sample():
    doc = data.ipa_inspection_data()
    return doc.pop("inventory"), doc


def _run(task, inventory, plugin_data, names):
    base.run(task, inventory, plugin_data, base.load(names))
    return Node.get(task.node.uuid)


def _macs(task):
    return sorted(p.address for p in task.ports)


def test_default_hooks_on_the_sample(task, sample):
    inventory, plugin_data = sample
    node = _run(task, inventory, plugin_data, base.configured_names())
    assert node.properties["cpu_arch"] == "x86_64"
    assert _macs(task) == ["02:fc:00:00:00:01"]
    port = task.ports[0]
    assert port.pxe_enabled is True and port.node_id == node.id
    assert plugin_data["macs"] == ["02:fc:00:00:00:01"]
    assert set(plugin_data["all_interfaces"]) == {"eth0"}
    assert plugin_data["valid_interfaces"]["eth0"]["is_added"] is True
    # The inventory itself is never changed by hooks.
    assert inventory == data.ipa_inspection_data()["inventory"]


def test_optional_hooks_on_the_sample(task, sample):
    inventory, plugin_data = sample
    node = _run(task, inventory, plugin_data,
                ["memory", "root-device", "cpu-capabilities", "boot-mode"])
    props = node.properties
    assert props["memory_mb"] == 24576
    assert props["local_gb"] == 255  # 256 GiB disk less 1 GiB spacing
    caps = base.parse_capabilities(props["capabilities"])
    assert caps == {"cpu_aes": "true", "cpu_hugepages": "true",
                    "cpu_hugepages_1g": "true", "boot_mode": "bios"}
    assert plugin_data["root_disk"]["name"] == "/dev/vda"


def test_default_hook_list_and_unknown_or_misordered_hooks(config):
    assert base.configured_names() == [
        "ramdisk-error", "validate-interfaces", "ports", "architecture"]
    config("inspector", hooks="${inspector.default_hooks},memory")
    assert base.configured_names()[-1] == "memory"
    with pytest.raises(exception.DriverLoadError, match="no such"):
        base.load(["nope"])
    with pytest.raises(exception.DriverLoadError, match="before it"):
        base.load(["ports", "validate-interfaces"])
    with pytest.raises(exception.DriverLoadError, match="twice"):
        base.load(["memory", "memory"])


def test_ramdisk_error_fails(task, sample):
    inventory, plugin_data = sample
    plugin_data["error"] = "collector exploded"
    with pytest.raises(exception.HardwareInspectionFailure,
                       match="collector exploded"):
        _run(task, inventory, plugin_data, ["ramdisk-error"])


def _two_nics(inventory, pxe=None):
    second = dict(inventory["interfaces"][0], name="eth1",
                  mac_address="02:FC:00:00:00:02", ipv4_address=None,
                  ipv6_address=None)
    lo = dict(inventory["interfaces"][0], name="lo",
              mac_address="00:00:00:00:00:00", ipv4_address="127.0.0.1")
    inventory["interfaces"] += [second, lo]
    inventory["boot"]["pxe_interface"] = pxe
    return inventory


@pytest.mark.parametrize("add_ports,pxe,expected", [
    ("all", None, ["02:fc:00:00:00:01", "02:fc:00:00:00:02"]),
    ("active", None, ["02:fc:00:00:00:01"]),
    ("pxe", None, ["02:fc:00:00:00:01"]),  # unknown PXE NIC: ones with IP
    ("pxe", "02:fc:00:00:00:02", ["02:fc:00:00:00:02"]),
    ("pxe", "01-02-fc-00-00-00-02", ["02:fc:00:00:00:02"]),
    ("disabled", None, []),
])
def test_add_ports(task, sample, config, add_ports, pxe, expected):
    config("inspector", add_ports=add_ports)
    inventory, plugin_data = sample
    _run(task, _two_nics(inventory, pxe), plugin_data,
         ["validate-interfaces", "ports"])
    assert _macs(task) == expected
    assert "lo" not in plugin_data["all_interfaces"]


def test_keep_ports_and_pxe_update(task, sample, config):
    inventory, plugin_data = sample
    Port(address="02:fc:00:00:00:01", node_id=task.node.id,
         pxe_enabled=False).create()
    Port(address="02:fc:00:00:00:09", node_id=task.node.id).create()
    _run(task, inventory, dict(plugin_data), ["validate-interfaces", "ports"])
    assert _macs(task) == ["02:fc:00:00:00:01", "02:fc:00:00:00:09"]
    assert [p.pxe_enabled for p in task.ports] == [True, True]
    config("inspector", keep_ports="present")
    _run(task, inventory, dict(plugin_data), ["validate-interfaces", "ports"])
    assert _macs(task) == ["02:fc:00:00:00:01"]


def test_port_of_another_node_is_left_alone(task, sample):
    other = Node(driver="fake-hardware")
    other.create()
    Port(address="02:fc:00:00:00:01", node_id=other.id).create()
    inventory, plugin_data = sample
    _run(task, inventory, plugin_data, ["validate-interfaces", "ports"])
    assert _macs(task) == []


def test_no_valid_interface_fails(task, sample):
    inventory, plugin_data = sample
    inventory["interfaces"] = [{"name": "eth0", "mac_address": "junk"}]
    with pytest.raises(exception.HardwareInspectionFailure):
        _run(task, inventory, plugin_data, ["validate-interfaces"])


def _tlv(kind, payload: bytes):
    return [kind, binascii.hexlify(payload).decode()]


def test_local_link_connection(task, sample):
    inventory, plugin_data = sample
    inventory["interfaces"][0]["lldp"] = [
        _tlv(1, b"\x04" + bytes.fromhex("88e0f3aabbcc")),
        _tlv(2, b"\x05Ethernet1/7"),
        _tlv(5, b"switch-a.example"),
        [1, "zz-not-hex"],
    ]
    _run(task, inventory, plugin_data,
         ["validate-interfaces", "ports", "local-link-connection"])
    port = Port.from_db(task.ports[0])
    assert port.local_link_connection == {
        "switch_id": "88:e0:f3:aa:bb:cc", "port_id": "Ethernet1/7",
        "switch_info": "switch-a.example"}


def test_lldp_port_id_as_mac():
    assert llc.parse_lldp([_tlv(2, b"\x03" + bytes(6))]) == {
        "port_id": "00:00:00:00:00:00"}
    assert llc.parse_lldp(None) == {}


@pytest.mark.parametrize("hints,expected", [
    ({"name": "/dev/sdb"}, "/dev/sdb"),
    ({"name": "sdb"}, "/dev/sdb"),
    ({"size": 100}, "/dev/sdb"),
    ({"size": ">= 200"}, "/dev/sdc"),
    ({"serial": "S-C", "rotational": True}, "/dev/sdc"),
    ({"model": "nope"}, None),
])
def test_root_device_hints(hints, expected):
    disks = [{"name": "/dev/sda", "size": 2 * GIB},
             {"name": "/dev/sdb", "size": 100 * GIB, "rotational": False},
             {"name": "/dev/sdc", "size": 500 * GIB, "serial": "s-c",
              "rotational": True}]
    found = root_device.matching_disk(hints, disks)
    assert (found or {}).get("name") == expected


def test_root_device_without_hints_and_spacing(task, config):
    inventory = {"disks": [{"name": "/dev/sda", "size": 2 * GIB},
                           {"name": "/dev/sdb", "size": 20 * GIB},
                           {"name": "/dev/sdc", "size": 10 * GIB}]}
    config("inspector", disk_partitioning_spacing=False)
    node = _run(task, inventory, {}, ["root-device"])
    assert node.properties["local_gb"] == 10


def test_root_device_hint_matching_nothing_fails(task):
    task.node.properties = {"root_device": {"serial": "missing"}}
    task.node.save()
    inventory = {"disks": [{"name": "/dev/sda", "size": 20 * GIB}]}
    with pytest.raises(exception.HardwareInspectionFailure):
        _run(task, inventory, {}, ["root-device"])


def test_parse_lldp_in_plugin_data(task, sample):
    inventory, plugin_data = sample
    inventory["interfaces"][0]["lldp"] = [
        _tlv(1, b"\x04" + bytes.fromhex("88e0f3aabbcc")),
        _tlv(2, b"\x05Ethernet1/7"),
        _tlv(4, b"uplink to rack 3"),
        _tlv(5, b"sw01-dist-1b-b12"),
    ]
    _run(task, inventory, plugin_data, ["parse-lldp"])
    assert plugin_data["parsed_lldp"] == {"eth0": {
        "switch_chassis_id": "88:e0:f3:aa:bb:cc",
        "switch_port_id": "Ethernet1/7",
        "switch_port_description": "uplink to rack 3",
        "switch_system_name": "sw01-dist-1b-b12"}}


def test_physical_network(task, sample, config):
    inventory, plugin_data = sample
    config("inspector", physical_network_cidr_map=[
        "10.0.0.0/8:other", "192.0.2.0/24:provisioning"])
    _run(task, inventory, plugin_data,
         ["validate-interfaces", "ports", "physical-network"])
    assert [Port.from_db(p).physical_network for p in task.ports] == [
        "provisioning"]


def test_physical_network_bad_map_fails(task, sample, config):
    inventory, plugin_data = sample
    config("inspector", physical_network_cidr_map=["not-a-cidr"])
    with pytest.raises(exception.HardwareInspectionFailure,
                       match="physical_network_cidr_map"):
        _run(task, inventory, plugin_data, ["physical-network"])
