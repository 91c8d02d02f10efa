"""Ports, port groups and chassis through the unmodified openstacksdk."""

from __future__ import annotations

import pytest
from openstack import exceptions as sdk_exc

from ironic.tests.functional import service as svc


def _mac(unique: str, last: int) -> str:
    """A MAC address no other test uses (derived from the test's suffix)."""
    octets = [unique[i:i + 2] for i in (0, 2, 4)]
    return ":".join(["52", "54", *octets, f"{last:02x}"])


@pytest.fixture
def node(conn, unique):
    return conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"res-{unique}")


def test_chassis_create_get_list_update_delete(conn, unique):
    chassis = conn.baremetal.create_chassis(description=f"rack {unique}",
                                            extra={"row": 3})
    assert chassis.description == f"rack {unique}"
    assert chassis.extra == {"row": 3}
    assert len(chassis.id) == 36
    fetched = conn.baremetal.get_chassis(chassis.id)
    assert (fetched.description, fetched.extra) == (f"rack {unique}",
                                                    {"row": 3})
    assert chassis.id in {c.id for c in conn.baremetal.chassis()}
    detailed = {c.id: c for c in conn.baremetal.chassis(details=True)}
    assert detailed[chassis.id].extra == {"row": 3}

    updated = conn.baremetal.update_chassis(chassis,
                                            description="moved")
    assert updated.description == "moved"
    patched = conn.baremetal.patch_chassis(chassis, [
        {"op": "add", "path": "/extra/aisle", "value": "b"},
        {"op": "remove", "path": "/extra/row"}])
    assert patched.extra == {"aisle": "b"}
    assert conn.baremetal.get_chassis(chassis.id).description == "moved"

    conn.baremetal.delete_chassis(chassis)
    with pytest.raises(sdk_exc.NotFoundException):
        conn.baremetal.get_chassis(chassis.id)


def test_chassis_with_nodes(conn, service, unique):
    chassis = conn.baremetal.create_chassis(description=unique)
    node = conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"res-{unique}",
                                      chassis_id=chassis.id)
    assert node.chassis_id == chassis.id
    assert conn.baremetal.get_node(node.id).chassis_id == chassis.id
    # The SDK has no chassis filter; its sub-resource is plain HTTP.
    doc = svc.get_json(f"{service.endpoint}/v1/chassis/{chassis.id}/nodes")
    assert [n["uuid"] for n in doc["nodes"]] == [node.id]
    # A chassis that still holds nodes cannot go.
    with pytest.raises(sdk_exc.BadRequestException) as err:
        conn.baremetal.delete_chassis(chassis)
    assert "contains nodes" in str(err.value)
    assert conn.baremetal.get_chassis(chassis.id).id == chassis.id
    conn.baremetal.delete_node(node)
    conn.baremetal.delete_chassis(chassis)


def test_port_group_create_get_list_update_delete(conn, node, unique):
    group = conn.baremetal.create_port_group(
        node_id=node.id, name=f"bond-{unique}", address=_mac(unique, 1),
        mode="802.3ad", properties={"miimon": "100"}, extra={"vlan": 10})
    assert group.node_id == node.id
    assert group.name == f"bond-{unique}"
    assert group.address == _mac(unique, 1)
    assert group.mode == "802.3ad"
    assert group.properties == {"miimon": "100"}
    assert group.extra == {"vlan": 10}
    assert group.is_standalone_ports_supported is True
    by_name = conn.baremetal.get_port_group(f"bond-{unique}")
    assert by_name.id == group.id
    listed = list(conn.baremetal.port_groups(node=node.id, details=True))
    assert [(g.id, g.mode) for g in listed] == [(group.id, "802.3ad")]

    updated = conn.baremetal.update_port_group(group, mode="active-backup")
    assert updated.mode == "active-backup"
    patched = conn.baremetal.patch_port_group(group, [
        {"op": "replace", "path": "/extra/vlan", "value": 20}])
    assert patched.extra == {"vlan": 20}
    assert conn.baremetal.get_port_group(group.id).mode == "active-backup"

    conn.baremetal.delete_port_group(group)
    with pytest.raises(sdk_exc.NotFoundException):
        conn.baremetal.get_port_group(group.id)


def test_port_create_get_list_update_delete(conn, node, unique):
    group = conn.baremetal.create_port_group(node_id=node.id,
                                             name=f"bond-{unique}")
    llc = {"switch_id": "00:11:22:33:44:55", "port_id": "Eth1/7",
           "switch_info": "leaf-1"}
    port = conn.baremetal.create_port(
        node_id=node.id, address=_mac(unique, 2).upper(),
        port_group_id=group.id, local_link_connection=llc,
        is_pxe_enabled=True, physical_network="physnet1",
        extra={"cable": "c7"})
    # MAC addresses are stored and shown in lower case.
    assert port.address == _mac(unique, 2)
    assert port.node_id == node.id
    assert port.port_group_id == group.id
    assert port.local_link_connection == llc
    assert port.is_pxe_enabled is True
    assert port.physical_network == "physnet1"
    assert port.extra == {"cable": "c7"}

    assert conn.baremetal.get_port(port.id).address == _mac(unique, 2)
    for query in ({"node": node.id}, {"portgroup": group.id},
                  {"address": _mac(unique, 2)}):
        assert [p.id for p in conn.baremetal.ports(**query)] == [port.id]
    detailed = list(conn.baremetal.ports(node=node.id, details=True))
    assert detailed[0].local_link_connection == llc

    updated = conn.baremetal.update_port(port, is_pxe_enabled=False)
    assert updated.is_pxe_enabled is False
    patched = conn.baremetal.patch_port(port, [
        {"op": "replace", "path": "/physical_network", "value": "physnet2"},
        {"op": "remove", "path": "/extra/cable"}])
    assert (patched.physical_network, patched.extra) == ("physnet2", {})

    conn.baremetal.delete_port(port)
    with pytest.raises(sdk_exc.NotFoundException):
        conn.baremetal.get_port(port.id)


def test_port_errors(conn, no_retry_conn, node, unique):
    conn.baremetal.create_port(node_id=node.id, address=_mac(unique, 3))
    with pytest.raises(sdk_exc.ConflictException) as err:
        no_retry_conn.baremetal.create_port(node_id=node.id,
                                            address=_mac(unique, 3))
    assert _mac(unique, 3) in str(err.value)
    with pytest.raises(sdk_exc.BadRequestException) as err:
        conn.baremetal.create_port(node_id=node.id, address="52:54:zz")
    assert "52:54:zz" in str(err.value)
    with pytest.raises(sdk_exc.BadRequestException):
        conn.baremetal.create_port(node_id=node.id, address=_mac(unique, 4),
                                   local_link_connection={"bogus": 1})
    assert [p.address for p in conn.baremetal.ports(node=node.id)] == [
        _mac(unique, 3)]


def test_deleting_a_node_deletes_its_ports(conn, node, unique):
    port = conn.baremetal.create_port(node_id=node.id,
                                      address=_mac(unique, 5))
    conn.baremetal.delete_node(node)
    with pytest.raises(sdk_exc.NotFoundException):
        conn.baremetal.get_port(port.id)
