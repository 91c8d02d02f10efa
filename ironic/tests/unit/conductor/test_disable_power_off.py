"""Nodes with disable_power_off (1.95) are rebooted, never powered off."""

from __future__ import annotations

import types

import pytest

from ironic.common import exception, states
from ironic.conductor import power
from ironic.drivers.modules import ipmitool
from ironic.tests.unit.conductor.test_lifecycle import (
    _node,
    _provision,
    _state,
)

V95 = "1.95"


def _guarded_node(env):
    api = env[0]
    api.version = V95
    uuid = _node(api, disable_power_off=True)
    assert api.get(f"/v1/nodes/{uuid}").json["disable_power_off"] is True
    return uuid


def test_power_off_request_refused_with_400(env_newest):
    env = env_newest
    api = env[0]
    uuid = _guarded_node(env)
    for target in ("power off", "soft power off"):
        resp = api.put(f"/v1/nodes/{uuid}/states/power", {"target": target})
        assert resp.status_int == 400, resp.body
        assert "disable_power_off" in resp.json["error_message"]
    resp = api.put(f"/v1/nodes/{uuid}/states/power", {"target": "rebooting"})
    assert resp.status_int == 202
    assert env[1].pool.wait_idle(10)
    assert api.get(f"/v1/nodes/{uuid}").json["power_state"] == \
        states.POWER_ON


def test_power_off_allowed_again_once_flag_is_unset(env_newest):
    env = env_newest
    api = env[0]
    uuid = _guarded_node(env)
    resp = api.patch(f"/v1/nodes/{uuid}", [
        {"op": "replace", "path": "/disable_power_off", "value": False}])
    assert resp.status_int == 200
    resp = api.put(f"/v1/nodes/{uuid}/states/power", {"target": "power off"})
    assert resp.status_int == 202
    assert env[1].pool.wait_idle(10)
    assert api.get(f"/v1/nodes/{uuid}").json["power_state"] == \
        states.POWER_OFF


def test_power_off_step_fails_cleaning_clearly(env_newest):
    env = env_newest
    uuid = _guarded_node(env)
    _provision(env, uuid, "manage")
    _provision(env, uuid, "clean", clean_steps=[
        {"interface": "power", "step": "power_off"}])
    state, _, error = _state(env, uuid)
    assert state == states.CLEANFAIL
    assert "disable_power_off" in error


def test_field_needs_1_95(env_newest):
    env = env_newest
    api = env[0]
    api.version = "1.94"
    resp = api.post("/v1/nodes", {"driver": "fake-hardware",
                                  "disable_power_off": True})
    assert resp.status_int == 406


class _RecordingPower:
    def __init__(self):
        self.calls = []

    def set_power_state(self, task, state, timeout=None):
        self.calls.append(state)

    def reboot(self, task, timeout=None):
        self.calls.append("reboot")

    def get_power_state(self, task):
        return states.POWER_ON


def _task(disable):
    node = types.SimpleNamespace(uuid="n-1", disable_power_off=disable,
                                 target_power_state=None, last_error=None,
                                 power_state=states.POWER_ON,
                                 save=lambda: None)
    return types.SimpleNamespace(node=node, driver=types.SimpleNamespace(
        power=_RecordingPower()))


def test_power_off_or_reboot_reboots_guarded_nodes():
    task = _task(True)
    power.power_off_or_reboot(task)
    assert task.driver.power.calls == ["reboot"]
    task = _task(False)
    power.power_off_or_reboot(task)
    assert task.driver.power.calls == [states.POWER_OFF]


def test_node_power_action_never_powers_guarded_node_off():
    task = _task(True)
    with pytest.raises(exception.InvalidParameterValue):
        power.node_power_action(task, states.POWER_OFF)
    assert task.driver.power.calls == []


def test_ipmitool_reboot_uses_reset_for_guarded_nodes(monkeypatch):
    sent = []
    monkeypatch.setattr(ipmitool, "_run",
                        lambda task, *cmd: sent.append(cmd) or "")
    monkeypatch.setattr(ipmitool, "_wait_for_power",
                        lambda task, wanted, timeout: None)
    monkeypatch.setattr(ipmitool.IPMIPower, "read_power_state",
                        staticmethod(lambda task: states.POWER_ON))
    iface = ipmitool.IPMIPower()
    iface.reboot(_task(True))
    assert sent == [("power", "reset")]
    sent.clear()
    iface.reboot(_task(False))
    assert sent == [("power", "off"), ("power", "on")]
