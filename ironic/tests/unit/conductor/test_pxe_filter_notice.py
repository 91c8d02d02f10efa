"""Conductors tell the PXE filters when inspection starts and ends."""

from __future__ import annotations

from ironic.common import rpc
from ironic.tests.unit.conductor.test_lifecycle import _node, _provision

MAC = "52:54:00:ab:cd:01"


class _Recorder(rpc.LocalTransport):
    def __init__(self):
        self.sent = []

    def fanout(self, topic, method, context, kwargs, version):
        self.sent.append((topic, method, kwargs))
        return True


def test_inspection_start_and_end_are_broadcast(env, config, monkeypatch):
    api, _ = env
    recorder = _Recorder()
    monkeypatch.setattr(rpc, "_TRANSPORT", recorder)
    config("pxe_filter", supported_inspect_interfaces=["fake"])
    uuid = _node(api)
    api.post("/v1/ports", {"node_uuid": uuid, "address": MAC.upper()})
    _provision(env, uuid, "manage")
    assert recorder.sent == []
    _provision(env, uuid, "inspect")
    assert recorder.sent == [
        ("ironic.pxe_filter", "update_pxe_filters",
         {"allow": [MAC], "deny": []}),
        ("ironic.pxe_filter", "update_pxe_filters",
         {"allow": [], "deny": [MAC]}),
    ]


def test_unsupported_inspect_interface_is_not_broadcast(env, monkeypatch):
    api, _ = env
    recorder = _Recorder()
    monkeypatch.setattr(rpc, "_TRANSPORT", recorder)
    uuid = _node(api)
    _provision(env, uuid, "manage")
    _provision(env, uuid, "inspect")
    assert recorder.sent == []


def test_none_transport_broadcasts_nothing_and_inspects(env):
    api, _ = env
    uuid = _node(api)
    _provision(env, uuid, "manage")
    assert not rpc.get_transport().fanout("t", "m", {}, {}, "1.0")
    _provision(env, uuid, "inspect")
    assert api.get(f"/v1/nodes/{uuid}").json["provision_state"] == \
        "manageable"
