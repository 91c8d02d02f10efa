"""VIFs (1.28, 1.67) through the API, an in-process conductor and the
``noop`` and ``flat`` network interfaces."""

from __future__ import annotations

import uuid as uuidlib

import pytest

from ironic.db import api as db_api
from ironic.tests.fixtures import error_message
from ironic.tests.unit.api.test_node_management import _lock, _node, env

__all__ = ["env"]

VIF = "2e6f5c38-8d4b-4c5e-9f83-1b4b6b9e0a11"
VIF2 = "7c1f0d4a-3b2e-4a61-8f5d-2d9e3c4b5a62"


def _port(api, node, address, **extra):
    resp = api.post("/v1/ports", {"node_uuid": node, "address": address,
                                  **extra})
    assert resp.status_int == 201, resp.body
    return resp.json["uuid"]


def _portgroup(api, node, address, **extra):
    resp = api.post("/v1/portgroups", {"node_uuid": node,
                                       "address": address, **extra})
    assert resp.status_int == 201, resp.body
    return resp.json["uuid"]


def _vifs(api, node):
    resp = api.get(f"/v1/nodes/{node}/vifs")
    assert resp.status_int == 200, resp.body
    return [v["id"] for v in resp.json["vifs"]]


def _internal(api, kind, ident):
    return api.get(f"/v1/{kind}/{ident}").json["internal_info"]


def test_flat_attach_list_detach(env):
    api, _ = env
    node = _node(api, network_interface="flat")
    port = _port(api, node, "52:54:00:00:00:01")
    assert _vifs(api, node) == []
    resp = api.post(f"/v1/nodes/{node}/vifs", {"id": VIF}, version="1.28")
    assert resp.status_int == 204, resp.body
    assert resp.body == b""
    assert _vifs(api, node) == [VIF]
    assert _internal(api, "ports", port) == {"tenant_vif_port_id": VIF}
    resp = api.delete(f"/v1/nodes/{node}/vifs/{VIF}", version="1.28")
    assert resp.status_int == 204, resp.body
    assert _vifs(api, node) == []
    assert _internal(api, "ports", port) == {}


def test_flat_prefers_pxe_ports_and_runs_out(env):
    api, _ = env
    node = _node(api, network_interface="flat")
    plain = _port(api, node, "52:54:00:00:00:02", pxe_enabled=False)
    pxe = _port(api, node, "52:54:00:00:00:03", pxe_enabled=True)
    assert api.post(f"/v1/nodes/{node}/vifs",
                    {"id": VIF}).status_int == 204
    assert _internal(api, "ports", pxe)["tenant_vif_port_id"] == VIF
    assert api.post(f"/v1/nodes/{node}/vifs",
                    {"id": VIF2}).status_int == 204
    assert _internal(api, "ports", plain)["tenant_vif_port_id"] == VIF2
    assert sorted(_vifs(api, node)) == sorted([VIF, VIF2])
    resp = api.post(f"/v1/nodes/{node}/vifs", {"id": "third-vif"})
    assert resp.status_int == 400, resp.body
    assert "third-vif" in error_message(resp)


def test_flat_prefers_portgroups_with_ports(env):
    api, _ = env
    node = _node(api, network_interface="flat")
    empty = _portgroup(api, node, "52:54:00:00:01:00", name=f"e{node[:6]}")
    group = _portgroup(api, node, "52:54:00:00:01:01")
    _port(api, node, "52:54:00:00:01:02", portgroup_uuid=group)
    assert api.post(f"/v1/nodes/{node}/vifs",
                    {"id": VIF}).status_int == 204
    assert _internal(api, "portgroups", group)["tenant_vif_port_id"] == VIF
    assert _internal(api, "portgroups", empty) == {}
    # The port of the group is only used through the group.
    assert api.post(f"/v1/nodes/{node}/vifs",
                    {"id": VIF2}).status_int == 400


def test_flat_same_vif_twice_is_409(env):
    api, _ = env
    node = _node(api, network_interface="flat")
    _port(api, node, "52:54:00:00:02:01")
    _port(api, node, "52:54:00:00:02:02")
    assert api.post(f"/v1/nodes/{node}/vifs",
                    {"id": VIF}).status_int == 204
    resp = api.post(f"/v1/nodes/{node}/vifs", {"id": VIF})
    assert resp.status_int == 409, resp.body
    assert VIF in error_message(resp)


def test_flat_detach_unknown_vif_is_400(env):
    api, _ = env
    node = _node(api, network_interface="flat")
    resp = api.delete(f"/v1/nodes/{node}/vifs/{VIF}")
    assert resp.status_int == 400, resp.body
    assert VIF in error_message(resp)


def test_attach_to_a_given_port_or_portgroup(env):
    api, _ = env
    node = _node(api, network_interface="flat")
    first = _port(api, node, "52:54:00:00:03:01")
    second = _port(api, node, "52:54:00:00:03:02")
    group = _portgroup(api, node, "52:54:00:00:03:03")
    resp = api.post(f"/v1/nodes/{node}/vifs",
                    {"id": VIF, "port_uuid": second}, version="1.67")
    assert resp.status_int == 204, resp.body
    assert _internal(api, "ports", second)["tenant_vif_port_id"] == VIF
    assert _internal(api, "ports", first) == {}
    resp = api.post(f"/v1/nodes/{node}/vifs",
                    {"id": VIF2, "portgroup_uuid": group.upper()})
    assert resp.status_int == 204, resp.body
    assert _internal(api, "portgroups", group)["tenant_vif_port_id"] == VIF2
    # Taken already.
    resp = api.post(f"/v1/nodes/{node}/vifs",
                    {"id": "other", "port_uuid": second})
    assert resp.status_int == 409, resp.body


def test_attach_to_port_errors(env):
    api, _ = env
    node = _node(api, network_interface="flat")
    other = _node(api, network_interface="flat")
    foreign = _port(api, other, "52:54:00:00:04:01")
    port = _port(api, node, "52:54:00:00:04:02")
    url = f"/v1/nodes/{node}/vifs"
    resp = api.post(url, {"id": VIF, "port_uuid": foreign})
    assert resp.status_int == 400, resp.body
    resp = api.post(url, {"id": VIF, "port_uuid": port,
                          "portgroup_uuid": port})
    assert resp.status_int == 400
    assert "both" in error_message(resp)
    assert api.post(url, {"id": VIF, "port_uuid": "nope"}).status_int == 400
    resp = api.post(url, {"id": VIF, "port_uuid": port}, version="1.66")
    assert resp.status_int == 406
    assert _vifs(api, node) == []


def test_noop_accepts_and_records_nothing(env):
    api, _ = env
    node = _node(api, network_interface="noop")
    _port(api, node, "52:54:00:00:05:01")
    assert api.post(f"/v1/nodes/{node}/vifs",
                    {"id": VIF}).status_int == 204
    assert _vifs(api, node) == []
    assert api.delete(f"/v1/nodes/{node}/vifs/{VIF}").status_int == 204


@pytest.mark.parametrize("body", [
    {}, {"id": ""}, {"id": 5}, {"id": "not a name!"}, {"port_uuid": VIF},
    ["x"],
])
def test_bad_attach_bodies_are_400(env, body):
    api, _ = env
    node = _node(api, network_interface="flat")
    _port(api, node, "52:54:00:00:06:01")
    resp = api.post(f"/v1/nodes/{node}/vifs", body)
    assert resp.status_int == 400, resp.body
    assert _vifs(api, node) == []


def test_extra_vif_information_is_accepted(env):
    api, _ = env
    node = _node(api, network_interface="flat")
    _port(api, node, "52:54:00:00:07:01")
    resp = api.post(f"/v1/nodes/{node}/vifs", {"id": VIF, "note": "x"})
    assert resp.status_int == 204, resp.body
    assert _vifs(api, node) == [VIF]


def test_versions_missing_nodes_and_locks(env):
    api, _ = env
    node = _node(api, network_interface="flat")
    _port(api, node, "52:54:00:00:08:01")
    url = f"/v1/nodes/{node}/vifs"
    assert api.get(url, version="1.27").status_int == 404
    assert api.post(url, {"id": VIF}, version="1.27").status_int == 404
    assert api.delete(f"{url}/{VIF}", version="1.27").status_int == 404
    missing = f"/v1/nodes/{uuidlib.uuid4()}/vifs"
    assert api.get(missing).status_int == 404
    assert api.post(missing, {"id": VIF}).status_int == 404
    assert api.delete(f"{url}/bad%20id").status_int == 400
    _lock(node)
    assert api.get(url).status_int == 200
    assert api.post(url, {"id": VIF}).status_int == 409
    assert api.delete(f"{url}/{VIF}").status_int == 409


@pytest.mark.parametrize("provider,enabled,expected", [
    ("neutron", ["flat", "noop"], "flat"),
    ("none", ["flat", "noop"], "flat"),
    ("none", ["noop", "flat"], "flat"),
    ("none", ["noop"], "noop"),
])
def test_network_default_is_the_hardware_types_first_enabled(
        env, config, provider, enabled, expected):
    # As Ironic 39 computes it (checked against a running one): the
    # hardware type's order decides, not the DHCP provider nor the order
    # of enabled_network_interfaces.
    from ironic import driver_registry
    config("dhcp", dhcp_provider=provider)
    config(enabled_network_interfaces=enabled)
    driver_registry.reset()
    info = driver_registry.load().hardware_type("fake-hardware")
    assert info.defaults["network"] == expected
    driver_registry.reset()


def test_no_conductor_for_the_node_is_400(env):
    # No conductor serves this conductor group.
    api, _ = env
    node = _node(api, network_interface="flat")
    dbapi = db_api.get_instance()
    dbapi.update_node(dbapi.get_node_by_uuid(node).id,
                      {"conductor_group": "nowhere"})
    resp = api.get(f"/v1/nodes/{node}/vifs")
    assert resp.status_int == 400, resp.body
    assert api.post(f"/v1/nodes/{node}/vifs",
                    {"id": VIF}).status_int == 400
    assert api.delete(f"/v1/nodes/{node}/vifs/{VIF}").status_int == 400
