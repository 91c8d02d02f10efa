"""Metrics of a running service: statsd datagrams caught on a real UDP
socket, and the Prometheus endpoint scraped over HTTP, after real work
(a fake-hardware node deployed, a Redfish node's BMC asked by the
conductor and by the power state sync)."""

from __future__ import annotations

import re
import socket
import threading
import time
import urllib.request

import pytest

from ironic.tests.emulators.launch import RedfishEmulator
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc

# Bounds on waiting for periodic work (the power sync runs every second).
DEADLINE = 30.0


class StatsdListener:
    """Collects every datagram sent to a loopback UDP port."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.lines: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.lines.append(self.sock.recv(4096).decode())
            except TimeoutError:
                continue

    def names(self) -> set[str]:
        return {line.split(":")[0] for line in list(self.lines)}

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


@pytest.fixture(scope="module")
def statsd_listener():
    listener = StatsdListener()
    yield listener
    listener.close()


@pytest.fixture(scope="module")
def bmc():
    with RedfishEmulator(count=1, user="admin", password="pw") as emu:
        yield emu


@pytest.fixture(scope="module")
def metrics_service(tmp_path_factory, statsd_listener):
    drivers = dict(svc.TEST_DRIVERS,
                   enabled_hardware_types="fake-hardware,redfish",
                   enabled_power_interfaces="fake,redfish",
                   enabled_management_interfaces="fake,redfish")
    port = svc.free_port()
    server_gen = fconf.run_service(
        tmp_path_factory, "metrics", drivers=drivers, sections={
            "metrics": {"backend": "statsd", "prometheus_port": str(port)},
            "metrics_statsd": {"statsd_host": "127.0.0.1",
                               "statsd_port": str(statsd_listener.port)},
            "conductor": {"sync_power_state_interval": "1",
                          "automated_clean": "false"},
            "redfish": {"connection_attempts": "2",
                        "connection_retry_interval": "0"}})
    server = next(server_gen)
    server.metrics_url = f"http://127.0.0.1:{port}/metrics"
    yield server
    next(server_gen, None)


def scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as resp:
        assert resp.status == 200
        return resp.read().decode()


def sample(text: str, name: str, **labels: str) -> float | None:
    """The value of the sample ``name`` whose labels include ``labels``."""
    for line in text.splitlines():
        match = re.fullmatch(r"(\w+)(?:\{(.*)\})? (\S+)", line)
        if not match or match[1] != name:
            continue
        found = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', match[2] or ""))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(match[3])
    return None


def _until(check, what: str):
    deadline = time.monotonic() + DEADLINE
    while not (result := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"not seen within {DEADLINE} s: {what}")
        time.sleep(0.2)
    return result


@pytest.fixture(scope="module")
def worked(metrics_service, bmc):
    """Real work on the service: one node deployed, one Redfish node
    managed and powered on."""
    conn = fconf.sdk_connection(metrics_service.endpoint)
    fake = conn.baremetal.create_node(driver="fake-hardware", name="m-fake")
    conn.baremetal.set_node_provision_state(fake, "manage", wait=True)
    conn.baremetal.set_node_provision_state(fake, "provide", wait=True)
    conn.baremetal.set_node_provision_state(fake, "active", wait=True)
    red = conn.baremetal.create_node(driver="redfish", name="m-redfish",
                                     driver_info={
        "redfish_address": bmc.url, "redfish_username": "admin",
        "redfish_password": "pw",
        "redfish_system_id": f"/redfish/v1/Systems/{bmc.systems()[0]}"})
    conn.baremetal.set_node_provision_state(red, "manage", wait=True)
    conn.baremetal.set_node_power_state(red, "power on", wait=True)
    yield conn
    conn.close()


def test_prometheus_endpoint_after_real_work(metrics_service, worked):
    url = metrics_service.metrics_url

    def synced() -> str | None:
        text = scrape(url)
        return text if sample(text, "ironic_power_sync_cycle_seconds_count") \
            else None
    text = _until(synced, "a power sync cycle")
    assert sample(text, "ironic_nodes", provision_state="active",
                  maintenance="false") == 1
    assert sample(text, "ironic_nodes", provision_state="manageable",
                  power_state="power on") == 1
    assert sample(text, "ironic_api_request_duration_seconds_count",
                  method="PUT", route="/v1/nodes/{node_ident}/states/"
                  "provision", status="202") == 4
    assert sample(text, "ironic_api_request_duration_seconds_count",
                  method="POST", route="/v1/nodes", status="201") == 2
    assert not re.search(r'route="/v1/nodes/m-', text)
    assert sample(text, "ironic_rpc_duration_seconds_count",
                  method="do_node_deploy") == 1
    assert sample(text, "ironic_rpc_duration_seconds_count",
                  method="change_node_power_state") == 1
    assert sample(text, "ironic_step_duration_seconds_count", kind="deploy",
                  interface="deploy", step="deploy", outcome="done") == 1
    assert sample(text, "ironic_node_lock_held_seconds_count",
                  purpose="node deployment") >= 1
    assert sample(text, "ironic_bmc_call_duration_seconds_count",
                  interface="power", call="RedfishPower.set_power_state") == 1
    assert sample(text, "ironic_bmc_call_duration_seconds_count",
                  interface="power", call="RedfishPower.get_power_state") >= 1
    assert sample(text, "ironic_power_sync_nodes") == 2
    assert sample(text, "process_resident_memory_bytes") > 0


def test_bmc_errors_are_counted(metrics_service, worked, bmc):
    conn = worked
    node = conn.baremetal.create_node(driver="redfish", name="m-broken",
                                      driver_info={
        "redfish_address": bmc.url, "redfish_username": "admin",
        "redfish_password": "wrong",
        "redfish_system_id": f"/redfish/v1/Systems/{bmc.systems()[0]}"})
    conn.baremetal.set_node_provision_state(node, "manage")
    url = metrics_service.metrics_url
    _until(lambda: sample(scrape(url), "ironic_bmc_call_errors_total",
                          interface="power"), "a counted BMC error")


def test_statsd_timers_under_ironic_names(worked, statsd_listener):
    expected = {
        "ironic.api.controllers.v1.node.NodesController.post",
        "ironic.api.controllers.v1.node.NodeStatesController.provision",
        "ironic.conductor.manager.ConductorManager.do_node_deploy",
        "ironic.conductor.manager.ConductorManager.change_node_power_state",
        "ironic.drivers.modules.redfish_power.RedfishPower.set_power_state",
        "ironic.conductor.manager.ConductorManager._sync_power_states",
    }
    _until(lambda: expected <= statsd_listener.names(),
           f"statsd names {expected - statsd_listener.names()}")
    timers = [ln for ln in statsd_listener.lines if ln.endswith("|ms")]
    assert all(re.fullmatch(r"[\w.]+:\d+\.\d{3}\|ms", ln) for ln in timers)
