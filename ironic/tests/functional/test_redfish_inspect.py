"""Out-of-band inspection reads the emulated system into the node."""

from __future__ import annotations

import types

import pytest

from ironic.common import exception, states
from ironic.db import api as db_api
from ironic.drivers.modules import redfish_inspect
from ironic.objects.node import Node
from ironic.objects.port import Port
from ironic.tests.emulators.launch import RedfishEmulator, system_macs


@pytest.fixture(scope="module")
def emulator():
    with RedfishEmulator(count=2) as emu:
        yield emu


def _node(emu, index):
    node = Node(driver="redfish", properties={"vendor": "kept"},
                driver_info={"redfish_address": emu.url,
                             "redfish_system_id": "/redfish/v1/Systems/"
                                                  f"{emu.systems()[index]}"})
    node.create()
    return node


def test_inspection_fills_properties_and_ports(emulator, database, config):
    config("redfish", connection_retry_interval=0, connection_attempts=1)
    node = _node(emulator, 0)
    task = types.SimpleNamespace(node=node)
    assert redfish_inspect.RedfishInspect().inspect_hardware(task) == \
        states.MANAGEABLE
    node.save()
    props = Node.get(node.uuid).properties
    assert props["vendor"] == "kept"
    assert props["cpus"] == 4 and props["cpu_arch"] == "x86_64"
    assert props["memory_mb"] == 8192
    assert props["local_gb"] == 19
    ports = db_api.get_instance().get_port_list(columns=["address",
                                                         "node_id"])
    assert sorted(p["address"] for p in ports) == sorted(system_macs(0))
    assert {p["node_id"] for p in ports} == {node.id}

    stored = db_api.get_instance().get_node_inventory(node.id)
    assert stored.inventory_data["memory"] == {"physical_mb": 8192}
    assert stored.inventory_data["cpu"]["count"] == 4
    assert stored.plugin_data == {}

    # Inspecting again creates no duplicate ports.
    redfish_inspect.RedfishInspect().inspect_hardware(task)
    assert len(db_api.get_instance().get_port_list(columns=["id"])) == 2


def test_mac_of_another_node_is_not_taken(emulator, database, config):
    config("redfish", connection_retry_interval=0, connection_attempts=1)
    other = Node(driver="fake-hardware")
    other.create()
    Port(address=system_macs(1)[0], node_id=other.id).create()
    node = _node(emulator, 1)
    redfish_inspect.RedfishInspect().inspect_hardware(
        types.SimpleNamespace(node=node))
    owners = {p["address"]: p["node_id"] for p in
              db_api.get_instance().get_port_list(
                  columns=["address", "node_id"])}
    assert owners == {system_macs(1)[0]: other.id,
                      system_macs(1)[1]: node.id}


def test_unreachable_bmc_is_a_clear_failure(database, config):
    config("redfish", connection_retry_interval=0, connection_attempts=1)
    with RedfishEmulator(count=1) as emu:
        node = _node(emu, 0)
    with pytest.raises(exception.IronicException) as err:
        redfish_inspect.RedfishInspect().inspect_hardware(
            types.SimpleNamespace(node=node))
    assert "Unable to reach the Redfish BMC" in str(err.value)
