"""The conductor service: registration, heartbeat, RPC server, periodics.

Start: load the drivers (refusing to start on a broken plugin), break its
own stale locks, serve RPC, register in the conductors table, recover
orphaned nodes. Stop (SIGTERM): leave the hash ring at once (the API sends
new requests for its nodes to their next owner), stop taking RPC calls once
every cached ring forgot it (``hash_ring_reset_interval``), let running
workers finish for up to ``[conductor]graceful_shutdown_timeout``
seconds - still heartbeating, so that no peer takes it for dead and breaks
the locks they hold - then release its locks and unregister.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable

from ironic.common import hash_ring, rpc
from ironic.conductor import (
    allocations,
    consoles,
    manager,
    periodics,
    takeover,
    task_manager,
    workers,
)
from ironic.conf import CONF
from ironic.objects.conductor import Conductor

LOG = logging.getLogger(__name__)


class ConductorService:
    def __init__(self, host: str | None = None):
        self.host = host or CONF.host
        self.pool = workers.WorkerPool(CONF.conductor.workers_pool_size)
        self.manager = manager.ConductorManager(self.host, self.pool)
        self.conductor: Conductor | None = None
        self.power_failures: dict[int, int] = {}
        # Nodes whose BMC has a power state query still unanswered.
        self.power_queries_open: set[int] = set()
        self._stop = threading.Event()
        # The heartbeat outlives the other loops: while running workers
        # drain, peers must not take this conductor for dead and break the
        # locks those workers still hold.
        self._heartbeat_stop = threading.Event()
        # Set when stopping: heartbeats then keep this conductor out of
        # the ring. The lock orders them with the write that leaves it.
        self._leaving = False
        self._beat_lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._rpc_server: Any = None

    @property
    def stopping(self) -> threading.Event:
        """Set once the service is stopping: long loops end early."""
        return self._stop

    @property
    def conductor_id(self) -> int | None:
        return self.conductor.id if self.conductor else None

    # ------------------------------------------------------------------

    def start(self) -> None:
        from ironic.common import driver_factory
        registry = driver_factory.load()
        task_manager.SHUTDOWN.clear()
        cleared = self._dbapi().clear_node_reservations_for_conductor(
            self.host)
        if cleared:
            LOG.warning("Cleared %d node locks left by a previous run of %s",
                        cleared, self.host)
        # Listen before registering: once the ring names this conductor,
        # calls are sent to its queue, and a queue nobody declared yet
        # loses them.
        self._start_rpc()
        self.conductor = self._register(list(registry.hardware_types))
        try:
            # Records what this conductor serves and warns about peers that
            # serve the same hardware types with other interfaces (seed 003).
            driver_factory.register_hardware(self.conductor.id, self.host,
                                             registry)
            hash_ring.manager().reset()
            takeover.recover_orphans(self)
            allocations.resume_orphans(self)
        except BaseException:
            # Registered but never serving: leave the ring at once rather
            # than take calls until the heartbeat times out.
            self._abandon_start()
            raise
        # Console processes do not outlive the conductor reliably; this
        # never stops start-up (failures land on the nodes).
        try:
            consoles.restart_enabled_consoles(self)
        except Exception:  # noqa: BLE001 - logged, start-up goes on
            LOG.exception("Restarting the enabled consoles failed")
        self._spawn_loop("heartbeat", self._heartbeat,
                         lambda: CONF.conductor.heartbeat_interval,
                         self._heartbeat_stop)
        for name, func, interval in self._periodic_tasks(registry):
            self._spawn_loop(name, func, interval)
        LOG.info("Conductor %s started (group '%s', hardware types %s)",
                 self.host, CONF.conductor.conductor_group,
                 ", ".join(registry.hardware_types))

    def _abandon_start(self) -> None:
        if self._rpc_server is not None:
            self._rpc_server.stop()
        rpc.unregister_local(self.host)
        self._unregister()

    def _dbapi(self):
        from ironic.db import api as db_api
        return db_api.get_instance()

    def _register(self, hardware_types: list[str]) -> Conductor:
        from ironic.common import exception
        try:
            return Conductor.register(self.host,
                                      CONF.conductor.conductor_group,
                                      hardware_types)
        except exception.ConductorAlreadyRegistered:
            LOG.warning("Conductor %s was still registered (a previous run "
                        "did not stop cleanly); taking the registration "
                        "over", self.host)
            return Conductor.register(self.host,
                                      CONF.conductor.conductor_group,
                                      hardware_types, update_existing=True)

    def _start_rpc(self) -> None:
        if CONF.rpc_transport == "none":
            rpc.register_local(self.host, self.manager)
            return
        self._rpc_server = rpc.rpc_server(self.host, self.manager)
        self._rpc_server.start()

    def _periodic_tasks(self, registry: Any
                        ) -> list[tuple[str, Callable, Callable]]:
        cond = CONF.conductor
        tasks = [
            ("sync_power_states", lambda: periodics.sync_power_states(self),
             lambda: cond.sync_power_state_interval),
            ("recover_power_failures",
             lambda: periodics.recover_power_failures(self),
             lambda: cond.power_failure_recovery_interval),
            ("check_wait_timeouts",
             lambda: periodics.check_wait_timeouts(self),
             lambda: cond.check_provision_state_interval),
            ("takeover", self._takeover,
             lambda: min(cond.heartbeat_timeout,
                         cond.sync_local_state_interval)
             if cond.sync_local_state_interval > 0 else 0),
        ]
        for method, info in registry.periodic_tasks():
            tasks.append((getattr(method, "__qualname__", str(method)),
                          self._driver_periodic(method), info.seconds))
        return tasks

    def _driver_periodic(self, method: Callable) -> Callable:
        return lambda: method(self.manager, None)

    def _takeover(self) -> None:
        hash_ring.manager().reset()
        takeover.release_dead_locks(self)
        takeover.recover_orphans(self)
        takeover.take_over_active_nodes(self)
        consoles.stop_moved_consoles(self)
        consoles.start_taken_over_consoles(self)
        allocations.resume_orphans(self)

    # ------------------------------------------------------------------

    def _heartbeat(self) -> None:
        try:
            with self._beat_lock:
                self.conductor.touch(online=not self._leaving)
        except Exception:  # noqa: BLE001 - the DB may come back
            LOG.exception("Conductor %s failed to heartbeat", self.host)

    def _leave_ring(self) -> None:
        """Out of the ring, but alive: the peers route new work for this
        conductor's nodes to their next owner and leave its locks alone."""
        with self._beat_lock:
            self._leaving = True
            if self.conductor is None:
                return
            try:
                self.conductor.touch(online=False)
            except Exception:  # noqa: BLE001 - unregistering will retry
                LOG.exception("Conductor %s failed to leave the ring",
                              self.host)
        hash_ring.manager().reset()

    def _spawn_loop(self, name: str, func: Callable,
                    interval: Callable[[], float],
                    stop: threading.Event | None = None) -> None:
        stop = stop or self._stop

        def loop():
            while True:
                seconds = interval()
                if seconds <= 0 or stop.wait(seconds):
                    return
                started = time.monotonic()
                try:
                    func()
                except Exception:  # noqa: BLE001 - next run may succeed
                    LOG.exception("Periodic task %s failed", name)
                LOG.debug("Periodic task %s took %.3f s", name,
                          time.monotonic() - started)

        thread = threading.Thread(target=loop, name=f"periodic-{name}",
                                  daemon=True)
        thread.start()
        self._threads.append(thread)

    def stop(self, timeout: float | None = None) -> bool:
        """Drain and unregister; True when every worker finished."""
        if timeout is None:
            timeout = CONF.conductor.graceful_shutdown_timeout
        deadline = time.monotonic() + timeout
        # Out of the ring before anything observes the stop: a worker that
        # wakes on it must already see this conductor gone from the ring.
        self._leave_ring()
        self._stop.set()
        if self._rpc_server is not None:
            # Rings cached elsewhere (the API's) still name this conductor
            # until they are rebuilt; answer their calls until then rather
            # than let them wait for rpc_response_timeout.
            self._stop_rpc_later(min(CONF.hash_ring_reset_interval, timeout))
        rpc.unregister_local(self.host)
        drained = self.pool.wait_idle(max(deadline - time.monotonic(), 0))
        if not drained:
            LOG.warning("%d workers still running after %s s; stopping "
                        "them", self.pool.running, timeout)
        # Wake anything sleeping (lock retries, wait steps, fake delays).
        task_manager.SHUTDOWN.set()
        try:
            from ironic.drivers.modules import fake
            fake.interrupt_delays()
        except ImportError:
            pass
        if not drained:
            self.pool.wait_idle(5)
        self._heartbeat_stop.set()
        self._unregister()
        if self._rpc_server is not None:
            self._rpc_server.wait()
        self.pool.shutdown(wait=False)
        return drained

    def _stop_rpc_later(self, seconds: float) -> None:
        time.sleep(seconds)
        self._rpc_server.stop()

    def _unregister(self) -> None:
        try:
            self._dbapi().clear_node_reservations_for_conductor(self.host)
            if self.conductor is not None:
                self.conductor.unregister()
        except Exception:  # noqa: BLE001 - others will time us out
            LOG.exception("Conductor %s failed to unregister", self.host)
        hash_ring.manager().reset()
