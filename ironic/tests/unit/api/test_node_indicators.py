"""Indicators (1.63) through the API, an in-process conductor and the fake
management interface."""

from __future__ import annotations

import pytest

from ironic.tests.fixtures import error_message
from ironic.tests.unit.api.test_node_management import _lock, _node, env

__all__ = ["env"]


def _url(node, tail=""):
    return f"/v1/nodes/{node}/management/indicators{tail}"


def test_list_every_indicator(env):
    api, _ = env
    node = _node(api)
    resp = api.get(_url(node), version="1.63")
    assert resp.status_int == 200, resp.body
    items = {i["name"]: i for i in resp.json["indicators"]}
    assert set(items) == {"led@system", "led@chassis", "power@chassis"}
    led = items["led@system"]
    assert led["component"] == "system"
    assert led["readonly"] is False
    assert led["states"] == ["OFF", "ON", "BLINKING"]
    assert led["links"][0]["href"].endswith(
        f"/v1/nodes/{node}/management/indicators/led@system")
    assert led["links"][0]["rel"] == "self"
    assert led["links"][1]["rel"] == "bookmark"
    assert items["power@chassis"]["readonly"] is True


def test_list_one_component(env):
    api, _ = env
    node = _node(api)
    resp = api.get(_url(node, "/chassis"))
    assert resp.status_int == 200, resp.body
    assert sorted(i["name"] for i in resp.json["indicators"]) == [
        "led@chassis", "power@chassis"]
    assert api.get(_url(node, "/disk")).status_int == 404


def test_get_and_set_state(env):
    api, _ = env
    node = _node(api)
    assert api.get(_url(node, "/led@system")).json == {"state": "OFF"}
    resp = api.put(_url(node, "/led@system"), {"state": "BLINKING"})
    assert resp.status_int == 204, resp.body
    assert resp.body == b""
    assert api.get(_url(node, "/led@system")).json == {"state": "BLINKING"}
    assert api.get(_url(node, "/led@chassis")).json == {"state": "OFF"}
    resp = api.request("PUT", _url(node, "/led@chassis?state=ON"))
    assert resp.status_int == 204, resp.body
    assert api.get(_url(node, "/led@chassis")).json == {"state": "ON"}
    assert api.get(f"/v1/nodes/{node}").json["reservation"] is None


@pytest.mark.parametrize("ident,body,status", [
    ("led@system", {"state": "UNKNOWN"}, 400),
    ("led@system", {"state": "on"}, 400),
    ("led@system", {}, 400),
    ("led@system", {"state": "ON", "x": 1}, 400),
    ("led@system", ["ON"], 400),
    ("power@chassis", {"state": "ON"}, 400),
    ("led", {"state": "ON"}, 400),
    ("@system", {"state": "ON"}, 400),
    ("nope@system", {"state": "ON"}, 404),
    ("led@nowhere", {"state": "ON"}, 404),
])
def test_set_errors(env, ident, body, status):
    api, _ = env
    node = _node(api)
    resp = api.put(_url(node, f"/{ident}"), body)
    assert resp.status_int == status, resp.body
    error_message(resp)


@pytest.mark.parametrize("ident,status", [
    ("nope@system", 404), ("led@nowhere", 404), ("led", 400),
    ("system@", 400)])
def test_get_errors(env, ident, status):
    api, _ = env
    node = _node(api)
    resp = api.get(_url(node, f"/{ident}"))
    assert resp.status_int == status, resp.body


def test_versions_missing_nodes_and_locks(env):
    api, _ = env
    node = _node(api)
    assert api.get(_url(node), version="1.62").status_int == 404
    assert api.get(_url(node, "/led@system"),
                   version="1.62").status_int == 404
    assert api.put(_url(node, "/led@system"), {"state": "ON"},
                   version="1.62").status_int == 404
    assert api.get(_url("nope")).status_int == 404
    assert api.put(_url("nope", "/led@system"),
                   {"state": "ON"}).status_int == 404
    _lock(node)
    assert api.get(_url(node, "/led@system")).status_int == 200
    resp = api.put(_url(node, "/led@system"), {"state": "ON"})
    assert resp.status_int == 409
    assert "locked" in error_message(resp)


def test_unsupported_management_lists_nothing(env, monkeypatch):
    from ironic.drivers import base
    from ironic.drivers.modules import fake
    api, _ = env
    node = _node(api)
    for name in ("get_supported_indicators", "get_indicator_state",
                 "set_indicator_state"):
        monkeypatch.setattr(fake.FakeManagement, name,
                            getattr(base.ManagementInterface, name))
    assert api.get(_url(node)).json == {"indicators": []}
    assert api.get(_url(node, "/led@system")).status_int == 404


def test_drivers_giving_settable_lists_are_understood(env, monkeypatch):
    from ironic.drivers.modules import fake
    api, _ = env
    node = _node(api)
    monkeypatch.setattr(
        fake.FakeManagement, "get_supported_indicators",
        lambda self, task, component=None: {"disk": {"d0": ["ON", "OFF"],
                                                     "d1": []}})
    items = {i["name"]: i for i in api.get(_url(node)).json["indicators"]}
    assert items["d0@disk"]["readonly"] is False
    assert items["d0@disk"]["states"] == ["ON", "OFF"]
    assert items["d1@disk"]["readonly"] is True
