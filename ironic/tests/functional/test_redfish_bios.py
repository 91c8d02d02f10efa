"""The redfish BIOS interface through the API against the Redfish emulator.

A redfish node with the ``redfish`` BIOS interface: ``manage`` caches the
emulator's BIOS attributes (served by /v1/nodes/{node}/bios with the
registry facts), manual cleaning applies settings and resets the BIOS, and
the emulator's own attributes are read after every step.
"""

from __future__ import annotations

import pytest

from ironic.common import states
from ironic.tests.emulators.launch import RedfishEmulator
from ironic.tests.functional.redfish_helpers import (
    emulator_system,
    redfish_conductor,
)

V = "1.74"


@pytest.fixture(scope="module")
def bmc():
    with RedfishEmulator(count=1, user="admin", password="pw") as emu:
        yield emu


@pytest.fixture
def env(api_without_conductor, config, monkeypatch):
    with redfish_conductor(
            api_without_conductor, config, monkeypatch, V,
            bios=["redfish", "no-bios"]) as env:
        yield env


def _wait(env, resp, status=202):
    assert resp.status_int == status, resp.body
    assert env[1].pool.wait_idle(30)


def _clean(env, uuid, step, **args):
    _wait(env, env[0].put(f"/v1/nodes/{uuid}/states/provision", {
        "target": "clean", "clean_steps": [
            {"interface": "bios", "step": step, "args": args}]}))
    return env[0].get(f"/v1/nodes/{uuid}").json


def _cached(env, uuid):
    got = env[0].get(f"/v1/nodes/{uuid}/bios?detail=true").json["bios"]
    return {s["name"]: s for s in got}


@pytest.fixture
def node(env, bmc):
    system_id = f"/redfish/v1/Systems/{bmc.systems()[0]}"
    resp = env[0].post("/v1/nodes", {
        "driver": "redfish", "bios_interface": "redfish",
        "driver_info": {"redfish_address": bmc.url,
                        "redfish_system_id": system_id,
                        "redfish_username": "admin",
                        "redfish_password": "pw"}})
    assert resp.status_int == 201, resp.body
    uuid = resp.json["uuid"]
    _wait(env, env[0].put(f"/v1/nodes/{uuid}/states/provision",
                          {"target": "manage"}))
    return uuid


def test_manage_caches_the_bios_with_its_registry(env, node):
    cached = _cached(env, node)
    assert cached["ProcTurboMode"]["value"] == "Enabled"
    assert cached["ProcTurboMode"]["attribute_type"] == "Enumeration"
    assert cached["ProcTurboMode"]["allowable_values"] == ["Enabled",
                                                           "Disabled"]
    assert cached["NumCores"]["read_only"] is True


def test_apply_and_factory_reset_reach_the_bios(env, bmc, node):
    result = _clean(env, node, "apply_configuration", settings=[
        {"name": "ProcTurboMode", "value": "Disabled"},
        {"name": "QuietBoot", "value": "false"}])
    assert result["provision_state"] == states.MANAGEABLE, \
        result["last_error"]
    attrs = emulator_system(bmc).bios.attributes
    assert attrs["ProcTurboMode"] == "Disabled"
    assert attrs["QuietBoot"] == "false"
    assert _cached(env, node)["ProcTurboMode"]["value"] == "Disabled"

    result = _clean(env, node, "factory_reset")
    assert result["provision_state"] == states.MANAGEABLE, \
        result["last_error"]
    assert emulator_system(bmc).bios.attributes["ProcTurboMode"] == \
        "Enabled"
    assert _cached(env, node)["ProcTurboMode"]["value"] == "Enabled"


@pytest.mark.parametrize("settings,named", [
    ([{"name": "NoSuchKnob", "value": "x"}], "NoSuchKnob"),
    ([{"name": "NumCores", "value": "12"}], "NumCores"),
    ([{"name": "BootMode", "value": "Floppy"}], "BootMode"),
])
def test_bad_settings_fail_cleaning_and_change_nothing(env, bmc, node,
                                                       settings, named):
    result = _clean(env, node, "apply_configuration", settings=settings)
    assert result["provision_state"] == states.CLEANFAIL
    assert named in result["last_error"]
    attrs = emulator_system(bmc).bios.attributes
    assert attrs["NumCores"] == "10" and attrs["BootMode"] == "Uefi"
    assert "NoSuchKnob" not in attrs
