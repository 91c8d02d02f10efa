"""Node management through the real ``openstack baremetal`` CLI and
openstacksdk against the running all-in-one: RAID, NMI, boot mode,
secure boot and VIFs on fake-hardware nodes."""

from __future__ import annotations

import json

import pytest

from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc

RAID = {"logical_disks": [{"size_gb": 20, "raid_level": "1",
                           "is_root_volume": True},
                          {"size_gb": "MAX", "raid_level": "5"}]}


@pytest.fixture
def node(conn, unique):
    return conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"mgmt-{unique}")


def test_cli_target_raid_config(cli, node):
    cli.run("node", "set", node.id, "--target-raid-config", json.dumps(RAID))
    shown = cli.json("node", "show", node.id, "--fields",
                     "target_raid_config")
    assert shown["target_raid_config"] == RAID
    bad = cli.run("node", "set", node.id, "--target-raid-config",
                  json.dumps({"logical_disks": [{"size_gb": 1}]}),
                  check=False)
    assert bad.returncode != 0
    assert "raid_level" in bad.stderr


def test_cli_driver_raid_properties(cli):
    props = cli.json("driver", "raid", "property", "list", "fake-hardware")
    names = {p["property"] for p in props}
    assert {"size_gb", "raid_level", "is_root_volume"} <= names


def test_cli_inject_nmi(cli, conn, node):
    cli.run("node", "inject", "nmi", node.id)
    conn.baremetal.inject_nmi_to_node(node)
    assert conn.baremetal.get_node(node.id).reservation is None


def test_cli_boot_mode_and_secure_boot(cli, conn, node, needs_version):
    needs_version(76)
    cli.run("node", "boot", "mode", "set", node.id, "bios")
    fconf.wait_for_node(conn, node.id, boot_mode="bios")
    cli.run("node", "secure", "boot", "on", node.id)
    fconf.wait_for_node(conn, node.id, is_secure_boot=True)


VIF = "8a3f1e2d-4c5b-4a69-9e7d-0f1a2b3c4d5e"


@pytest.fixture
def flat_node(conn, unique):
    node = conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"vif-{unique}",
                                      network_interface="flat")
    mac = "52:54:00:%s:%s:%s" % (unique[:2], unique[2:4], unique[4:6])
    port = conn.baremetal.create_port(node_id=node.id, address=mac)
    return node, port


def test_cli_vif_attach_list_detach(cli, conn, flat_node):
    node, port = flat_node
    cli.run("node", "vif", "attach", node.id, VIF)
    listed = cli.json("node", "vif", "list", node.id)
    assert [v["id"] for v in listed] == [VIF]
    assert conn.baremetal.get_port(port.id).internal_info == {
        "tenant_vif_port_id": VIF}
    again = cli.run("node", "vif", "attach", node.id, VIF, check=False)
    assert again.returncode != 0
    assert "already attached" in again.stderr
    cli.run("node", "vif", "detach", node.id, VIF)
    assert cli.json("node", "vif", "list", node.id) == []
    missing = cli.run("node", "vif", "detach", node.id, VIF, check=False)
    assert missing.returncode != 0
    assert "not attached" in missing.stderr


def test_sdk_vifs(conn, flat_node):
    node, _ = flat_node
    conn.baremetal.attach_vif_to_node(node, VIF)
    assert conn.baremetal.list_node_vifs(node) == [VIF]
    conn.baremetal.detach_vif_from_node(node, VIF)
    assert conn.baremetal.list_node_vifs(node) == []


def test_cli_vif_attach_to_a_port(cli, conn, flat_node, needs_version):
    needs_version(67)
    node, port = flat_node
    cli.run("node", "vif", "attach", node.id, VIF, "--port-uuid", port.id)
    assert conn.baremetal.get_port(port.id).internal_info == {
        "tenant_vif_port_id": VIF}


def test_rest_indicators(service, node, needs_version):
    # No client command exists for indicators: plain HTTP, as documented.
    needs_version(63)
    import urllib.request
    base = f"{service.endpoint}/v1/nodes/{node.id}/management/indicators"
    headers = {"X-OpenStack-Ironic-API-Version": "1.63",
               "Content-Type": "application/json"}
    listed = svc.get_json(base, headers)
    assert "led@system" in {i["name"] for i in listed["indicators"]}
    req = urllib.request.Request(f"{base}/led@system", method="PUT",
                                 data=b'{"state": "BLINKING"}',
                                 headers=headers)
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert resp.status == 204
    assert svc.get_json(f"{base}/led@system", headers) == {
        "state": "BLINKING"}


def test_sdk_boot_mode_and_secure_boot(conn, node, needs_version):
    needs_version(76)
    conn.baremetal.set_node_boot_mode(node, "uefi")
    fconf.wait_for_node(conn, node.id, boot_mode="uefi")
    conn.baremetal.set_node_secure_boot(node, False)
    fetched = fconf.wait_for_node(conn, node.id, is_secure_boot=False)
    assert fetched.boot_mode == "uefi"
