"""In-band inspection of a redfish node booting the agent ISO from virtual
media: the emulator's CD holds the deploy ISO and its boot override points
at it while the node waits for the agent; aborting ejects the ISO and
powers the machine off."""

from __future__ import annotations

import pytest
import sushy

from ironic.common import states
from ironic.tests.emulators.launch import RedfishEmulator
from ironic.tests.functional.redfish_helpers import (
    ImageServer,
    emulator_cd,
    emulator_system,
    redfish_conductor,
)

V = "1.87"


@pytest.fixture(scope="module")
def bmc():
    with RedfishEmulator(count=1, user="admin", password="pw") as emu:
        yield emu


@pytest.fixture(scope="module")
def images():
    with ImageServer(("agent.iso",)) as server:
        yield server


@pytest.fixture
def env(api_without_conductor, config, monkeypatch):
    with redfish_conductor(
            api_without_conductor, config, monkeypatch, V,
            automated_clean=None, boot=["redfish-virtual-media", "fake"],
            inspect=["agent", "no-inspect"]) as env:
        yield env


def _wait(env, resp):
    assert resp.status_int == 202, resp.body
    assert env[1].pool.wait_idle(60)


def test_inspection_boots_the_agent_iso_and_abort_ejects_it(env, bmc,
                                                           images):
    api = env[0]
    resp = api.post("/v1/nodes", {
        "driver": "redfish", "boot_interface": "redfish-virtual-media",
        "inspect_interface": "agent",
        "driver_info": {
            "redfish_address": bmc.url, "redfish_username": "admin",
            "redfish_password": "pw",
            "redfish_system_id": f"/redfish/v1/Systems/{bmc.systems()[0]}",
            "redfish_deploy_iso": images.url("agent.iso")}})
    assert resp.status_int == 201, resp.body
    uuid = resp.json["uuid"]
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "manage"}))
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "inspect"}))
    node = api.get(f"/v1/nodes/{uuid}").json
    assert node["provision_state"] == states.INSPECTWAIT, node["last_error"]
    cd = emulator_cd(bmc)
    assert (cd.inserted, cd.image) == (True, images.url("agent.iso"))
    system = emulator_system(bmc)
    assert system.boot.target == sushy.BOOT_SOURCE_TARGET_CD
    assert system.power_state == sushy.POWER_STATE_ON

    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "abort"}))
    node = api.get(f"/v1/nodes/{uuid}").json
    assert node["provision_state"] == states.INSPECTFAIL
    cd = emulator_cd(bmc)
    assert cd.inserted is False and not cd.image
    assert emulator_system(bmc).power_state == sushy.POWER_STATE_OFF


def test_a_node_without_deploy_iso_cannot_be_inspected(env, bmc):
    api = env[0]
    resp = api.post("/v1/nodes", {
        "driver": "redfish", "boot_interface": "redfish-virtual-media",
        "inspect_interface": "agent",
        "driver_info": {
            "redfish_address": bmc.url, "redfish_username": "admin",
            "redfish_password": "pw",
            "redfish_system_id": f"/redfish/v1/Systems/{bmc.systems()[0]}"}})
    uuid = resp.json["uuid"]
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "manage"}))
    resp = api.put(f"/v1/nodes/{uuid}/states/provision",
                   {"target": "inspect"})
    assert resp.status_int == 400, resp.body
    assert "redfish_deploy_iso" in resp.json["error_message"]
