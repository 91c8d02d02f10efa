"""In-band inspection end to end in one process: the API, the ``none`` RPC
transport, a conductor and the ``agent`` inspect interface on fake-hardware
(1.39 inspect wait, 1.41 abort, 1.81 inventory, 1.84 continue_inspection).
"""

from __future__ import annotations

import datetime

import pytest

from ironic import hash_ring
from ironic.api.controllers.v1 import versions
from ironic.common import rpc, states
from ironic.conductor import base_manager, periodics, rpcapi
from ironic.db import api as db_api
from ironic.objects.node import Node
from ironic.tests import data
from ironic.tests import fixtures as ifx

V = f"1.{versions.NEWEST_KNOWN}"
MAC = "02:fc:00:00:00:01"


@pytest.fixture
def env(api, config, monkeypatch):
    yield from conductor_env(api, config, monkeypatch,
                             inspect=["fake", "no-inspect", "agent"])


def conductor_env(api, config, monkeypatch, **interfaces):
    """The API at the newest version and an in-process conductor serving
    fake-hardware with the test interfaces (replaced by ``interfaces``)."""
    monkeypatch.setattr(versions, "MAX_VERSION", versions.NEWEST_KNOWN)
    monkeypatch.setattr(versions, "MAX_VERSION_STRING", V)
    ifx.configure_test_drivers(config, **interfaces)
    ifx.register_test_conductor()
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


def _node(env, **extra):
    api, svc = env
    body = {"driver": "fake-hardware", "inspect_interface": "agent", **extra}
    resp = api.post("/v1/nodes", body)
    assert resp.status_int == 201, resp.body
    uuid = resp.json["uuid"]
    _provision(env, uuid, "manage")
    return uuid


def _provision(env, uuid, target, status=202, version=None):
    api, svc = env
    resp = api.put(f"/v1/nodes/{uuid}/states/provision", {"target": target},
                   version=version)
    assert resp.status_int == status, resp.body
    assert svc.pool.wait_idle(10)
    return resp


def _get(env, uuid, version=None):
    return env[0].get(f"/v1/nodes/{uuid}", version=version).json


def _post_data(env, body, query="", version=None):
    """POST inspection data as the ramdisk does (no version header)."""
    api, svc = env
    saved, api.version = api.version, version
    try:
        resp = api.post(f"/v1/continue_inspection{query}", body)
    finally:
        api.version = saved
    assert svc.pool.wait_idle(10)
    return resp


def _inspect_wait(env, **extra):
    uuid = _node(env, **extra)
    _provision(env, uuid, "inspect")
    node = _get(env, uuid)
    assert node["provision_state"] == states.INSPECTWAIT
    assert node["power_state"] == states.POWER_ON
    return uuid


def test_inspection_by_node_uuid_with_token(env):
    uuid = _inspect_wait(env)
    # Before 1.39 the wait state is shown as inspecting.
    assert _get(env, uuid, version="1.38")["provision_state"] == \
        states.INSPECTING
    sample = data.ipa_inspection_data()
    resp = _post_data(env, sample, f"?node_uuid={uuid}", version="1.84")
    assert resp.status_int == 202, resp.body
    token = resp.json["config"]["agent_token"]
    assert len(token) > 20 and resp.json["node"]["uuid"] == uuid
    assert resp.json["config"]["agent_token_required"] is True
    node = _get(env, uuid)
    assert node["provision_state"] == states.MANAGEABLE, node["last_error"]
    assert node["power_state"] == states.POWER_OFF
    assert node["properties"]["cpu_arch"] == "x86_64"
    assert node["inspection_finished_at"] is not None
    # The token was wiped when the ramdisk's work ended.
    assert "agent_secret_token" not in node["driver_internal_info"]
    ports = env[0].get(f"/v1/nodes/{uuid}/ports?detail=true").json["ports"]
    assert [(p["address"], p["pxe_enabled"]) for p in ports] == [(MAC, True)]
    inv = env[0].get(f"/v1/nodes/{uuid}/inventory").json
    expected = data.ipa_inspection_data()
    assert inv["inventory"] == expected.pop("inventory")
    assert inv["plugin_data"]["root_disk"] == expected["root_disk"]
    assert inv["plugin_data"]["macs"] == [MAC]


def test_compatible_form_finds_node_by_mac(env):
    uuid = _inspect_wait(env)
    other = _inspect_wait(env)
    node_id = Node.get(uuid).id
    from ironic.objects.port import Port
    Port(address=MAC, node_id=node_id, pxe_enabled=False).create()
    resp = _post_data(env, data.ipa_inspection_data())
    assert resp.status_int == 202, resp.body
    assert resp.json == {"uuid": uuid}
    assert _get(env, uuid)["provision_state"] == states.MANAGEABLE
    assert _get(env, other)["provision_state"] == states.INSPECTWAIT
    port = env[0].get(f"/v1/nodes/{uuid}/ports?detail=true").json["ports"][0]
    assert port["pxe_enabled"] is True  # [inspector]update_pxe_enabled


def test_lookup_by_bmc_address(env):
    uuid = _inspect_wait(env, driver_info={"ipmi_address": "192.0.2.77"})
    sample = data.ipa_inspection_data()
    sample["inventory"]["bmc_address"] = "192.0.2.77"
    resp = _post_data(env, sample)
    assert resp.status_int == 202 and resp.json == {"uuid": uuid}


def test_token_is_given_once(env):
    uuid = _inspect_wait(env)
    # A token issued before (say by lookup) is only shown masked.
    assert rpcapi.get_api().issue_agent_token(None, Node.get(uuid))
    resp = _post_data(env, data.ipa_inspection_data(), f"?node_uuid={uuid}",
                      version="1.84")
    assert resp.json["config"]["agent_token"] == "******"


@pytest.mark.parametrize("version,query,status", [
    ("1.83", "", 404),        # the endpoint exists in 1.1 and from 1.84
    ("1.50", "", 404),
    (None, "?node_uuid={uuid}", 404),  # node_uuid needs 1.84
    ("1.84", "?node_uuid=not-a-uuid", 400),
    ("1.84", "?node_uuid=4a4d3b47-8d72-4d9f-97c1-2b4ba05f8d70", 404),
])
def test_refused_requests(env, version, query, status):
    uuid = _inspect_wait(env)
    resp = _post_data(env, data.ipa_inspection_data(),
                      query.format(uuid=uuid), version=version)
    assert resp.status_int == status, resp.body
    ifx.error_message(resp)
    assert _get(env, uuid)["provision_state"] == states.INSPECTWAIT


@pytest.mark.parametrize("body", [
    {}, {"inventory": {}}, {"inventory": {"interfaces": []}},
    {"inventory": {"interfaces": [{"name": "eth0"}]}},
    {"inventory": {"interfaces": [{"mac_address": "junk"}]}},
])
def test_bad_bodies(env, body):
    resp = _post_data(env, body)
    assert resp.status_int == 400, resp.body
    ifx.error_message(resp)


def test_node_not_waiting_is_not_found(env):
    uuid = _node(env)
    from ironic.objects.port import Port
    Port(address=MAC, node_id=Node.get(uuid).id).create()
    resp = _post_data(env, data.ipa_inspection_data())
    assert resp.status_int == 404
    assert _get(env, uuid)["provision_state"] == states.MANAGEABLE


def test_ramdisk_error_fails_inspection(env):
    uuid = _inspect_wait(env)
    sample = data.ipa_inspection_data()
    sample["error"] = "no disks found"
    resp = _post_data(env, sample, f"?node_uuid={uuid}", version="1.84")
    assert resp.status_int == 202
    node = _get(env, uuid)
    assert node["provision_state"] == states.INSPECTFAIL
    assert "no disks found" in node["last_error"]
    assert node["power_state"] == states.POWER_OFF
    assert env[0].get(f"/v1/nodes/{uuid}/inventory").status_int == 404


def test_abort_from_inspect_wait(env):
    uuid = _inspect_wait(env)
    resp = _provision(env, uuid, "abort", status=406, version="1.40")
    assert "1.41" in ifx.error_message(resp)
    _provision(env, uuid, "abort", version="1.41")
    node = _get(env, uuid)
    assert node["provision_state"] == states.INSPECTFAIL
    assert node["power_state"] == states.POWER_OFF
    assert "Aborted" in node["last_error"]
    # Data arriving afterwards finds nothing waiting.
    resp = _post_data(env, data.ipa_inspection_data(), f"?node_uuid={uuid}",
                      version="1.84")
    assert resp.status_int == 404
    # Inspection can start again from inspect failed.
    _provision(env, uuid, "inspect")
    assert _get(env, uuid)["provision_state"] == states.INSPECTWAIT


def test_inspect_wait_timeout(env, config):
    uuid = _inspect_wait(env)
    config("conductor", inspect_wait_timeout=60)
    past = datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None) - datetime.timedelta(seconds=120)
    db_api.get_instance().update_node(Node.get(uuid).id,
                                      {"provision_updated_at": past})
    assert periodics.check_wait_timeouts(env[1]) == 1
    node = _get(env, uuid)
    assert node["provision_state"] == states.INSPECTFAIL
    assert "Timeout" in node["last_error"]
    assert node["power_state"] == states.POWER_OFF


def test_misconfigured_hooks_refuse_inspection(env, config):
    uuid = _node(env)
    config("inspector", hooks="nope")
    resp = _provision(env, uuid, "inspect", status=400)
    assert "nope" in ifx.error_message(resp)
    assert _get(env, uuid)["provision_state"] == states.MANAGEABLE
