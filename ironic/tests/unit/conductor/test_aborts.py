"""``abort`` from every wait and hold state, through the API and an
in-process conductor: the node fails with a last_error naming the state,
its step state is gone, the operation is undone by its interface and the
history says so."""

from __future__ import annotations

import pytest

from ironic.common import states
from ironic.drivers.modules import fake
from ironic.tests.unit.conductor.test_lifecycle import (
    _node,
    _provision,
    _state,
)

_ASYNC = {states.CLEANING: states.CLEANWAIT,
          states.DEPLOYING: states.DEPLOYWAIT,
          states.SERVICING: states.SERVICEWAIT}
BIOS_WAIT = {"interface": "bios", "step": "factory_reset"}
HOLD = {"interface": "deploy", "step": "hold"}


@pytest.fixture
def undone(monkeypatch):
    """The clean-ups the interfaces were asked for; BIOS factory_reset
    becomes an asynchronous step of whatever runs it."""
    seen = []
    for cls, name in ((fake.FakeDeploy, "tear_down_cleaning"),
                      (fake.FakeDeploy, "tear_down_service"),
                      (fake.FakeDeploy, "clean_up"),
                      (fake.FakeRescue, "clean_up"),
                      (fake.FakeInspect, "abort")):
        def record(self, task, _name=f"{cls.__name__}.{name}"):
            seen.append(_name)
        monkeypatch.setattr(cls, name, record)
    monkeypatch.setattr(fake.FakeBIOS, "factory_reset",
                        lambda self, task: _ASYNC[task.node.provision_state])
    return seen


def _manageable(env):
    uuid = _node(env[0])
    _provision(env, uuid, "manage")
    return uuid


def _active(env):
    uuid = _manageable(env)
    _provision(env, uuid, "provide")
    _provision(env, uuid, "active")
    return uuid


def _clean_wait(env, monkeypatch):
    uuid = _manageable(env)
    _provision(env, uuid, "clean", clean_steps=[BIOS_WAIT])
    return uuid


def _clean_hold(env, monkeypatch):
    uuid = _manageable(env)
    _provision(env, uuid, "clean", clean_steps=[HOLD, BIOS_WAIT])
    return uuid


def _deploy_wait(env, monkeypatch):
    uuid = _manageable(env)
    _provision(env, uuid, "provide")
    _provision(env, uuid, "active", deploy_steps=[
        dict(BIOS_WAIT, args={}, priority=95)])
    return uuid


def _deploy_hold(env, monkeypatch):
    uuid = _manageable(env)
    _provision(env, uuid, "provide")
    _provision(env, uuid, "active", deploy_steps=[
        dict(HOLD, args={}, priority=95)])
    return uuid


def _rescue_wait(env, monkeypatch):
    uuid = _active(env)
    monkeypatch.setattr(fake.FakeRescue, "rescue",
                        lambda self, task: states.RESCUEWAIT)
    _provision(env, uuid, "rescue", rescue_password="s3cret")
    return uuid


def _inspect_wait(env, monkeypatch):
    uuid = _manageable(env)
    monkeypatch.setattr(fake.FakeInspect, "inspect_hardware",
                        lambda self, task: states.INSPECTWAIT)
    _provision(env, uuid, "inspect")
    return uuid


def _service_wait(env, monkeypatch):
    uuid = _active(env)
    _provision(env, uuid, "service", service_steps=[BIOS_WAIT])
    return uuid


def _service_hold(env, monkeypatch):
    uuid = _active(env)
    _provision(env, uuid, "service", service_steps=[HOLD, BIOS_WAIT])
    return uuid


# state, how to get there, failed state, history event_type, step kind,
# what the interfaces must have undone
CASES = [
    (states.CLEANWAIT, _clean_wait, states.CLEANFAIL, "cleaning", "clean",
     ["FakeDeploy.tear_down_cleaning"]),
    (states.CLEANHOLD, _clean_hold, states.CLEANFAIL, "cleaning", "clean",
     ["FakeDeploy.tear_down_cleaning"]),
    (states.DEPLOYWAIT, _deploy_wait, states.DEPLOYFAIL, "deploying",
     "deploy", ["FakeDeploy.clean_up"]),
    (states.DEPLOYHOLD, _deploy_hold, states.DEPLOYFAIL, "deploying",
     "deploy", ["FakeDeploy.clean_up"]),
    (states.RESCUEWAIT, _rescue_wait, states.RESCUEFAIL, "rescue", None,
     ["FakeRescue.clean_up"]),
    (states.INSPECTWAIT, _inspect_wait, states.INSPECTFAIL,
     "introspection", None, ["FakeInspect.abort"]),
    (states.SERVICEWAIT, _service_wait, states.SERVICEFAIL, "servicing",
     "service", ["FakeDeploy.tear_down_service"]),
    (states.SERVICEHOLD, _service_hold, states.SERVICEFAIL, "servicing",
     "service", ["FakeDeploy.tear_down_service"]),
]


@pytest.mark.parametrize("state,reach,failed,event_type,kind,cleanups",
                         CASES, ids=[c[0] for c in CASES])
def test_abort_from_every_wait_and_hold_state(
        env_newest, undone, monkeypatch, state, reach, failed, event_type,
        kind, cleanups):
    env = env_newest
    api = env[0]
    uuid = reach(env, monkeypatch)
    doc = api.get(f"/v1/nodes/{uuid}").json
    assert doc["provision_state"] == state
    if kind:
        assert doc["driver_internal_info"][f"{kind}_steps"]
    undone.clear()

    _provision(env, uuid, "abort")

    doc = api.get(f"/v1/nodes/{uuid}").json
    assert doc["provision_state"] == failed
    assert state in doc["last_error"] and "Aborted" in doc["last_error"]
    info = doc["driver_internal_info"]
    for key in ("clean", "deploy", "service"):
        assert f"{key}_steps" not in info and f"{key}_step_index" not in info
        assert not doc[f"{key}_step"]
    assert not [k for k in info if k.endswith("disable_ramdisk")]
    assert "rescue_password" not in doc["instance_info"]
    assert undone == cleanups
    history = api.get(f"/v1/nodes/{uuid}/history?detail=true").json[
        "history"]
    assert history[-1]["severity"] == "ERROR"
    assert history[-1]["event_type"] == event_type
    assert history[-1]["event"] == doc["last_error"]


def test_aborted_deployment_is_cleaned_up_and_powered_off(env_newest,
                                                          undone,
                                                          monkeypatch):
    env = env_newest
    uuid = _deploy_wait(env, monkeypatch)
    # As a ramdisk deploy leaves it while it waits for the agent.
    assert env[0].put(f"/v1/nodes/{uuid}/states/power",
                      {"target": states.POWER_ON}).status_int == 202
    assert env[1].pool.wait_idle(10)
    assert env[0].get(f"/v1/nodes/{uuid}").json["power_state"] == \
        states.POWER_ON
    _provision(env, uuid, "abort")
    doc = env[0].get(f"/v1/nodes/{uuid}").json
    assert doc["power_state"] == states.POWER_OFF
    assert "Aborted" in doc["last_error"]
    # deploy failed -> deploy again works
    monkeypatch.setattr(fake.FakeBIOS, "factory_reset",
                        lambda self, task: None)
    _provision(env, uuid, "active")
    assert _state(env, uuid) == (states.ACTIVE, None, None)


def test_abort_from_wait_call_back_needs_1_110(env_newest, undone,
                                               monkeypatch):
    env = env_newest
    uuid = _deploy_wait(env, monkeypatch)
    undone.clear()
    resp = env[0].put(f"/v1/nodes/{uuid}/states/provision",
                      {"target": "abort"}, version="1.109")
    assert resp.status_int == 406
    assert "1.110" in resp.json["error_message"]
    assert _state(env, uuid)[0] == states.DEPLOYWAIT
    assert undone == []
    _provision(env, uuid, "abort")
    assert _state(env, uuid)[0] == states.DEPLOYFAIL


def test_deploy_hold_abort_is_older_than_1_110(env_newest, undone,
                                               monkeypatch):
    env = env_newest
    uuid = _deploy_hold(env, monkeypatch)
    resp = env[0].put(f"/v1/nodes/{uuid}/states/provision",
                      {"target": "abort"}, version="1.87")
    assert resp.status_int == 202
    env[1].pool.wait_idle(10)
    assert _state(env, uuid)[0] == states.DEPLOYFAIL


def test_clean_up_failure_is_added_to_last_error(env_newest, undone,
                                                 monkeypatch):
    env = env_newest
    uuid = _service_wait(env, monkeypatch)

    def broken(self, task):
        raise RuntimeError("ramdisk would not stop")
    monkeypatch.setattr(fake.FakeDeploy, "tear_down_service", broken)
    _provision(env, uuid, "abort")
    doc = env[0].get(f"/v1/nodes/{uuid}").json
    assert doc["provision_state"] == states.SERVICEFAIL
    assert doc["last_error"].startswith("Aborted by an operator")
    assert "ramdisk would not stop" in doc["last_error"]
    assert "service_steps" not in doc["driver_internal_info"]
    events = [e["event"] for e in env[0].get(
        f"/v1/nodes/{uuid}/history").json["history"]]
    assert any("ramdisk would not stop" in e for e in events)


def test_failed_rescue_clean_up_puts_node_in_maintenance(env_newest, undone,
                                                         monkeypatch):
    env = env_newest
    uuid = _rescue_wait(env, monkeypatch)

    def broken(self, task):
        raise RuntimeError("rescue ramdisk still up")
    monkeypatch.setattr(fake.FakeRescue, "clean_up", broken)
    _provision(env, uuid, "abort")
    doc = env[0].get(f"/v1/nodes/{uuid}").json
    assert doc["provision_state"] == states.RESCUEFAIL
    assert doc["maintenance"] and doc["fault"] == "rescue abort failure"
    assert "rescue ramdisk still up" in doc["maintenance_reason"]
    assert "rescue_password" not in doc["instance_info"]


def test_abort_from_service_failed_returns_to_active(env_newest, undone,
                                                     monkeypatch):
    env = env_newest
    uuid = _service_wait(env, monkeypatch)
    _provision(env, uuid, "abort")
    assert _state(env, uuid)[0] == states.SERVICEFAIL
    _provision(env, uuid, "abort")
    assert _state(env, uuid) == (states.ACTIVE, None, None)
