"""The fake-hardware lifecycle through the API, an in-process conductor and
the ``none`` RPC transport: every verb lands in the state the API promises.
"""

from __future__ import annotations

import pytest

from ironic import hash_ring
from ironic.api.controllers.v1 import versions
from ironic.common import rpc, states
from ironic.conductor import base_manager, rpcapi
from ironic.tests import fixtures as ifx

V = "1.87"


@pytest.fixture
def env(api, config, monkeypatch):
    monkeypatch.setattr(versions, "MAX_VERSION", max(versions.MAX_VERSION,
                                                     87))
    monkeypatch.setattr(versions, "MAX_VERSION_STRING",
                        f"1.{versions.MAX_VERSION}")
    config(rpc_transport="none", host="test-conductor")
    config("conductor", node_locked_retry_attempts=0)
    rpc.reset()
    hash_ring.reset()
    monkeypatch.setattr(rpcapi, "_API", None)
    svc = base_manager.ConductorService()
    svc.start()
    api.version = V
    yield api, svc
    svc.stop(timeout=5)
    rpc.reset()


def _node(api, **extra):
    body = {"driver": "fake-hardware", **extra}
    resp = api.post("/v1/nodes", body)
    assert resp.status_int == 201, resp.body
    return resp.json["uuid"]


def _provision(env, uuid, target, status=202, **body):
    api, svc = env
    resp = api.put(f"/v1/nodes/{uuid}/states/provision",
                   dict(body, target=target))
    assert resp.status_int == status, resp.body
    assert svc.pool.wait_idle(10)
    return resp


def _state(env, uuid):
    doc = env[0].get(f"/v1/nodes/{uuid}").json
    return doc["provision_state"], doc["target_provision_state"], \
        doc["last_error"]


def test_full_lifecycle(env):
    uuid = _node(env[0])
    _provision(env, uuid, "manage")
    assert _state(env, uuid) == (states.MANAGEABLE, None, None)
    _provision(env, uuid, "inspect")
    assert _state(env, uuid)[0] == states.MANAGEABLE
    _provision(env, uuid, "provide")
    assert _state(env, uuid) == (states.AVAILABLE, None, None)
    resp = _provision(env, uuid, "active", configdrive="abc")
    assert resp.location.endswith(f"/v1/nodes/{uuid}/states")
    assert _state(env, uuid) == (states.ACTIVE, None, None)
    _provision(env, uuid, "rebuild")
    assert _state(env, uuid)[0] == states.ACTIVE
    _provision(env, uuid, "rescue", rescue_password="secret")
    assert _state(env, uuid)[0] == states.RESCUE
    _provision(env, uuid, "unrescue")
    assert _state(env, uuid)[0] == states.ACTIVE
    _provision(env, uuid, "deleted")
    assert _state(env, uuid) == (states.AVAILABLE, None, None)
    node = env[0].get(f"/v1/nodes/{uuid}").json
    assert node["instance_info"] == {}
    assert node["deploy_step"] == {} and node["clean_step"] == {}


def test_manual_clean_and_service_with_steps(env):
    uuid = _node(env[0])
    _provision(env, uuid, "manage")
    _provision(env, uuid, "clean", clean_steps=[
        {"interface": "bios", "step": "apply_configuration",
         "args": {"settings": [{"name": "a", "value": "b"}]}},
        {"interface": "bios", "step": "factory_reset"}])
    assert _state(env, uuid) == (states.MANAGEABLE, None, None)
    _provision(env, uuid, "provide")
    _provision(env, uuid, "deploy", deploy_steps=[
        {"interface": "bios", "step": "factory_reset", "args": {},
         "priority": 95}])
    assert _state(env, uuid)[0] == states.ACTIVE
    _provision(env, uuid, "service", service_steps=[
        {"interface": "bios", "step": "factory_reset"}])
    assert _state(env, uuid) == (states.ACTIVE, None, None)


def test_hold_step_waits_for_unhold_and_abort_fails_it(env):
    uuid = _node(env[0])
    _provision(env, uuid, "manage")
    _provision(env, uuid, "clean", clean_steps=[
        {"interface": "deploy", "step": "hold"},
        {"interface": "bios", "step": "factory_reset"}])
    assert _state(env, uuid)[:2] == (states.CLEANHOLD, states.MANAGEABLE)
    _provision(env, uuid, "unhold")
    assert _state(env, uuid) == (states.MANAGEABLE, None, None)
    _provision(env, uuid, "clean", clean_steps=[
        {"interface": "deploy", "step": "hold"}])
    _provision(env, uuid, "abort")
    st, _, err = _state(env, uuid)
    assert st == states.CLEANFAIL and "clean hold" in err
    _provision(env, uuid, "manage")
    assert _state(env, uuid)[0] == states.MANAGEABLE
    events = env[0].get(f"/v1/nodes/{uuid}/history").json["history"]
    assert [e["severity"] for e in events] == ["ERROR"]
    assert "clean hold" in events[0]["event"]


def test_adopt(env):
    uuid = _node(env[0])
    _provision(env, uuid, "manage")
    _provision(env, uuid, "adopt")
    assert _state(env, uuid) == (states.ACTIVE, None, None)


@pytest.mark.parametrize("body,status,text", [
    ({"target": "deploy"}, 400, "enroll"),
    ({"target": "bogus"}, 400, "can not be performed on node"),
    ({"target": "clean"}, 400, "enroll"),
    ({"target": "manage", "clean_steps": []}, 400, "clean_steps"),
    ({"target": "manage", "extra": 1}, 400, "Unexpected arguments: extra"),
    ({}, 400, "target"),
])
def test_bad_provision_requests_change_nothing(env, body, status, text):
    api, _ = env
    uuid = _node(api)
    resp = api.put(f"/v1/nodes/{uuid}/states/provision", body)
    assert resp.status_int == status
    assert text in ifx.error_message(resp)
    assert _state(env, uuid) == (states.ENROLL, None, None)


def test_bad_steps_are_refused_by_schema_and_conductor(env):
    api, _ = env
    uuid = _node(api)
    _provision(env, uuid, "manage")
    for steps in ([{"interface": "nope", "step": "x"}],
                  [{"interface": "bios", "step": "no_such_step"}],
                  [{"interface": "bios", "step": "apply_configuration"}]):
        resp = api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "clean", "clean_steps": steps})
        assert resp.status_int == 400, steps
    assert _state(env, uuid) == (states.MANAGEABLE, None, None)


def test_verbs_need_their_version(env):
    api, _ = env
    uuid = _node(api)
    resp = api.put(f"/v1/nodes/{uuid}/states/provision",
                   {"target": "manage"}, version="1.3")
    assert resp.status_int == 406


def test_locked_node_answers_409(env):
    from ironic.db import api as db_api
    api, _ = env
    uuid = _node(api)
    node = db_api.get_instance().get_node_by_uuid(uuid)
    db_api.get_instance().reserve_node("elsewhere", node.id)
    resp = api.put(f"/v1/nodes/{uuid}/states/provision",
                   {"target": "manage"})
    assert resp.status_int == 409
    assert "elsewhere" in ifx.error_message(resp)
    assert _state(env, uuid)[0] == states.ENROLL


def test_full_pool_answers_503(env):
    import threading
    api, svc = env
    uuid = _node(api)
    gate = threading.Event()
    slots = []
    try:
        while True:
            slots.append(svc.pool.spawn(gate.wait, 10))
    except Exception:  # noqa: BLE001 - the pool is full now
        pass
    resp = api.put(f"/v1/nodes/{uuid}/states/provision",
                   {"target": "manage"})
    gate.set()
    assert resp.status_int == 503
    assert svc.pool.wait_idle(10)
    assert _state(env, uuid)[0] == states.ENROLL


def test_power_and_boot_device(env):
    api, svc = env
    uuid = _node(api)
    resp = api.put(f"/v1/nodes/{uuid}/states/power", {"target": "power on"})
    assert resp.status_int == 202
    assert svc.pool.wait_idle(10)
    doc = api.get(f"/v1/nodes/{uuid}").json
    assert doc["power_state"] == "power on"
    assert doc["target_power_state"] is None
    resp = api.put(f"/v1/nodes/{uuid}/states/power", {"target": "rebooting"})
    assert resp.status_int == 202
    assert svc.pool.wait_idle(10)
    resp = api.put(f"/v1/nodes/{uuid}/states/power",
                   {"target": "soft power off", "timeout": 10})
    assert resp.status_int == 202
    assert svc.pool.wait_idle(10)
    assert api.get(f"/v1/nodes/{uuid}").json["power_state"] == "power off"
    before = api.get(f"/v1/nodes/{uuid}").json
    for target in ("on", "", "power on ", "POWER OFF"):
        bad = api.put(f"/v1/nodes/{uuid}/states/power", {"target": target})
        assert bad.status_int == 400, target
        assert ifx.error_message(bad) == (
            f'The requested action "{target}" can not be performed on node '
            f'"{uuid}" while it is in state "power off".')
    assert svc.pool.wait_idle(10)
    assert api.get(f"/v1/nodes/{uuid}").json == before
    assert api.get(f"/v1/nodes/{uuid}/history").json["history"] == []
    resp = api.put(f"/v1/nodes/{uuid}/management/boot_device",
                   {"boot_device": "disk", "persistent": True})
    assert resp.status_int == 204
    assert api.get(f"/v1/nodes/{uuid}/management/boot_device").json == {
        "boot_device": "disk", "persistent": True}
    sup = api.get(f"/v1/nodes/{uuid}/management/boot_device/supported")
    assert "pxe" in sup.json["supported_boot_devices"]
    bad = api.put(f"/v1/nodes/{uuid}/management/boot_device",
                  {"boot_device": "floppy"})
    assert bad.status_int == 400


def test_validate(env):
    api, _ = env
    uuid = _node(api)
    doc = api.get(f"/v1/nodes/{uuid}/validate").json
    assert doc["power"] == {"result": True}
    assert "deploy" in doc


def test_raid_console_boot_mode_and_secure_boot(env):
    api, svc = env
    uuid = _node(api)
    raid = {"logical_disks": [{"size_gb": 10, "raid_level": "1",
                               "is_root_volume": True}]}
    assert api.put(f"/v1/nodes/{uuid}/states/raid", raid).status_int == 204
    assert api.get(f"/v1/nodes/{uuid}/states").json[
        "target_raid_config"] == raid
    bad = api.put(f"/v1/nodes/{uuid}/states/raid", {"logical_disks": [{}]})
    assert bad.status_int == 400
    assert api.get(f"/v1/nodes/{uuid}/states/console").json == {
        "console_enabled": False, "console_info": None}
    resp = api.put(f"/v1/nodes/{uuid}/states/console", {"enabled": True})
    assert resp.status_int == 202
    assert svc.pool.wait_idle(10)  # the console starts in a worker
    assert api.get(f"/v1/nodes/{uuid}/states/console").json[
        "console_enabled"] is True
    resp = api.put(f"/v1/nodes/{uuid}/states/boot_mode", {"target": "uefi"})
    assert resp.status_int == 202
    # Both changes run in a worker holding the node's lock.
    assert svc.pool.wait_idle(10)
    resp = api.put(f"/v1/nodes/{uuid}/states/secure_boot", {"target": True})
    assert resp.status_int == 202
    assert svc.pool.wait_idle(10)
    doc = api.get(f"/v1/nodes/{uuid}/states").json
    assert (doc["boot_mode"], doc["secure_boot"]) == ("uefi", True)
    assert api.put(f"/v1/nodes/{uuid}/states/boot_mode",
                   {"target": "x"}).status_int == 400


def test_accepted_answers_carry_no_json_content_type(env):
    # The CLI tries to decode a body labelled JSON and prints an error.
    api, svc = env
    uuid = _node(api)
    resp = api.put(f"/v1/nodes/{uuid}/states/power",
                   {"target": states.POWER_ON})
    assert resp.status_int == 202, resp.body
    assert svc.pool.wait_idle(10)
    assert resp.body == b""
    assert "json" not in resp.headers.get("Content-Type", "")
