"""The Prometheus series and the listener that serves them.

Built on prometheus_client, in a registry of the service's own. Node
counts are read from the database when Prometheus scrapes (one GROUP BY);
everything else is recorded as it happens by the hooks of
``ironic.metrics``. See doc/source/admin/metrics.rst for every series.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Iterator

import prometheus_client
from prometheus_client import core as prom_core
from prometheus_client import multiprocess

from ironic.objects import node_counts

LOG = logging.getLogger(__name__)

# Requests and RPC calls take milliseconds; steps, lock holds and power
# sync cycles take seconds to hours.
FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
        2.5, 5.0, 10.0, 30.0, 60.0)
SLOW = (0.01, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0,
        1800.0, 3600.0, 7200.0)


class NodeStateCollector:
    """``ironic_nodes``: nodes per provision state, power state and
    maintenance flag, counted in the database at scrape time."""

    def describe(self) -> list:
        return []  # unknown labels until scraped; no check at registration

    def collect(self) -> Iterator[Any]:
        family = prom_core.GaugeMetricFamily(
            "ironic_nodes", "Nodes in the database, per provision state, "
            "power state and maintenance flag.",
            labels=["provision_state", "power_state", "maintenance"])
        try:
            counts = node_counts.by_state()
        except Exception:  # noqa: BLE001 - a scrape must still answer
            LOG.exception("Counting nodes for the metrics failed")
            return
        for c in counts:
            family.add_metric([c.provision_state or "", c.power_state or "",
                               str(c.maintenance).lower()], c.nodes)
        yield family


def _exposed_registry(own: prometheus_client.CollectorRegistry
                      ) -> prometheus_client.CollectorRegistry:
    """The registry a scrape reads: this process's series, or in
    multiprocess mode the sum of every process's files."""
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if path:
        exposed = prometheus_client.CollectorRegistry()
        multiprocess.MultiProcessCollector(exposed, path=path)
    else:
        exposed = own
        prometheus_client.ProcessCollector(registry=exposed)
        prometheus_client.PlatformCollector(registry=exposed)
        prometheus_client.GCCollector(registry=exposed)
    exposed.register(NodeStateCollector())
    return exposed


class Series:
    """Every series the service records, in a registry of its own."""

    def __init__(self):
        self.registry = reg = prometheus_client.CollectorRegistry()
        self.exposed = _exposed_registry(reg)
        H, C, G = (prometheus_client.Histogram, prometheus_client.Counter,
                   prometheus_client.Gauge)
        self.api = H("ironic_api_request_duration_seconds",
                     "API requests, per method, route template and status.",
                     ["method", "route", "status"], buckets=FAST,
                     registry=reg)
        self.rpc = H("ironic_rpc_duration_seconds",
                     "Conductor RPC methods as the conductor ran them.",
                     ["method"], buckets=FAST, registry=reg)
        self.rpc_errors = C("ironic_rpc_errors",
                            "Conductor RPC methods that raised, per error.",
                            ["method", "error"], registry=reg)
        self.steps = H("ironic_step_duration_seconds",
                       "Deploy, clean, service and verify steps as the "
                       "conductor ran them.",
                       ["kind", "interface", "step", "outcome"],
                       buckets=SLOW, registry=reg)
        self.locks = H("ironic_node_lock_held_seconds",
                       "How long exclusive node locks were held, per "
                       "purpose.", ["purpose"], buckets=SLOW, registry=reg)
        self.bmc = H("ironic_bmc_call_duration_seconds",
                     "Calls of driver interfaces that talk to a BMC.",
                     ["interface", "call"], buckets=FAST, registry=reg)
        self.bmc_errors = C("ironic_bmc_call_errors",
                            "Calls of driver interfaces that raised.",
                            ["interface", "call", "error"], registry=reg)
        self.power_sync = H("ironic_power_sync_cycle_seconds",
                            "Power state sync cycles over a conductor's "
                            "nodes.", buckets=SLOW, registry=reg)
        self.power_sync_nodes = G("ironic_power_sync_nodes",
                                  "Nodes the last power state sync cycle "
                                  "asked.", multiprocess_mode="mostrecent",
                                  registry=reg)

    def exposition(self) -> bytes:
        return prometheus_client.generate_latest(self.exposed)


class Listener:
    """``GET /metrics`` on its own port, served by prometheus_client."""

    def __init__(self, series: Series, host: str, port: int):
        self.server, self.thread = prometheus_client.start_http_server(
            port, addr=host, registry=series.exposed)
        self.port = self.server.server_address[1]
        LOG.info("Prometheus metrics on http://%s:%d/metrics", host,
                 self.port)
