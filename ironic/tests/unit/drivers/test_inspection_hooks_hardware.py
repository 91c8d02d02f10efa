"""The hardware hooks (accelerators, cpus, extra-hardware, pci-devices,
raid-device) on real nodes in sqlite, fed what the real agent sends.

The PCI devices come from the real agent's ``pci-devices`` collector run
on this machine (``ironic.tests.ipa_collectors``), the inventory from the
agent's sample inspection data.
"""

from __future__ import annotations

import copy
import json

import pytest

from ironic.common import exception
from ironic.db import api as db_api
from ironic.drivers.modules.inspector.hooks import base
from ironic.objects.node import Node
from ironic.tests import ipa_collectors
from ironic.tests.unit.drivers import test_inspection_hooks as hooks_tests

# A node in sqlite and the agent's sample data, as for the other hooks.
task, sample = hooks_tests.task, hooks_tests.sample


@pytest.fixture(scope="module")
def this_machine_pci():
    """What the real agent's pci-devices collector reports here."""
    return ipa_collectors.collect("pci-devices")["pci_devices"]


def _run(task, inventory, plugin_data, *names):
    base.run(task, inventory, plugin_data, base.load(list(names)))
    return Node.get(task.node.uuid)


# -- cpus -------------------------------------------------------------------

def test_cpus_from_the_inventory(task, sample):
    inventory, plugin_data = sample
    node = _run(task, inventory, plugin_data, "cpus")
    assert node.properties["cpus"] == inventory["cpu"]["count"] > 0


@pytest.mark.parametrize("cpu", [{}, {"count": 0}, {"count": "many"}, None])
def test_cpus_without_a_count_leaves_the_node(task, sample, cpu):
    inventory, plugin_data = sample
    inventory["cpu"] = cpu
    assert "cpus" not in _run(task, inventory, plugin_data,
                              "cpus").properties


# -- accelerators -------------------------------------------------------------

def test_accelerators_from_the_agents_pci_devices(task, sample, config,
                                                  tmp_path,
                                                  this_machine_pci):
    inventory, plugin_data = sample
    plugin_data["pci_devices"] = this_machine_pci
    nic = next(d for d in this_machine_pci if d["class"] == "020000")
    known = tmp_path / "known.yaml"
    known.write_text(
        "pci_devices:\n"
        f"  - vendor_id: '{nic['vendor_id']}'\n"
        f"    device_id: '{nic['product_id']}'\n"
        "    type: SmartNIC\n"
        "    device_info: the test machine's NIC\n")
    config("inspector", known_accelerators=str(known))
    node = _run(task, inventory, plugin_data, "accelerators")
    assert node.properties["accelerators"] == [{
        "vendor_id": nic["vendor_id"], "device_id": nic["product_id"],
        "type": "SmartNIC", "device_info": "the test machine's NIC",
        "pci_address": nic["bus"]}]


def test_accelerators_shipped_list_knows_a_t4(task, sample,
                                              this_machine_pci):
    inventory, plugin_data = sample
    t4 = {"vendor_id": "10DE", "product_id": "1eb8", "class": "030200",
          "revision": "a1", "bus": "0000:3b:00.0"}
    plugin_data["pci_devices"] = this_machine_pci + [t4]
    node = _run(task, inventory, plugin_data, "accelerators")
    [acc] = node.properties["accelerators"]
    assert acc["type"] == "GPU" and acc["pci_address"] == "0000:3b:00.0"
    assert "T4" in acc["device_info"]


def test_accelerators_none_known_is_an_empty_list(task, sample,
                                                  this_machine_pci):
    inventory, plugin_data = sample
    plugin_data["pci_devices"] = this_machine_pci
    node = _run(task, inventory, plugin_data, "accelerators")
    assert node.properties["accelerators"] == []


def test_accelerators_without_pci_data_leaves_the_node(task, sample):
    inventory, plugin_data = sample
    node = _run(task, inventory, plugin_data, "accelerators")
    assert "accelerators" not in node.properties


@pytest.mark.parametrize("text", ["pci_devices: 3\n", "[1, 2]\n",
                                  "pci_devices:\n  - vendor_id: '10de'\n",
                                  "pci_devices: [\n"])
def test_accelerators_bad_file_is_a_load_error(config, tmp_path, text,
                                                database):
    path = tmp_path / "known.yaml"
    path.write_text(text)
    config("inspector", known_accelerators=str(path))
    with pytest.raises(exception.DriverLoadError, match="known_accelerators"):
        base.load(["accelerators"])


# -- pci-devices --------------------------------------------------------------

def test_pci_devices_counts_aliases(task, sample, config, this_machine_pci):
    inventory, plugin_data = sample
    plugin_data["pci_devices"] = this_machine_pci
    virtio = [d for d in this_machine_pci if d["vendor_id"] == "1af4"]
    first = virtio[0]
    same = sum(1 for d in virtio if d["product_id"] == first["product_id"])
    config("inspector", pci_device_alias=[
        json.dumps({"vendor_id": first["vendor_id"],
                    "product_id": first["product_id"], "name": "virtio_a"}),
        json.dumps({"vendor_id": "dead", "product_id": "beef",
                    "name": "absent"}),
        "not json", json.dumps({"vendor_id": "1af4", "name": "no_product"})])
    task.node.properties = {"capabilities": "boot_mode:uefi"}
    node = _run(task, inventory, plugin_data, "pci-devices")
    caps = base.parse_capabilities(node.properties["capabilities"])
    assert caps == {"boot_mode": "uefi", "virtio_a": str(same)}


def test_pci_devices_without_data_leaves_the_node(task, sample, config):
    inventory, plugin_data = sample
    config("inspector", pci_device_alias=[json.dumps(
        {"vendor_id": "1af4", "product_id": "1041", "name": "nic"})])
    node = _run(task, inventory, plugin_data, "pci-devices")
    assert "capabilities" not in node.properties


# -- extra-hardware -----------------------------------------------------------

# Records in the shape hardware-detect (the agent's extra-hardware
# collector) prints them.
HARDWARE_DETECT = [
    ["cpu", "physical", "number", "2"],
    ["cpu", "physical_0", "vendor", "GenuineIntel"],
    ["cpu", "logical", "number", "8"],
    ["memory", "total", "size", "17179869184"],
    ["disk", "sda", "size", "500"],
    ["disk", "sda", "model", "Virtual disk"],
    ["network", "eth0", "serial", "52:54:00:12:34:56"],
    [],
]


def test_extra_hardware_nests_the_records(task, sample):
    inventory, plugin_data = sample
    plugin_data["data"] = copy.deepcopy(HARDWARE_DETECT)
    _run(task, inventory, plugin_data, "extra-hardware")
    assert "data" not in plugin_data
    extra = plugin_data["extra"]
    assert extra["cpu"]["physical"]["number"] == 2
    assert extra["cpu"]["physical_0"]["vendor"] == "GenuineIntel"
    assert extra["memory"]["total"]["size"] == 17179869184
    assert extra["disk"]["sda"] == {"size": 500, "model": "Virtual disk"}


def test_extra_hardware_skips_short_records_unless_strict(task, sample,
                                                          config):
    inventory, plugin_data = sample
    plugin_data["data"] = HARDWARE_DETECT + [["cpu", "bad"]]
    _run(task, inventory, plugin_data, "extra-hardware")
    assert plugin_data["extra"]["cpu"]["logical"]["number"] == 8
    config("inspector", extra_hardware_strict=True)
    plugin_data = {"data": HARDWARE_DETECT + [["cpu", "bad"]]}
    _run(task, inventory, plugin_data, "extra-hardware")
    assert "data" not in plugin_data and "extra" not in plugin_data


def test_extra_hardware_other_shapes_are_left_alone(task, sample):
    inventory, plugin_data = sample
    plugin_data["data"] = {"not": "records"}
    _run(task, inventory, plugin_data, "extra-hardware")
    assert plugin_data["data"] == {"not": "records"}
    assert "extra" not in plugin_data


# -- raid-device --------------------------------------------------------------

def _with_disk(inventory, serial):
    inv = copy.deepcopy(inventory)
    disk = dict(inv["disks"][0], name="/dev/md0", serial=serial)
    inv["disks"].append(disk)
    return inv


@pytest.fixture
def raid_sample(sample):
    inventory, plugin_data = sample
    inventory["disks"][0]["serial"] = "DISK-0"
    return inventory, plugin_data


def test_raid_device_finds_the_new_volume(task, raid_sample):
    inventory, plugin_data = raid_sample
    # First inspection: recorded, nothing to compare with.
    node = _run(task, inventory, plugin_data, "raid-device")
    assert "root_device" not in node.properties
    db_api.get_instance().set_node_inventory(task.node.id, inventory, {})
    after = _with_disk(inventory, "RAID-VOLUME-1")
    node = _run(task, after, {}, "raid-device")
    assert node.properties["root_device"] == {"serial": "RAID-VOLUME-1"}


def test_raid_device_two_new_disks_decide_nothing(task, raid_sample):
    inventory, plugin_data = raid_sample
    db_api.get_instance().set_node_inventory(task.node.id, inventory, {})
    after = _with_disk(_with_disk(inventory, "V1"), "V2")
    node = _run(task, after, {}, "raid-device")
    assert "root_device" not in node.properties


def test_raid_device_keeps_existing_hints(task, raid_sample):
    inventory, _ = raid_sample
    db_api.get_instance().set_node_inventory(task.node.id, inventory, {})
    task.node.properties = {"root_device": {"name": "/dev/sdb"}}
    task.node.save()
    node = _run(task, _with_disk(inventory, "V1"), {}, "raid-device")
    assert node.properties["root_device"] == {"name": "/dev/sdb"}
