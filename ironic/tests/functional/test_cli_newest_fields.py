"""Fields of API 1.111, 1.113, 1.114, 1.115 and 1.93's GET vmedia read by
the real ``openstack baremetal`` CLI (which negotiates up to 1.115) and
over plain HTTP, from the in-process API on a real port with every
microversion enabled and an in-process conductor."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest

from ironic import driver_registry, hash_ring
from ironic.api import app as api_app
from ironic.common import rpc
from ironic.conductor import base_manager, rpcapi
from ironic.serving.server import ServerThread
from ironic.tests.functional import service as svc


@pytest.fixture
def live(api_without_conductor, config, monkeypatch):
    config(rpc_transport="none", host="test-conductor")
    rpc.reset()
    hash_ring.reset()
    monkeypatch.setattr(rpcapi, "_API", None)
    conductor = base_manager.ConductorService()
    conductor.start()
    server = ServerThread(api_app.setup_app()).start()
    endpoint = server.endpoint
    yield endpoint, svc.Cli(endpoint)
    server.stop()
    conductor.stop(timeout=5)
    rpc.reset()
    driver_registry.reset()


def _http(endpoint: str, path: str, version: str, method: str = "GET",
          body: dict | None = None):
    req = urllib.request.Request(
        f"{endpoint}{path}", method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"X-OpenStack-Ironic-API-Version": version,
                 "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        raw = resp.read()
        return resp.status, json.loads(raw) if raw else None


def test_cli_shows_dynamic_portgroup_fields(live):
    endpoint, cli = live
    node = cli.json("node", "create", "--driver", "fake-hardware",
                    "--name", "dyn")["uuid"]
    port = cli.json("port", "create", "52:54:00:00:aa:01", "--node", node)
    # "show" prints every field the service sent (create a fixed set).
    shown = cli.json("port", "show", port["uuid"])
    assert shown["available_for_dynamic_portgroup"] is True
    cli.json("port", "group", "create", "--node", node, "--name", "bond0")
    group = cli.json("port", "group", "show", "bond0")
    assert group["dynamic_portgroup"] is False
    status, _ = _http(endpoint, f"/v1/ports/{port['uuid']}", "1.111",
                      "PATCH", [{"op": "replace",
                                 "path": "/available_for_dynamic_portgroup",
                                 "value": False}])
    assert status == 200
    shown = cli.json("port", "show", port["uuid"])
    assert shown["available_for_dynamic_portgroup"] is False
    # A client pinned below 1.111 does not see them.
    old = svc.Cli(endpoint, api_version="1.110")
    assert "available_for_dynamic_portgroup" not in old.json(
        "port", "show", port["uuid"])
    assert "dynamic_portgroup" not in old.json("port", "group", "show",
                                               "bond0")


def test_cli_history_shows_state_and_duration(live):
    _, cli = live
    cli.json("node", "create", "--driver", "fake-hardware", "--name", "hist")
    cli.run("node", "manage", "hist", "--wait", "30")
    # No target RAID configuration: the clean step fails.
    steps = json.dumps([{"interface": "raid",
                         "step": "create_configuration"}])
    cli.run("node", "clean", "hist", "--clean-steps", steps, "--wait", "30",
            check=False)
    assert cli.json("node", "show", "hist")["provision_state"] == \
        "clean failed"
    events = cli.json("node", "history", "list", "hist", "--long")
    assert len(events) == 1, events
    event = {k.lower().replace(" ", "_"): v for k, v in events[0].items()}
    assert event["state"] == "cleaning"
    assert event["target_provision_state"] == "manageable"
    assert isinstance(event["duration_seconds"], int)
    assert "project" in event
    one = cli.json("node", "history", "get", "hist", event["uuid"])
    assert one["state"] == "cleaning" and one["severity"] == "ERROR"
    older = svc.Cli(cli.endpoint, api_version="1.112").json(
        "node", "history", "get", "hist", event["uuid"])
    assert "project" not in older and "state" not in older


def test_firmware_identity_and_vmedia_over_http(live):
    endpoint, cli = live
    node = cli.json("node", "create", "--driver", "fake-hardware",
                    "--name", "fw")
    cli.run("node", "manage", "fw", "--wait", "30")
    _, doc = _http(endpoint, "/v1/nodes/fw/firmware", "1.114")
    bmc = {c["component"]: c for c in doc["firmware"]}["bmc"]
    assert (bmc["vendor"], bmc["model"]) == ("Fake Vendor", "Fake BMC")
    assert bmc["serial_number"].startswith("BMC-")
    _, doc = _http(endpoint, "/v1/nodes/fw/firmware", "1.113")
    assert "model" not in doc["firmware"][0]

    status, _ = _http(endpoint, f"/v1/nodes/{node['uuid']}/vmedia", "1.93",
                      "POST", {"device_type": "cdrom",
                               "image_url": "http://127.0.0.1:9/x.iso"})
    assert status == 204
    # The attach lands in a conductor worker: poll until it shows.
    deadline = time.monotonic() + 10
    while True:
        _, drives = _http(endpoint, "/v1/nodes/fw/vmedia", "1.93")
        if drives[0]["inserted"] or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert drives[0] == {"media_types": ["CD", "DVD"], "inserted": True,
                         "image": "http://127.0.0.1:9/x.iso"}
