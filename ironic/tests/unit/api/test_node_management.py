"""Node management endpoints through the API and an in-process conductor:
RAID (1.12), inject NMI (1.29), boot mode and secure boot (1.76)."""

from __future__ import annotations

import pytest

from ironic import hash_ring
from ironic.api.controllers.v1 import versions
from ironic.common import rpc, states
from ironic.conductor import base_manager, rpcapi
from ironic.tests import fixtures as ifx
from ironic.tests.fixtures import error_message

NEWEST = f"1.{versions.NEWEST_KNOWN}"
ROOT_DISK = {"size_gb": 10, "raid_level": "1", "is_root_volume": True}


@pytest.fixture
def env(api_newest, config, monkeypatch):
    config(rpc_transport="none", host="test-conductor")
    config("conductor", node_locked_retry_attempts=0)
    rpc.reset()
    hash_ring.reset()
    monkeypatch.setattr(rpcapi, "_API", None)
    svc = base_manager.ConductorService()
    svc.start()
    yield api_newest, svc
    svc.stop(timeout=5)
    rpc.reset()


def _node(api, **extra) -> str:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", **extra})
    assert resp.status_int == 201, resp.body
    return resp.json["uuid"]


# -- RAID ---------------------------------------------------------------------

def test_raid_set_show_and_clear(env):
    api, _ = env
    uuid = _node(api)
    config = {"logical_disks": [ROOT_DISK, {
        "size_gb": "MAX", "raid_level": "5", "controller": "RAID.1",
        "physical_disks": ["d1", "d2", "d3"], "disk_type": "ssd"}]}
    resp = api.put(f"/v1/nodes/{uuid}/states/raid", config, version="1.12")
    assert resp.status_int == 204, resp.body
    assert resp.body == b""
    doc = api.get(f"/v1/nodes/{uuid}/states", version="1.12").json
    assert doc["target_raid_config"] == config
    assert doc["raid_config"] == {}
    assert api.put(f"/v1/nodes/{uuid}/states/raid", {}).status_int == 204
    assert api.get(f"/v1/nodes/{uuid}").json["target_raid_config"] == {}


@pytest.mark.parametrize("raid", [
    {"logical_disks": []},
    {"logical_disks": [{"size_gb": 10}]},
    {"logical_disks": [{"raid_level": "1"}]},
    {"logical_disks": [dict(ROOT_DISK, raid_level="7")]},
    {"logical_disks": [dict(ROOT_DISK, size_gb=0)]},
    {"logical_disks": [dict(ROOT_DISK, size_gb="10")]},
    {"logical_disks": [dict(ROOT_DISK, unknown=1)]},
    {"logical_disks": [dict(ROOT_DISK, physical_disks=["a"])]},
    {"logical_disks": [ROOT_DISK, ROOT_DISK]},
    {"logical_disks": [ROOT_DISK], "extra": 1},
    {"logical_disks": {"size_gb": 1}},
])
def test_raid_bad_configurations_are_400(env, raid):
    api, _ = env
    uuid = _node(api)
    resp = api.put(f"/v1/nodes/{uuid}/states/raid", raid)
    assert resp.status_int == 400, resp.body
    assert "RAID" in error_message(resp)
    assert api.get(f"/v1/nodes/{uuid}").json["target_raid_config"] == {}


def test_raid_body_must_be_an_object(env):
    api, _ = env
    uuid = _node(api)
    assert api.put(f"/v1/nodes/{uuid}/states/raid",
                   [ROOT_DISK]).status_int == 400
    assert api.put(f"/v1/nodes/{uuid}/states/raid",
                   raw=b"{nope").status_int == 400


def test_raid_versions_and_missing_nodes(env):
    api, _ = env
    uuid = _node(api)
    config = {"logical_disks": [ROOT_DISK]}
    resp = api.put(f"/v1/nodes/{uuid}/states/raid", config, version="1.11")
    assert resp.status_int == 406
    assert api.put("/v1/nodes/nope/states/raid", config).status_int == 404


def test_bounds_checked_once_the_node_is_found(env):
    # states/raid and traits refuse an older version with 406 only for a
    # node that exists: a missing node is 404 at any version.
    api, _ = env
    uuid = _node(api)
    config = {"logical_disks": [ROOT_DISK]}
    resp = api.put(f"/v1/nodes/{uuid}/states/raid", config, version="1.11")
    assert resp.status_int == 406
    assert error_message(resp) == "Request not acceptable."
    assert api.put("/v1/nodes/nope/states/raid", config,
                   version="1.11").status_int == 404
    assert api.get(f"/v1/nodes/{uuid}/traits",
                   version="1.36").status_int == 406
    assert api.get("/v1/nodes/nope/traits", version="1.36").status_int == 404
    assert api.get(f"/v1/nodes/{uuid}/traits",
                   version="1.37").json == {"traits": []}


def test_raid_without_raid_support_is_404(env):
    api, _ = env
    uuid = _node(api, raid_interface="no-raid")
    resp = api.put(f"/v1/nodes/{uuid}/states/raid",
                   {"logical_disks": [ROOT_DISK]})
    assert resp.status_int == 404, resp.body


def test_raid_on_a_locked_node_is_409(env):
    api, _ = env
    uuid = _node(api)
    _lock(uuid)
    resp = api.put(f"/v1/nodes/{uuid}/states/raid",
                   {"logical_disks": [ROOT_DISK]})
    assert resp.status_int == 409, resp.body


def test_raid_logical_disk_properties(env):
    api, _ = env
    doc = api.get("/v1/drivers/fake-hardware/raid/logical_disk_properties",
                  version="1.12").json
    assert {"raid_level", "size_gb", "is_root_volume", "volume_name",
            "controller", "physical_disks", "disk_type", "interface_type",
            "number_of_physical_disks", "share_physical_disks"} == set(doc)
    assert "Required" in doc["size_gb"]


def test_fake_raid_clean_steps_build_the_target(env):
    api, svc = env
    uuid = _node(api)
    config = {"logical_disks": [ROOT_DISK, {"size_gb": 50,
                                            "raid_level": "0"}]}
    assert api.put(f"/v1/nodes/{uuid}/states/raid",
                   config).status_int == 204
    _provision(env, uuid, "manage")
    _provision(env, uuid, "clean", clean_steps=[
        {"interface": "raid", "step": "delete_configuration"},
        {"interface": "raid", "step": "create_configuration",
         "args": {"create_nonroot_volumes": False}}])
    doc = api.get(f"/v1/nodes/{uuid}").json
    assert doc["provision_state"] == states.MANAGEABLE, doc["last_error"]
    assert doc["raid_config"] == {"logical_disks": [ROOT_DISK]}


# -- inject NMI -----------------------------------------------------------------

def test_inject_nmi(env, monkeypatch):
    from ironic.drivers.modules import fake
    api, _ = env
    uuid = _node(api)
    sent = []
    monkeypatch.setattr(fake.FakeManagement, "inject_nmi",
                        lambda self, task: sent.append(task.node.uuid))
    resp = api.put(f"/v1/nodes/{uuid}/management/inject_nmi", {},
                   version="1.29")
    assert resp.status_int == 204, resp.body
    assert resp.body == b""
    # The client may send no body at all.
    resp = api.request("PUT", f"/v1/nodes/{uuid}/management/inject_nmi")
    assert resp.status_int == 204, resp.body
    assert sent == [uuid, uuid]
    assert api.get(f"/v1/nodes/{uuid}").json["reservation"] is None


def test_inject_nmi_errors(env):
    api, _ = env
    uuid = _node(api)
    url = f"/v1/nodes/{uuid}/management/inject_nmi"
    assert api.put(url, {}, version="1.28").status_int == 404
    assert api.put("/v1/nodes/nope/management/inject_nmi",
                   {}).status_int == 404
    assert api.get(url).status_int == 405
    _lock(uuid)
    assert api.put(url, {}).status_int == 409


def test_inject_nmi_unsupported_is_400(env, monkeypatch):
    from ironic.drivers import base
    from ironic.drivers.modules import fake
    api, _ = env
    uuid = _node(api)
    monkeypatch.setattr(fake.FakeManagement, "inject_nmi",
                        base.ManagementInterface.inject_nmi)
    resp = api.put(f"/v1/nodes/{uuid}/management/inject_nmi", {})
    assert resp.status_int == 400, resp.body
    assert "inject_nmi" in error_message(resp)


# -- boot mode and secure boot ---------------------------------------------------

def test_boot_mode_and_secure_boot_change_in_a_worker(env):
    api, svc = env
    uuid = _node(api)
    resp = api.put(f"/v1/nodes/{uuid}/states/boot_mode", {"target": "bios"},
                   version="1.76")
    assert resp.status_int == 202, resp.body
    assert resp.location.endswith(f"/v1/nodes/{uuid}/states")
    assert svc.pool.wait_idle(10)
    doc = api.get(f"/v1/nodes/{uuid}/states").json
    assert doc["boot_mode"] == "bios"
    for target, expected in ((True, True), ("false", False), ("on", True)):
        resp = api.put(f"/v1/nodes/{uuid}/states/secure_boot",
                       {"target": target})
        assert resp.status_int == 202, resp.body
        assert svc.pool.wait_idle(10)
        assert api.get(f"/v1/nodes/{uuid}").json["secure_boot"] is expected


@pytest.mark.parametrize("path,body", [
    ("boot_mode", {"target": "legacy"}),
    ("boot_mode", {"target": None}),
    ("boot_mode", {}),
    ("boot_mode", {"target": "uefi", "other": 1}),
    ("secure_boot", {"target": "maybe"}),
    ("secure_boot", {"target": None}),
    ("secure_boot", {"target": 1}),
    ("secure_boot", {}),
])
def test_boot_settings_bad_bodies_are_400(env, path, body):
    api, _ = env
    uuid = _node(api)
    resp = api.put(f"/v1/nodes/{uuid}/states/{path}", body)
    assert resp.status_int == 400, resp.body


@pytest.mark.parametrize("path,body", [("boot_mode", {"target": "uefi"}),
                                       ("secure_boot", {"target": True})])
def test_boot_settings_versions_states_and_locks(env, path, body):
    api, _ = env
    uuid = _node(api)
    url = f"/v1/nodes/{uuid}/states/{path}"
    assert api.put(url, body, version="1.75").status_int == 404
    assert api.put(f"/v1/nodes/nope/states/{path}", body).status_int == 404
    _set_state(uuid, states.CLEANWAIT)
    resp = api.put(url, body)
    assert resp.status_int == 409, resp.body
    assert "clean wait" in error_message(resp)
    _set_state(uuid, states.MANAGEABLE)
    _lock(uuid)
    assert api.put(url, body).status_int == 409


def test_conductor_rechecks_the_state_under_the_lock(env):
    # The node may start an operation between the API's check and the
    # conductor taking the lock.
    from ironic.common import exception
    from ironic.objects.node import Node
    api, _ = env
    uuid = _node(api)
    _set_state(uuid, states.DEPLOYING)
    node = Node.get(uuid)
    with pytest.raises(exception.Conflict):
        rpcapi.get_api().set_boot_mode({}, node, "uefi")
    with pytest.raises(exception.Conflict):
        rpcapi.get_api().set_secure_boot_state({}, node, True)


def test_boot_mode_failure_lands_in_last_error(env, monkeypatch):
    from ironic.drivers.modules import fake

    def broken(self, task, mode):
        raise RuntimeError("BMC said no")

    api, svc = env
    uuid = _node(api)
    monkeypatch.setattr(fake.FakeManagement, "set_boot_mode", broken)
    resp = api.put(f"/v1/nodes/{uuid}/states/boot_mode", {"target": "bios"})
    assert resp.status_int == 202
    assert svc.pool.wait_idle(10)
    doc = api.get(f"/v1/nodes/{uuid}").json
    assert "BMC said no" in doc["last_error"]
    assert doc["boot_mode"] is None
    assert doc["reservation"] is None


def test_secure_boot_unsupported_is_400(env, monkeypatch):
    from ironic.drivers import base
    from ironic.drivers.modules import fake
    api, _ = env
    uuid = _node(api)
    monkeypatch.setattr(fake.FakeManagement, "get_secure_boot_state",
                        base.ManagementInterface.get_secure_boot_state)
    resp = api.put(f"/v1/nodes/{uuid}/states/secure_boot", {"target": True})
    assert resp.status_int == 400, resp.body


# -- helpers ------------------------------------------------------------------

def _provision(env, uuid, target, **body):
    api, svc = env
    resp = api.put(f"/v1/nodes/{uuid}/states/provision",
                   dict(body, target=target))
    assert resp.status_int == 202, resp.body
    assert svc.pool.wait_idle(10)


def _set_state(uuid: str, state: str) -> None:
    from ironic.objects.node import Node
    node = Node.get(uuid)
    node.provision_state = state
    node.save()


def _lock(uuid: str, host: str = "other-host") -> None:
    from ironic.db import api as db_api
    db_api.get_instance().reserve_node(host, uuid)


__all__ = ["ifx"]
