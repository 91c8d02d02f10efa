"""The redfish RAID interface through the API against the emulator: a
target RAID configuration becomes volumes in the emulator's Storage, and
deleting the configuration removes them (the project's emulator adds the
volume DELETE that sushy-tools lacks)."""

from __future__ import annotations

import pytest

from ironic.common import states
from ironic.tests.emulators.launch import RedfishEmulator
from ironic.tests.functional.redfish_helpers import (
    emulator_system,
    redfish_conductor,
)

V = "1.87"
GiB = 1024 ** 3
DRIVES = [{"Id": f"d{i}", "Name": f"Disk {i}", "CapacityBytes": 100 * GiB,
           "Protocol": "SATA"} for i in range(2)]


@pytest.fixture(scope="module")
def bmc():
    with RedfishEmulator(count=1, user="admin", password="pw",
                         drives=DRIVES) as emu:
        yield emu


@pytest.fixture
def env(api_without_conductor, config, monkeypatch):
    with redfish_conductor(
            api_without_conductor, config, monkeypatch, V,
            raid=["redfish", "no-raid"]) as env:
        yield env


def _wait(env, resp, status=202):
    assert resp.status_int == status, resp.body
    assert env[1].pool.wait_idle(60)


def _volumes(bmc) -> list[tuple[str, str, int]]:
    storage = emulator_system(bmc).storage.get_members()[0]
    return sorted((v.name, v.volume_type.value, v.capacity_bytes)
                  for v in storage.volumes.get_members())


def _clean(env, uuid, step):
    _wait(env, env[0].put(f"/v1/nodes/{uuid}/states/provision", {
        "target": "clean",
        "clean_steps": [{"interface": "raid", "step": step}]}))
    return env[0].get(f"/v1/nodes/{uuid}").json


def test_create_and_delete_volumes_on_the_bmc(env, bmc):
    api = env[0]
    resp = api.post("/v1/nodes", {
        "driver": "redfish", "raid_interface": "redfish",
        "driver_info": {
            "redfish_address": bmc.url, "redfish_username": "admin",
            "redfish_password": "pw",
            "redfish_system_id": f"/redfish/v1/Systems/{bmc.systems()[0]}"}})
    assert resp.status_int == 201, resp.body
    uuid = resp.json["uuid"]
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "manage"}))
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/raid", {"logical_disks": [
        {"size_gb": 50, "raid_level": "1", "is_root_volume": True,
         "volume_name": "root"},
        {"size_gb": "MAX", "raid_level": "0", "volume_name": "data"}]}),
        status=204)

    node = _clean(env, uuid, "create_configuration")
    assert node["provision_state"] == states.MANAGEABLE, node["last_error"]
    assert _volumes(bmc) == [("data", "NonRedundant", 200 * GiB),
                             ("root", "Mirrored", 50 * GiB)]
    shown = sorted((d["name"], d["raid_level"], d["size_gb"])
                   for d in node["raid_config"]["logical_disks"])
    assert shown == [("data", "0", 200), ("root", "1", 50)]

    node = _clean(env, uuid, "delete_configuration")
    assert node["provision_state"] == states.MANAGEABLE, node["last_error"]
    assert _volumes(bmc) == []
    assert node["raid_config"] == {"logical_disks": []}


def test_a_level_the_drives_cannot_hold_fails_cleaning(env, bmc):
    api = env[0]
    resp = api.post("/v1/nodes", {
        "driver": "redfish", "raid_interface": "redfish",
        "driver_info": {
            "redfish_address": bmc.url, "redfish_username": "admin",
            "redfish_password": "pw",
            "redfish_system_id": f"/redfish/v1/Systems/{bmc.systems()[0]}"}})
    uuid = resp.json["uuid"]
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "manage"}))
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/raid", {"logical_disks": [
        {"size_gb": 10, "raid_level": "5", "is_root_volume": True}]}),
        status=204)
    node = _clean(env, uuid, "create_configuration")
    assert node["provision_state"] == states.CLEANFAIL
    assert "needs 3 drives" in node["last_error"]
    assert _volumes(bmc) == []
