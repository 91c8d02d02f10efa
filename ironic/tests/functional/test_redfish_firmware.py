"""The redfish firmware interface through the API against the emulator:
``manage`` records the BIOS and BMC versions, a manual clean step runs the
UpdateService's SimpleUpdate, and the emulator's own BiosVersion moves.

The emulator's SimpleUpdate only takes systems as targets (a manager
target is refused), so a BMC update is exercised by the unit tests only.
"""

from __future__ import annotations

import pytest

from ironic.common import states
from ironic.tests.emulators.launch import RedfishEmulator
from ironic.tests.functional.redfish_helpers import (
    ImageServer,
    emulator_system,
    redfish_conductor,
)

V = "1.86"


@pytest.fixture(scope="module")
def bmc():
    with RedfishEmulator(count=1, user="admin", password="pw") as emu:
        yield emu


@pytest.fixture(scope="module")
def images():
    with ImageServer(("bios.bin",)) as server:
        yield server


@pytest.fixture
def env(api_without_conductor, config, monkeypatch):
    with redfish_conductor(
            api_without_conductor, config, monkeypatch, V,
            firmware=["redfish", "no-firmware"]) as env:
        yield env


def _wait(env, resp):
    assert resp.status_int == 202, resp.body
    assert env[1].pool.wait_idle(60)


def _firmware(env, uuid) -> dict:
    got = env[0].get(f"/v1/nodes/{uuid}/firmware").json["firmware"]
    return {c["component"]: (c["initial_version"], c["current_version"],
                             c["last_version_flashed"]) for c in got}


def _check_identity(env, uuid) -> None:
    """1.114: what the emulator says of its manager (its Model), and
    nothing it does not say."""
    got = env[0].get(f"/v1/nodes/{uuid}/firmware",
                     version="1.114").json["firmware"]
    identity = {c["component"]: (c["vendor"], c["model"],
                                 c["serial_number"]) for c in got}
    assert identity == {"bios": (None, None, None),
                        "bmc": (None, "Joo Janta 200", None)}


def test_bios_update_reaches_the_bmc_and_is_recorded(env, bmc, images):
    api = env[0]
    resp = api.post("/v1/nodes", {
        "driver": "redfish", "firmware_interface": "redfish",
        "driver_info": {
            "redfish_address": bmc.url, "redfish_username": "admin",
            "redfish_password": "pw",
            "redfish_system_id": f"/redfish/v1/Systems/{bmc.systems()[0]}"}})
    assert resp.status_int == 201, resp.body
    uuid = resp.json["uuid"]
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "manage"}))
    assert _firmware(env, uuid) == {"bios": ("1.0.0", "1.0.0", None),
                                    "bmc": ("1.00", "1.00", None)}
    _check_identity(env, uuid)

    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision", {
        "target": "clean", "clean_steps": [{
            "interface": "firmware", "step": "update",
            "args": {"settings": [{"component": "bios",
                                   "url": images.url("bios.bin")}]}}]}))
    node = api.get(f"/v1/nodes/{uuid}").json
    assert node["provision_state"] == states.MANAGEABLE, node["last_error"]
    assert emulator_system(bmc).bios_version == "1.1.0"
    assert _firmware(env, uuid) == {"bios": ("1.0.0", "1.1.0", "1.1.0"),
                                    "bmc": ("1.00", "1.00", None)}

    # A target the BMC refuses fails the step with the BMC's words.
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision", {
        "target": "clean", "clean_steps": [{
            "interface": "firmware", "step": "update",
            "args": {"settings": [{"component": "bmc",
                                   "url": images.url("bios.bin")}]}}]}))
    node = api.get(f"/v1/nodes/{uuid}").json
    assert node["provision_state"] == states.CLEANFAIL
    assert "bmc update" in node["last_error"]
    assert emulator_system(bmc).bios_version == "1.1.0"
