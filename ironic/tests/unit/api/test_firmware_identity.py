"""API 1.114: firmware components show vendor, model and serial_number;
``fields`` selects among them (the timestamps always come along)."""

from __future__ import annotations

import pytest

from ironic import hash_ring
from ironic.common import rpc, states
from ironic.conductor import base_manager, rpcapi
from ironic.db import api as db_api

IDENTITY = {"vendor", "model", "serial_number"}
BASE = {"created_at", "updated_at", "component", "initial_version",
        "current_version", "last_version_flashed"}


@pytest.fixture
def env(api_newest, config, monkeypatch):
    config(rpc_transport="none", host="test-conductor")
    rpc.reset()
    hash_ring.reset()
    monkeypatch.setattr(rpcapi, "_API", None)
    svc = base_manager.ConductorService()
    svc.start()
    yield api_newest, svc
    svc.stop(timeout=5)
    rpc.reset()


def _node_with_components(api) -> str:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware"})
    assert resp.status_int == 201, resp.body
    node = resp.json["uuid"]
    node_id = db_api.get_instance().get_node_by_uuid(node).id
    db_api.get_instance().set_firmware_components(node_id, [
        {"component": "bmc", "initial_version": "1.0",
         "current_version": "1.2", "vendor": "Acme", "model": "BMC-9",
         "serial_number": "SN1"},
        {"component": "bios", "initial_version": "2.0"}])
    return node


def _firmware(api, node, query="", version=None):
    resp = api.get(f"/v1/nodes/{node}/firmware{query}", version=version)
    assert resp.status_int == 200, resp.body
    return resp.json["firmware"]


def test_identity_fields_appear_at_1_114(api_newest):
    api = api_newest
    node = _node_with_components(api)
    for version in ("1.86", "1.113"):
        assert {frozenset(c) for c in _firmware(api, node, version=version)
                } == {frozenset(BASE)}
    new = _firmware(api, node, version="1.114")
    assert set(new[0]) == BASE | IDENTITY
    assert (new[1]["vendor"], new[1]["model"], new[1]["serial_number"]) == \
        ("Acme", "BMC-9", "SN1")
    assert (new[0]["vendor"], new[0]["model"]) == (None, None)


def test_fields_selects_and_needs_1_114_for_identity(api_newest):
    api = api_newest
    node = _node_with_components(api)
    got = _firmware(api, node, "?fields=component,model", version="1.114")
    assert got[1] == {"component": "bmc", "model": "BMC-9",
                      "created_at": got[1]["created_at"],
                      "updated_at": None}
    got = _firmware(api, node, "?fields=component", version="1.86")
    assert set(got[0]) == {"component", "created_at", "updated_at"}
    # Like the reference: a too-new field here is a plain 400.
    resp = api.get(f"/v1/nodes/{node}/firmware?fields=vendor",
                   version="1.113")
    assert resp.status_int == 400
    assert "1.114" in resp.json["error_message"]
    assert api.get(f"/v1/nodes/{node}/firmware?fields=bogus").status_int \
        == 400
    assert api.get(f"/v1/nodes/{node}/firmware?x=1").status_int == 400


def test_fake_firmware_records_plausible_identity(env):
    api, svc = env
    resp = api.post("/v1/nodes", {"driver": "fake-hardware"})
    node = resp.json["uuid"]
    assert _firmware(api, node) == []
    resp = api.put(f"/v1/nodes/{node}/states/provision",
                   {"target": "manage"})
    assert resp.status_int == 202, resp.body
    assert svc.pool.wait_idle(10)
    assert api.get(f"/v1/nodes/{node}").json["provision_state"] == \
        states.MANAGEABLE
    got = {c["component"]: c for c in _firmware(api, node)}
    assert set(got) == {"bios", "bmc"}
    bmc = got["bmc"]
    assert bmc["model"] == "Fake BMC" and bmc["vendor"]
    assert bmc["serial_number"].startswith("BMC-")
    assert bmc["initial_version"] == bmc["current_version"]
