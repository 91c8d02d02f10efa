"""Out-of-band inspection records the inventory users and Metal3 read.

The all-in-one service drives sushy-tools' emulator (with processors,
memory and a disk); after ``inspect`` the inventory is read back with
openstacksdk and saved with ``openstack baremetal node inventory save``,
in the shape of the agent's inventory as far as Redfish tells.
"""

from __future__ import annotations

import json

import pytest

from ironic.tests.emulators.launch import RedfishEmulator, system_macs
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.functional.test_network_boot import _until_state


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    with RedfishEmulator(count=1) as bmc:
        drivers = dict(svc.TEST_DRIVERS,
                       enabled_hardware_types="fake-hardware,redfish",
                       enabled_power_interfaces="fake,redfish",
                       enabled_management_interfaces="fake,redfish",
                       enabled_inspect_interfaces="fake,no-inspect,redfish")
        service = fconf.run_service(tmp_path_factory, "aio-rf-inventory",
                                    drivers=drivers)
        server = next(service)
        conn = fconf.sdk_connection(server.endpoint)
        try:
            yield {"bmc": bmc, "conn": conn,
                   "cli": svc.Cli(server.endpoint)}
        finally:
            conn.close()
            next(service, None)


def test_redfish_inspection_stores_the_inventory(env, tmp_path):
    bmc, bm = env["bmc"], env["conn"].baremetal
    node = bm.create_node(
        driver="redfish", name="rf-inventory", inspect_interface="redfish",
        driver_info={"redfish_address": bmc.url,
                     "redfish_system_id":
                         f"/redfish/v1/Systems/{bmc.systems()[0]}"})
    bm.set_node_provision_state(node, "manage", wait=True, timeout=30)
    bm.set_node_provision_state(node, "inspect")
    _until_state(env["conn"], node.id, "manageable")

    inventory = bm.get_node_inventory(node.id)["inventory"]
    assert inventory["cpu"]["count"] == 4
    print(json.dumps(inventory))
    assert inventory["cpu"]["architecture"] in ("", "x86_64")
    assert inventory["memory"] == {"physical_mb": 8192}
    assert inventory["disks"] == [{"name": "disk0",
                                   "size": 20 * 1024 ** 3}]
    assert sorted(i["mac_address"] for i in inventory["interfaces"]) == \
        sorted(system_macs(0))
    assert inventory["boot"] == {"current_boot_mode": "uefi"}
    assert inventory["system_vendor"] == {"product_name": "emulated-0",
                                          "manufacturer": "Sushy Emulator"}

    # What a user saves with the CLI is the same document.
    out = tmp_path / "inventory.json"
    env["cli"].run("node", "inventory", "save", "rf-inventory",
                   "--file", str(out))
    saved = json.loads(out.read_text())
    assert saved["inventory"] == inventory
    assert saved["plugin_data"] == {}
