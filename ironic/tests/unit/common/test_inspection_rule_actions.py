"""Inspection rule actions, each on a real node and ports in sqlite."""

from __future__ import annotations

import http.server
import logging
import threading

import pytest

from ironic.common import exception
from ironic.db import api as db_api
from ironic.inspection_rules import actions, plugin
from ironic.objects.node import Node
from ironic.objects.port import Port
from ironic.tests import builders

INVENTORY = {"cpu": {"architecture": "x86_64", "count": 8},
             "bmc_address": "192.0.2.200"}


class _Task:
    def __init__(self, node):
        self.node = node


@pytest.fixture
def node(database):
    return builders.make_node(properties={"capabilities": "boot_mode:uefi"},
                              extra={"tags": ["a"]})


@pytest.fixture
def scope(node):
    return plugin.Scope.build(_Task(node), INVENTORY, {"keep": 1}, True)


def run(scope, op, args, **extra):
    actions.run({"op": op, "args": args, **extra}, scope)


def _reloaded(node):
    return Node.get(node.id)


def test_set_attribute_nested_and_top_level(scope, node):
    run(scope, "set-attribute", {"path": "/properties/cpu_arch",
                                 "value": "{inventory[cpu][architecture]}"})
    run(scope, "set-attribute", ["extra.deep.key", 5])
    run(scope, "set-attribute", {"path": "description", "value": "found"})
    back = _reloaded(node)
    assert back.properties["cpu_arch"] == "x86_64"
    assert back.extra["deep"] == {"key": 5} and back.extra["tags"] == ["a"]
    assert back.description == "found"


@pytest.mark.parametrize("path, value, match", [
    ("provision_state", "active", "managed by the service"),
    ("no_such_field", 1, "no field"),
    ("properties", "not-a-dict", "must be a dict"),
    ("", 1, "invalid path"),
])
def test_set_attribute_refusals(scope, path, value, match):
    with pytest.raises(actions.Failure, match=match):
        run(scope, "set-attribute", {"path": path, "value": value})


def test_extend_attribute(scope, node):
    run(scope, "extend-attribute", {"path": "/extra/tags", "value": "b"})
    run(scope, "extend-attribute", {"path": "/extra/tags", "value": "b",
                                    "unique": True})
    run(scope, "extend-attribute", {"path": "/extra/new", "value": 1})
    back = _reloaded(node)
    assert back.extra["tags"] == ["a", "b"] and back.extra["new"] == [1]
    with pytest.raises(actions.Failure, match="not a list"):
        run(scope, "extend-attribute", {"path": "/properties/capabilities",
                                        "value": "x"})


def test_del_attribute(scope, node):
    run(scope, "del-attribute", {"path": "/extra/tags"})
    run(scope, "set-attribute", {"path": "description", "value": "x"})
    run(scope, "del-attribute", {"path": "description"})
    back = _reloaded(node)
    assert "tags" not in back.extra and back.description is None
    with pytest.raises(actions.Failure, match="KeyError"):
        run(scope, "del-attribute", {"path": "/extra/missing"})


def test_capabilities(scope, node):
    run(scope, "set-capability", {"name": "cpu_vt", "value": "true"})
    run(scope, "set-capability", {"name": "boot_mode", "value": "bios"})
    assert _reloaded(node).properties["capabilities"] == \
        "boot_mode:bios,cpu_vt:true"
    run(scope, "unset-capability", {"name": "boot_mode"})
    run(scope, "unset-capability", {"name": "never_set"})
    assert _reloaded(node).properties["capabilities"] == "cpu_vt:true"
    run(scope, "unset-capability", {"name": "cpu_vt"})
    assert "capabilities" not in _reloaded(node).properties


def test_traits(scope, node):
    dbapi = db_api.get_instance()
    run(scope, "add-trait", {"name": "CUSTOM_GPU"})
    run(scope, "add-trait", {"name": "CUSTOM_GPU"})  # idempotent
    run(scope, "add-trait", ["HW_CPU_X86_AVX2"])
    assert dbapi.get_node_traits(node.id) == ["CUSTOM_GPU",
                                             "HW_CPU_X86_AVX2"]
    run(scope, "remove-trait", {"name": "CUSTOM_GPU"})
    run(scope, "remove-trait", {"name": "CUSTOM_ABSENT"})  # only logged
    assert dbapi.get_node_traits(node.id) == ["HW_CPU_X86_AVX2"]
    with pytest.raises(actions.Failure, match="invalid trait"):
        run(scope, "add-trait", {"name": "{item}"}, loop=["lower"])


def test_plugin_data(scope):
    data = scope.plugin_data
    run(scope, "set-plugin-data", {"path": "a.b", "value": "{node.uuid}"})
    run(scope, "extend-plugin-data", {"path": "a.list", "value": 1})
    run(scope, "extend-plugin-data", {"path": "a.list", "value": 1,
                                      "unique": True})
    run(scope, "extend-plugin-data", ["a.list", 2])
    assert data["a"] == {"b": scope.task.node.uuid, "list": [1, 2]}
    run(scope, "unset-plugin-data", {"path": "a.b"})
    run(scope, "unset-plugin-data", {"path": "x.y.z"})  # absent: logged
    assert data == {"keep": 1, "a": {"list": [1, 2]}}
    with pytest.raises(actions.Failure, match="not a list"):
        run(scope, "extend-plugin-data", {"path": "keep", "value": 2})
    # Rules written for the reference may carry its internal argument.
    run(scope, "set-plugin-data", {"path": "c", "value": 3,
                                   "plugin_data": {}})
    assert data["c"] == 3


def test_port_attributes(scope, node):
    port = Port(address="52:54:00:00:00:01", node_id=node.id)
    port.create()
    run(scope, "set-port-attribute", {"port_id": port.uuid,
                                      "path": "/extra/switch",
                                      "value": "{inventory[bmc_address]}"})
    run(scope, "set-port-attribute", {"port_id": port.uuid,
                                      "path": "physical_network",
                                      "value": "physnet1"})
    run(scope, "extend-port-attribute", {"port_id": port.uuid,
                                         "path": "extra.vlans",
                                         "value": 10})
    back = Port.get(port.id)
    assert back.extra == {"switch": "192.0.2.200", "vlans": [10]}
    assert back.physical_network == "physnet1"
    run(scope, "del-port-attribute", {"port_id": port.uuid,
                                      "path": "/extra/vlans"})
    run(scope, "del-port-attribute", {"port_id": port.uuid,
                                      "path": "physical_network"})
    back = Port.get(port.id)
    assert back.extra == {"switch": "192.0.2.200"}
    assert back.physical_network is None


def test_ports_of_other_nodes_are_out_of_reach(scope):
    other = builders.make_node()
    port = Port(address="52:54:00:00:00:02", node_id=other.id)
    port.create()
    for port_id in (port.uuid, "11111111-2222-3333-4444-555555555555"):
        with pytest.raises(actions.Failure, match="has no port"):
            run(scope, "set-port-attribute", {"port_id": port_id,
                                              "path": "extra/x",
                                              "value": 1})


def test_fail_raises_the_message(scope):
    with pytest.raises(exception.HardwareInspectionFailure,
                       match="too little RAM"):
        run(scope, "fail", {"msg": "too little RAM"})


def test_log(scope, caplog):
    caplog.set_level(logging.DEBUG, logger=actions.LOG.name)
    run(scope, "log", {"msg": "arch {inventory[cpu][architecture]}",
                       "level": "warning"})
    run(scope, "log", ["default level"])
    records = [(r.levelname, r.getMessage()) for r in caplog.records]
    uuid = scope.task.node.uuid
    assert ("WARNING", f"Node {uuid}: arch x86_64") in records
    assert ("INFO", f"Node {uuid}: default level") in records
    with pytest.raises(actions.Failure, match="invalid log level"):
        run(scope, "log", {"msg": "x", "level": "{item}"}, loop=["loud"])


def test_loops_run_once_per_item(scope, node):
    run(scope, "set-attribute", {"path": "{item[path]}",
                                 "value": "{item[value]}"},
        loop=[{"path": "extra/a", "value": "{inventory[cpu][count]}"},
              {"path": "extra/b", "value": "two"}])
    run(scope, "add-trait", {"name": "{item}"},
        loop=["CUSTOM_A", "CUSTOM_B"])
    back = _reloaded(node)
    assert back.extra["a"] == "8" and back.extra["b"] == "two"
    assert db_api.get_instance().get_node_traits(node.id) == [
        "CUSTOM_A", "CUSTOM_B"]


class _Hook(http.server.BaseHTTPRequestHandler):
    seen: list = []

    def do_GET(self):  # noqa: N802 - the http.server interface
        type(self).seen.append((self.path, self.headers.get("X-Token")))
        self.send_response(404 if self.path.startswith("/missing") else 200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def web_hook():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hook)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Hook.seen = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(5)


def test_api_call(scope, web_hook):
    run(scope, "api-call", {"url": web_hook + "/done/{node.uuid}",
                            "headers": {"X-Token": "t"}, "retries": 0})
    assert _Hook.seen == [(f"/done/{scope.task.node.uuid}", "t")]
    with pytest.raises(actions.Failure, match="404"):
        run(scope, "api-call", {"url": web_hook + "/missing",
                                "retries": 0})
    with pytest.raises(actions.Failure, match="positive timeout"):
        run(scope, "api-call", {"url": web_hook, "timeout": 0})


def test_api_call_unreachable(scope):
    with pytest.raises(actions.Failure, match="failed"):
        # Port 9 (discard) on loopback: nothing listens in the test VM.
        run(scope, "api-call", {"url": "http://127.0.0.1:9/", "retries": 0,
                                "timeout": 2})


@pytest.mark.parametrize("op, args, match", [
    ("fail", {}, "missing required argument"),
    ("log", {"msg": "x", "colour": "red"}, "unexpected argument"),
    ("set-attribute", ["only-path"], "missing required argument"),
    ("log", [], "missing required argument"),
    ("log", "text", "list or an object"),
    ("log", {"msg": "x", "level": "loud"}, "invalid log level"),
    ("add-trait", {"name": "lower_case"}, "invalid trait"),
    ("set-capability", {"name": "", "value": 1}, "non-empty string"),
    ("api-call", {"url": "http://x", "timeout": "soon"}, "api-call"),
    ("api-call", {"url": "http://x", "headers": []}, "must be an object"),
])
def test_validation_of_arguments(op, args, match):
    with pytest.raises(plugin.ArgumentError, match=match):
        actions.get(op).validate(args, in_loop=False)


def test_templated_arguments_are_checked_when_run():
    # Inside a loop the level is rendered first; it is valid as written.
    actions.get("log").validate({"msg": "x", "level": "{item}"},
                                in_loop=True)
    with pytest.raises(plugin.ArgumentError, match="unsupported action"):
        actions.get("reboot")
