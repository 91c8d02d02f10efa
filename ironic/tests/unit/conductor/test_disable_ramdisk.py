"""disable_ramdisk for manual cleaning (1.70) and servicing (1.108)."""

from __future__ import annotations

import types

import pytest

from ironic.common import exception, states
from ironic.conductor import steps
from ironic.drivers.modules import fake
from ironic.tests.unit.conductor.test_lifecycle import (
    _node,
    _provision,
    _state,
)

OOB = {"interface": "bios", "step": "factory_reset"}
IN_BAND = {"interface": "raid", "step": "delete_configuration"}


@pytest.fixture
def calls(monkeypatch):
    """Which ramdisk preparations and tear downs the deploy interface saw."""
    seen = []
    for name in ("prepare_cleaning", "tear_down_cleaning",
                 "prepare_service", "tear_down_service"):
        def record(self, task, _name=name):
            seen.append(_name)
        monkeypatch.setattr(fake.FakeDeploy, name, record)
    return seen


def _manageable(env):
    uuid = _node(env[0])
    _provision(env, uuid, "manage")
    return uuid


def _active(env, calls):
    uuid = _manageable(env)
    _provision(env, uuid, "provide")
    _provision(env, uuid, "active")
    calls.clear()  # what automated cleaning did on provide
    return uuid


def test_clean_without_ramdisk_runs_out_of_band_steps(env_newest, calls):
    env = env_newest
    uuid = _manageable(env)
    _provision(env, uuid, "clean", clean_steps=[OOB], disable_ramdisk=True)
    assert _state(env, uuid) == (states.MANAGEABLE, None, None)
    assert calls == []
    info = env[0].get(f"/v1/nodes/{uuid}").json["driver_internal_info"]
    assert "cleaning_disable_ramdisk" not in info
    _provision(env, uuid, "clean", clean_steps=[OOB])
    assert calls == ["prepare_cleaning", "tear_down_cleaning"]


def test_clean_without_ramdisk_refuses_in_band_step(env_newest, calls):
    env = env_newest
    uuid = _manageable(env)
    resp = _provision(env, uuid, "clean", status=400,
                      clean_steps=[OOB, IN_BAND], disable_ramdisk=True)
    message = resp.json["error_message"]
    assert "raid.delete_configuration" in message and "ramdisk" in message
    assert _state(env, uuid)[0] == states.MANAGEABLE
    assert calls == []


def test_clean_disable_ramdisk_needs_1_70(env_newest):
    env = env_newest
    uuid = _manageable(env)
    env[0].version = "1.69"
    _provision(env, uuid, "clean", status=406, clean_steps=[OOB],
               disable_ramdisk=True)
    env[0].version = "1.70"
    _provision(env, uuid, "clean", clean_steps=[OOB], disable_ramdisk=True)
    assert _state(env, uuid)[0] == states.MANAGEABLE


def test_service_without_ramdisk(env_newest, calls):
    env = env_newest
    uuid = _active(env, calls)
    _provision(env, uuid, "service", service_steps=[OOB],
               disable_ramdisk=True)
    assert _state(env, uuid) == (states.ACTIVE, None, None)
    assert calls == []
    _provision(env, uuid, "service", service_steps=[OOB])
    assert calls == ["prepare_service", "tear_down_service"]


def test_service_without_ramdisk_survives_a_hold(env_newest, calls):
    env = env_newest
    uuid = _active(env, calls)
    _provision(env, uuid, "service", disable_ramdisk=True, service_steps=[
        {"interface": "deploy", "step": "hold"}, OOB])
    assert _state(env, uuid)[0] == states.SERVICEHOLD
    _provision(env, uuid, "unhold")
    assert _state(env, uuid) == (states.ACTIVE, None, None)
    assert calls == []
    info = env[0].get(f"/v1/nodes/{uuid}").json["driver_internal_info"]
    assert "service_disable_ramdisk" not in info


def test_service_without_ramdisk_refuses_in_band_step():
    class Agentish:
        def get_service_steps(self, task):
            return [{"interface": "deploy", "step": "burn_in",
                     "priority": 0, "argsinfo": None, "abortable": False,
                     "requires_ramdisk": True}]

        def step_argsinfo(self, kind, name):
            return None

    task = types.SimpleNamespace(node=types.SimpleNamespace(uuid="n-1"),
                                 driver=types.SimpleNamespace(
                                     deploy=Agentish()))
    user = [{"interface": "deploy", "step": "burn_in"}]
    assert steps.manual(task, steps.SERVICE, user)[0]["step"] == "burn_in"
    with pytest.raises(exception.InvalidParameterValue,
                       match="deploy.burn_in needs the ramdisk"):
        steps.manual(task, steps.SERVICE, user, disable_ramdisk=True)
    # Steps the conductor runs itself never need the ramdisk.
    assert steps.manual(task, steps.SERVICE,
                        [{"interface": "power", "step": "reboot"}],
                        disable_ramdisk=True)


def test_service_disable_ramdisk_needs_1_108(env_newest, calls):
    env = env_newest
    uuid = _active(env, calls)
    env[0].version = "1.107"
    resp = _provision(env, uuid, "service", status=406,
                      service_steps=[OOB], disable_ramdisk=True)
    assert "1.108" in resp.json["error_message"]


def test_runbook_disable_ramdisk_is_honoured(env_newest, calls):
    env = env_newest
    api = env[0]
    resp = api.post("/v1/runbooks", {
        "name": "CUSTOM_OOB", "disable_ramdisk": True,
        "steps": [dict(OOB, args={}, order=0)]})
    assert resp.status_int == 201, resp.body
    uuid = _manageable(env)
    assert api.put(f"/v1/nodes/{uuid}/traits",
                   {"traits": ["CUSTOM_OOB"]}).status_int == 204
    _provision(env, uuid, "clean", runbook="CUSTOM_OOB")
    assert _state(env, uuid) == (states.MANAGEABLE, None, None)
    assert calls == []
