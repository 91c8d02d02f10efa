"""Node history: project (API 1.113); state, target_provision_state and
duration_seconds (API 1.115), shown in detail from exactly those versions
and recorded by the conductor."""

from __future__ import annotations

import pytest

from ironic import hash_ring
from ironic.common import rpc, states
from ironic.conductor import base_manager, rpcapi
from ironic.db import api as db_api
from ironic.tests.fixtures import error_message

V78 = {"uuid", "created_at", "severity", "event_type", "event", "conductor",
       "user", "links"}
STATE_FIELDS = {"state", "target_provision_state", "duration_seconds"}


def _node_with_event(api, event="it broke") -> tuple[str, str]:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware"})
    assert resp.status_int == 201, resp.body
    node = resp.json["uuid"]
    dbapi = db_api.get_instance()
    row = dbapi.add_node_history(dbapi.get_node_by_uuid(node).id, {
        "conductor": "c1", "event_type": "deploying", "severity": "ERROR",
        "event": event, "user": "u1", "project": "p1", "state": "deploying",
        "target_provision_state": "active", "duration_seconds": 42})
    return node, row.uuid


def _detail(api, node, version):
    resp = api.get(f"/v1/nodes/{node}/history?detail=true", version=version)
    assert resp.status_int == 200, resp.body
    return resp.json["history"][0]


def test_fields_appear_at_their_versions(api_newest):
    api = api_newest
    node, event = _node_with_event(api)
    assert set(_detail(api, node, "1.112")) == V78
    assert set(_detail(api, node, "1.113")) == V78 | {"project"}
    assert set(_detail(api, node, "1.114")) == V78 | {"project"}
    new = _detail(api, node, "1.115")
    assert set(new) == V78 | {"project"} | STATE_FIELDS
    assert (new["project"], new["state"], new["target_provision_state"],
            new["duration_seconds"]) == ("p1", "deploying", "active", 42)
    # The default list never shows them.
    plain = api.get(f"/v1/nodes/{node}/history").json["history"][0]
    assert set(plain) == {"uuid", "created_at", "severity", "event",
                          "links"}
    # One event is shown in detail, with the same gating.
    url = f"/v1/nodes/{node}/history/{event}"
    assert set(api.get(url, version="1.112").json) == V78
    assert set(api.get(url, version="1.113").json) == V78 | {"project"}
    assert api.get(url, version="1.115").json["duration_seconds"] == 42


@pytest.mark.parametrize("version", ["1.78", "1.113", "1.115"])
def test_the_list_takes_no_fields_parameter(api_newest, version):
    # As Ironic 39: the list takes detail, limit, marker and sorting only.
    api = api_newest
    node, _ = _node_with_event(api)
    resp = api.get(f"/v1/nodes/{node}/history?fields=uuid,event",
                   version=version)
    assert resp.status_int == 400
    assert error_message(resp) == "Unexpected arguments: fields"
    resp = api.get(f"/v1/nodes/{node}/history?sort_dir=asc&limit=1",
                   version=version)
    assert resp.status_int == 200


def test_long_events_are_shortened_without_detail(api_newest):
    api = api_newest
    text = "x" * 300
    node, _ = _node_with_event(api, text)
    plain = api.get(f"/v1/nodes/{node}/history").json["history"][0]
    # As the reference: 251 characters and an ellipsis.
    assert len(plain["event"]) == 254 and plain["event"].endswith("...")
    assert _detail(api, node, "1.115")["event"] == text


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


def test_conductor_records_who_and_where(env):
    api, svc = env
    who = {"X-User-Id": "alice", "X-Project-Id": "proj-42"}
    node = api.post("/v1/nodes", {"driver": "fake-hardware"}).json["uuid"]
    for body in ({"target": "manage"}, {
            # No target RAID config: the step fails while cleaning.
            "target": "clean", "clean_steps": [
                {"interface": "raid", "step": "create_configuration"}]}):
        resp = api.put(f"/v1/nodes/{node}/states/provision", body,
                       headers=who)
        assert resp.status_int == 202, resp.body
        assert svc.pool.wait_idle(10)
    assert api.get(f"/v1/nodes/{node}").json["provision_state"] == \
        states.CLEANFAIL
    events = api.get(f"/v1/nodes/{node}/history?detail=true").json[
        "history"]
    assert len(events) == 1, events
    got = events[0]
    assert (got["user"], got["project"]) == ("alice", "proj-42")
    # Where the node was when it failed, not where the failure took it.
    assert got["state"] == states.CLEANING
    assert got["target_provision_state"] == states.MANAGEABLE
    assert isinstance(got["duration_seconds"], int)
    assert 0 <= got["duration_seconds"] < 60
