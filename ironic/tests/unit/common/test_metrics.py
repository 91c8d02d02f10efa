"""ironic.metrics: statsd names and datagrams, Prometheus series, routes."""

import re
import socket

import pytest

from ironic import metrics
from ironic.metrics import api as api_metrics
from ironic.metrics import statsd


@pytest.fixture
def udp():
    """A statsd daemon stand-in: a real UDP socket on loopback."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(5)
    yield sock
    sock.close()


def _datagrams(sock, count):
    return [sock.recv(2048).decode() for _ in range(count)]


@pytest.fixture
def sinks(config, udp):
    """statsd to ``udp`` and Prometheus series, both on."""
    config("metrics", backend="statsd", prometheus_port=0)
    config("metrics_statsd", statsd_host="127.0.0.1",
           statsd_port=udp.getsockname()[1])
    from ironic.conf import CONF
    metrics.setup(CONF)
    yield metrics.SINKS
    config("metrics", backend="noop", prometheus_port=None)
    metrics.setup(CONF)


@pytest.mark.parametrize("prefix, host, reverse, expected", [
    (None, None, True, ""),
    ("dc1", None, True, "dc1."),
    (None, "c1.example.com", True, "com.example.c1."),
    ("dc1", "c1.example.com", False, "dc1.c1.example.com."),
])
def test_name_prefix(prefix, host, reverse, expected):
    assert statsd.name_prefix(prefix, host, reverse) == expected


def test_prefix_options_shape_the_names(config, udp):
    config(host="cond-1.example.org")
    config("metrics", backend="statsd", prepend_host=True,
           global_prefix="bm")
    config("metrics_statsd", statsd_host="127.0.0.1",
           statsd_port=udp.getsockname()[1])
    from ironic.conf import CONF
    sender = statsd.StatsdSender.from_conf(CONF)
    sender.timer("x.y", 0.0125)
    sender.gauge("g", 3)
    sender.close()
    assert _datagrams(udp, 2) == [
        "bm.org.example.cond-1.x.y:12.500|ms",
        "bm.org.example.cond-1.g:3|g"]


class _Endpoint:
    RPC_API_VERSION = "1.0"

    def change_node_power_state(self, context, node_id, new_state):
        if new_state == "bad":
            raise ValueError("no")
        return new_state

    def _private(self):
        return "untimed"


def test_rpc_endpoint_times_each_public_method(sinks, udp):
    cls = metrics.rpc_endpoint(type("ConductorManager", (_Endpoint,), {
        "__module__": "ironic.conductor.manager",
        "change_node_power_state": _Endpoint.change_node_power_state}))
    assert cls().change_node_power_state({}, "n", "power on") == "power on"
    with pytest.raises(ValueError):
        cls().change_node_power_state({}, "n", "bad")
    (first, second) = _datagrams(udp, 2)
    assert re.fullmatch(r"ironic\.conductor\.manager\.ConductorManager\."
                        r"change_node_power_state:\d+\.\d{3}\|ms", first)
    assert second.startswith(first.split(":")[0])
    text = sinks.prometheus.exposition().decode()
    assert ('ironic_rpc_duration_seconds_count{method='
            '"change_node_power_state"} 2.0') in text
    assert ('ironic_rpc_errors_total{error="ValueError",'
            'method="change_node_power_state"} 1.0') in text


def test_hooks_cost_nothing_when_off(config):
    from ironic.conf import CONF
    config("metrics", backend="noop", prometheus_port=None)
    metrics.setup(CONF)
    assert not metrics.SINKS.on
    with metrics.step("deploy", "deploy", "deploy") as m:
        m["outcome"] = "done"
    metrics.lock_held("x", 1.0)
    metrics.power_sync_cycle(1.0, 3)


class _Power:
    interface_type = "power"

    @metrics.bmc_call
    def get_power_state(self, task):
        if task == "down":
            raise ConnectionError("BMC unreachable")
        return "power on"


def test_bmc_calls_are_timed_and_errors_counted(sinks, udp):
    power = _Power()
    assert power.get_power_state("ok") == "power on"
    with pytest.raises(ConnectionError):
        power.get_power_state("down")
    names = [d.split(":")[0] for d in _datagrams(udp, 2)]
    assert names == [f"{__name__}._Power.get_power_state"] * 2
    text = sinks.prometheus.exposition().decode()
    assert ('ironic_bmc_call_duration_seconds_count{call='
            '"_Power.get_power_state",interface="power"} 2.0') in text
    assert ('ironic_bmc_call_errors_total{call="_Power.get_power_state",'
            'error="ConnectionError",interface="power"} 1.0') in text


def test_steps_locks_and_power_sync(sinks, udp):
    with metrics.step("clean", "deploy", "erase_devices") as m:
        m["outcome"] = "wait"
    with pytest.raises(RuntimeError):
        with metrics.step("deploy", "deploy", "write_image"):
            raise RuntimeError("disk full")
    metrics.lock_held("node deployment", 2.5)
    metrics.power_sync_cycle(0.75, 12)
    # A step handed to the agent is sent to statsd when it is done.
    got = _datagrams(udp, 3)
    assert got[0].startswith("ironic.conductor.steps.deploy.deploy."
                             "write_image:")
    assert got[1:] == [
        "ironic.conductor.manager.ConductorManager._sync_power_states:"
        "750.000|ms",
        "ironic.conductor.manager.ConductorManager.PowerSyncNodesCount:12|g"]
    text = sinks.prometheus.exposition().decode()
    assert ('ironic_step_duration_seconds_count{interface="deploy",'
            'kind="clean",outcome="wait",step="erase_devices"} 1.0') in text
    assert 'outcome="failed",step="write_image"} 1.0' in text
    assert ('ironic_node_lock_held_seconds_sum{purpose="node deployment"} '
            '2.5') in text
    assert "ironic_power_sync_nodes 12.0" in text
    assert "ironic_power_sync_cycle_seconds_sum 0.75" in text


@pytest.mark.parametrize("path, template", [
    ("/", "/"),
    ("/v1/", "/v1"),
    ("/v1/nodes", "/v1/nodes"),
    ("/v1/nodes/detail", "/v1/nodes/detail"),
    ("/v1/nodes/my-node", "/v1/nodes/{node_ident}"),
    ("/v1/nodes/7c1e/states/provision",
     "/v1/nodes/{node_ident}/states/provision"),
    ("/v1/nodes/n/traits/CUSTOM_GPU", "/v1/nodes/{node_ident}/traits/{trait}"),
    ("/v1/nodes/n/management/indicators/led@system",
     "/v1/nodes/{node_ident}/management/indicators/{indicator}"),
    ("/v1/heartbeat/abc", "/v1/heartbeat/{node_ident}"),
    ("/v1/portgroups/pg/ports/detail",
     "/v1/portgroups/{portgroup_ident}/ports/detail"),
    ("/v1/nodes/n/nonsense", api_metrics.UNMATCHED),
    ("/v2/nodes", api_metrics.UNMATCHED),
])
def test_route_templates(path, template):
    assert api_metrics.route_template(path) == template


def test_every_route_is_its_own_template():
    for template in api_metrics.ROUTES:
        concrete = re.sub(r"\{[^}]+\}", "x-1", template)
        assert api_metrics.route_template(concrete) == template


def test_ironic_timer_names():
    timer = api_metrics.ironic_timer
    prefix = "ironic.api.controllers.v1."
    assert timer("GET", "/v1/nodes") == f"{prefix}node.NodesController.get_all"
    assert timer("PUT", "/v1/nodes/{node_ident}/states/power") == \
        f"{prefix}node.NodeStatesController.power"
    assert timer("POST", "/v1/drivers/{driver_name}/vendor_passthru") == \
        f"{prefix}driver.DriverPassthruController._default"
    assert timer("GET", "/v1/lookup") is None
    assert timer("GET", api_metrics.UNMATCHED) is None


def test_api_observer_labels_by_route(sinks, udp):
    api_metrics.observe({"REQUEST_METHOD": "GET",
                         "PATH_INFO": "/v1/nodes/n1"}, 200, 0.002)
    api_metrics.observe({"REQUEST_METHOD": "BREW",
                         "PATH_INFO": "/teapot"}, 405, 0.001)
    (datagram,) = _datagrams(udp, 1)
    assert datagram == ("ironic.api.controllers.v1.node.NodesController."
                        "get_one:2.000|ms")
    text = sinks.prometheus.exposition().decode()
    assert ('ironic_api_request_duration_seconds_count{method="GET",'
            'route="/v1/nodes/{node_ident}",status="200"} 1.0') in text
    assert ('{method="other",route="unmatched",status="405"} 1.0') in text


def test_a_step_done_in_the_agent_is_timed_to_its_end(sinks, udp):
    with metrics.step("clean", "deploy", "erase_devices", node="n1") as m:
        m["outcome"] = "wait"
    with metrics.step("clean", "raid", "create", node="n2") as m:
        m["outcome"] = "wait"
    metrics.step_resumed("n1", "clean", "deploy", "erase_devices")
    metrics.step_abandoned("n2")
    metrics.step_resumed("n2", "clean", "raid", "create")
    # Resuming at another step (a repeated one) records nothing.
    with metrics.step("clean", "deploy", "erase_devices", node="n1") as m:
        m["outcome"] = "wait"
    metrics.step_resumed("n1", "clean", "deploy", "other_step")
    (datagram,) = _datagrams(udp, 1)
    assert datagram.startswith(
        "ironic.conductor.steps.clean.deploy.erase_devices:")
    text = sinks.prometheus.exposition().decode()
    assert ('ironic_step_duration_seconds_count{interface="deploy",'
            'kind="clean",outcome="async",step="erase_devices"} 1.0') in text
    assert 'outcome="async",step="create"' not in text


def test_a_taken_port_is_logged_not_fatal(config, caplog):
    from ironic.conf import CONF
    taken = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    config("metrics", prometheus_port=taken.getsockname()[1])
    try:
        metrics.setup(CONF)
        metrics.start_listener(CONF)
        assert metrics.SINKS.listener is None
        assert "Cannot serve Prometheus metrics" in caplog.text
    finally:
        taken.close()
        config("metrics", prometheus_port=None)
        metrics.setup(CONF)
