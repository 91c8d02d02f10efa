"""The service's metrics: statsd timers and Prometheus series.

Other layers only call the thin hooks below, which cost one flag test when
metrics are off:

* ``@rpc_endpoint`` on the conductor's RPC manager class times every RPC
  method (statsd ``ironic.conductor.manager.ConductorManager.<method>``);
* ``@bmc_call`` on a driver interface method that talks to a BMC times it
  and counts its errors (statsd ``<module>.<Class.method>``, as Ironic's
  ``ironic.drivers.modules.ipmitool.IPMIPower.get_power_state``);
* ``step(...)`` times a deploy/clean/service step, ``lock_held(...)``
  records how long a node lock was held, ``power_sync_cycle(...)`` one
  power state sync pass;
* API requests are timed by the request log middleware, which hands them
  to ``ironic.metrics.api``.

``setup(conf)`` (called by ``ironic.service.prepare_service``)
chooses the sinks: statsd with ``[metrics]backend = statsd``, Prometheus
series with ``[metrics]prometheus_port``; ``start_listener()`` serves them.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import logging
import os
import shutil
import tempfile
import time
from typing import Any, Callable, Iterator

from ironic.metrics.statsd import StatsdSender

LOG = logging.getLogger(__name__)
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


class _Sinks:
    statsd: StatsdSender | None = None
    prometheus: Any = None  # ironic.metrics.prometheus.Series
    listener: Any = None
    on: bool = False


SINKS = _Sinks()


def setup(conf: Any, forked_workers: bool = False) -> None:
    """Choose the sinks from the configuration (again: replaces them).

    ``forked_workers``: this process forks workers that serve requests
    (``ironic-api`` with ``[api]api_workers`` > 1); their Prometheus series
    are then kept in files that this process's listener adds up (the
    multiprocess mode of prometheus_client, also used when the operator
    sets ``PROMETHEUS_MULTIPROC_DIR``, e.g. under mod_wsgi).
    """
    if SINKS.statsd is not None:
        SINKS.statsd.close()
    SINKS.statsd = (StatsdSender.from_conf(conf)
                    if conf.metrics.backend == "statsd" else None)
    SINKS.prometheus = None
    if conf.metrics.prometheus_port is not None:
        if forked_workers:
            _share_between_processes()
        from ironic.metrics import prometheus
        SINKS.prometheus = prometheus.Series()
    SINKS.on = SINKS.statsd is not None or SINKS.prometheus is not None


def _share_between_processes() -> None:
    # Read by prometheus_client when it is first imported, which is below.
    if os.environ.get(MULTIPROC_ENV):
        return
    path = tempfile.mkdtemp(prefix="ironic-metrics-")
    os.environ[MULTIPROC_ENV] = path
    parent = os.getpid()

    def _remove() -> None:
        if os.getpid() == parent:
            shutil.rmtree(path, ignore_errors=True)
    atexit.register(_remove)


def start_listener(conf: Any) -> None:
    """Serve the Prometheus series when a port is configured. A port that
    cannot be bound is logged, never fatal: metrics must not stop the
    service."""
    if SINKS.prometheus is None or SINKS.listener is not None:
        return
    from ironic.metrics import prometheus
    try:
        SINKS.listener = prometheus.Listener(
            SINKS.prometheus, conf.metrics.prometheus_host,
            conf.metrics.prometheus_port)
    except OSError as e:
        LOG.error("Cannot serve Prometheus metrics on %s:%s: %s; give "
                  "each process on this host its own "
                  "[metrics]prometheus_port", conf.metrics.prometheus_host,
                  conf.metrics.prometheus_port, e)


def rpc_endpoint(cls: type) -> type:
    """Time every public method of an RPC endpoint class."""
    prefix = f"{cls.__module__}.{cls.__qualname__}"
    for name, func in list(vars(cls).items()):
        if not name.startswith("_") and callable(func):
            setattr(cls, name, _timed_rpc(func, name, f"{prefix}.{name}"))
    return cls


def _timed_rpc(func: Callable, method: str, statsd_name: str) -> Callable:
    @functools.wraps(func)
    def timed(*args: Any, **kwargs: Any) -> Any:
        if not SINKS.on:
            return func(*args, **kwargs)
        started = time.perf_counter()
        try:
            return func(*args, **kwargs)
        except Exception as e:
            if SINKS.prometheus is not None:
                SINKS.prometheus.rpc_errors.labels(
                    method, type(e).__name__).inc()
            raise
        finally:
            _record_rpc(method, statsd_name, time.perf_counter() - started)
    return timed


def _record_rpc(method: str, statsd_name: str, seconds: float) -> None:
    if SINKS.statsd is not None:
        SINKS.statsd.timer(statsd_name, seconds)
    if SINKS.prometheus is not None:
        SINKS.prometheus.rpc.labels(method).observe(seconds)


def bmc_call(func: Callable) -> Callable:
    """Time a driver interface method that talks to a BMC."""
    call = func.__qualname__
    statsd_name = f"{func.__module__}.{call}"

    @functools.wraps(func)
    def timed(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not SINKS.on:
            return func(self, *args, **kwargs)
        started = time.perf_counter()
        try:
            return func(self, *args, **kwargs)
        except Exception as e:
            if SINKS.prometheus is not None:
                SINKS.prometheus.bmc_errors.labels(
                    self.interface_type, call, type(e).__name__).inc()
            raise
        finally:
            seconds = time.perf_counter() - started
            if SINKS.statsd is not None:
                SINKS.statsd.timer(statsd_name, seconds)
            if SINKS.prometheus is not None:
                SINKS.prometheus.bmc.labels(self.interface_type,
                                            call).observe(seconds)
    return timed


# node -> (kind, interface, step, start) of a step handed to the agent.
_HANDED_OVER: dict[str, tuple[str, str | None, str | None, float]] = {}


@contextlib.contextmanager
def step(kind: str, interface: str, name: str,
         node: str | None = None) -> Iterator[dict]:
    """Time one step; the caller may set ``outcome`` in the yielded dict
    (``done``, ``wait``, ``hold``). A step that ends with ``wait`` handed
    over to the agent: its whole duration is recorded by
    ``step_resumed`` when the agent reports it done."""
    if not SINKS.on:
        yield {}
        return
    result = {"outcome": "done"}
    started = time.perf_counter()
    try:
        yield result
    except Exception:
        result["outcome"] = "failed"
        raise
    finally:
        _record_step(kind, interface, name, result["outcome"],
                     time.perf_counter() - started)
        if result["outcome"] == "wait" and node is not None:
            _HANDED_OVER[node] = (kind, interface, name, started)


def step_resumed(node: str, kind: str, interface: str | None,
                 name: str | None) -> None:
    """The agent finished the step ``node`` was waiting on: its duration
    from start to now is recorded with the outcome ``async``."""
    handed = _HANDED_OVER.pop(node, None)
    if not SINKS.on or handed is None or handed[:3] != (kind, interface,
                                                        name):
        return
    _record_step(kind, interface, name, "async",
                 time.perf_counter() - handed[3])


def step_abandoned(node: str) -> None:
    """The node's operation failed or stopped while a step was out."""
    _HANDED_OVER.pop(node, None)


def _record_step(kind: str, interface: str | None, name: str | None,
                 outcome: str,
                 seconds: float) -> None:
    if SINKS.statsd is not None and outcome != "wait":
        SINKS.statsd.timer(f"ironic.conductor.steps.{kind}.{interface}."
                           f"{name}", seconds)
    if SINKS.prometheus is not None:
        SINKS.prometheus.steps.labels(kind, interface, name,
                                      outcome).observe(seconds)


def lock_held(purpose: str, seconds: float) -> None:
    """An exclusive node lock taken for ``purpose`` was held ``seconds``."""
    if SINKS.prometheus is not None:
        SINKS.prometheus.locks.labels(purpose).observe(seconds)


def power_sync_cycle(seconds: float, nodes: int) -> None:
    """One power state sync pass over ``nodes`` nodes took ``seconds``."""
    if SINKS.statsd is not None:
        name = "ironic.conductor.manager.ConductorManager"
        SINKS.statsd.timer(f"{name}._sync_power_states", seconds)
        SINKS.statsd.gauge(f"{name}.PowerSyncNodesCount", nodes)
    if SINKS.prometheus is not None:
        SINKS.prometheus.power_sync.observe(seconds)
        SINKS.prometheus.power_sync_nodes.set(nodes)
