"""Ports, port groups and chassis through ``openstack baremetal``.

One scenario per resource (each CLI call is a process start); setup that is
not under test goes through the SDK.
"""

from __future__ import annotations

import pytest


def _mac(unique: str, last: int) -> str:
    octets = [unique[i:i + 2] for i in (0, 2, 4)]
    return ":".join(["52", "55", *octets, f"{last:02x}"])


@pytest.fixture
def node(conn, unique):
    return conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"clires-{unique}")


def _gone(cli, *args: str) -> str:
    result = cli.run(*args, check=False)
    assert result.returncode != 0
    assert "HTTP 404" in result.stderr
    return result.stderr


def test_chassis_create_list_show_delete(cli, unique):
    created = cli.json("chassis", "create", "--description",
                       f"rack {unique}", "--extra", "row=r9")
    assert created["description"] == f"rack {unique}"
    assert created["extra"] == {"row": "r9"}
    uuid = created["uuid"]
    listed = cli.json("chassis", "list")
    assert {"uuid": uuid, "description": f"rack {unique}"} in listed
    shown = cli.json("chassis", "show", uuid)
    assert shown["uuid"] == uuid
    assert shown["extra"] == {"row": "r9"}
    assert shown["created_at"] == created["created_at"]
    deleted = cli.run("chassis", "delete", uuid)
    assert f"Deleted chassis {uuid}" in deleted.stdout + deleted.stderr
    _gone(cli, "chassis", "show", uuid)


def test_port_group_create_list_show_delete(cli, node, unique):
    name = f"bond-{unique}"
    created = cli.json(
        "port", "group", "create", "--node", node.id, "--name", name,
        "--address", _mac(unique, 1), "--mode", "balance-rr",
        "--property", "miimon=100", "--extra", "vlan=10")
    assert created["node_uuid"] == node.id
    assert created["name"] == name
    assert created["address"] == _mac(unique, 1)
    assert created["mode"] == "balance-rr"
    assert created["properties"] == {"miimon": 100}
    assert created["extra"] == {"vlan": 10}
    uuid = created["uuid"]
    listed = cli.json("port", "group", "list", "--node", node.id)
    assert listed == [{"uuid": uuid, "address": _mac(unique, 1),
                       "name": name}]
    shown = cli.json("port", "group", "show", name)
    assert shown["uuid"] == uuid
    assert shown["mode"] == "balance-rr"
    cli.run("port", "group", "delete", name)
    _gone(cli, "port", "group", "show", uuid)


def test_port_create_list_show_set_delete(cli, conn, node, unique):
    group = conn.baremetal.create_port_group(node_id=node.id,
                                             name=f"bond-{unique}")
    created = cli.json(
        "port", "create", _mac(unique, 2), "--node", node.id,
        "--port-group", group.id,
        "--local-link-connection", "switch_id=00:11:22:33:44:55",
        "--local-link-connection", "port_id=Eth1/9",
        "--physical-network", "physnet1", "--pxe-enabled", "true",
        "--extra", "cable=c9")
    assert created["address"] == _mac(unique, 2)
    assert created["node_uuid"] == node.id
    assert created["portgroup_uuid"] == group.id
    assert created["local_link_connection"] == {
        "switch_id": "00:11:22:33:44:55", "port_id": "Eth1/9"}
    assert created["physical_network"] == "physnet1"
    assert created["pxe_enabled"] is True
    assert created["extra"] == {"cable": "c9"}
    uuid = created["uuid"]

    listed = cli.json("port", "list", "--node", node.id)
    assert listed == [{"uuid": uuid, "address": _mac(unique, 2)}]
    cli.run("port", "set", uuid, "--physical-network", "physnet2",
            "--extra", "slot=4")
    shown = cli.json("port", "show", uuid)
    assert shown["physical_network"] == "physnet2"
    assert shown["extra"] == {"cable": "c9", "slot": 4}
    cli.run("port", "delete", uuid)
    _gone(cli, "port", "show", uuid)
    assert conn.baremetal.get_port_group(group.id).id == group.id


def test_duplicate_port_address_is_reported(cli, conn, node, unique):
    conn.baremetal.create_port(node_id=node.id, address=_mac(unique, 3))
    dup = cli.run("port", "create", _mac(unique, 3), "--node", node.id,
                  check=False)
    assert dup.returncode != 0
    assert "HTTP 409" in dup.stderr
    assert _mac(unique, 3) in dup.stderr
