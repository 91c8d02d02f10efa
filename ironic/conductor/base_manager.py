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
import os
import threading
import time
from typing import Any, Callable

from ironic import driver_registry, hash_ring
from ironic.common import exception, outages, rpc
from ironic.conductor import (
    allocations,
    consoles,
    dependencies,
    leader_jobs,
    lock_book,
    manager,
    periodics,
    takeover,
    throttle,
    workers,
)
from ironic.conductor.stopping import SHUTDOWN
from ironic.conf import CONF
from ironic.coordination import party
from ironic.drivers.modules import agent_logs
from ironic.objects import node_lock
from ironic.objects.conductor import Conductor

LOG = logging.getLogger(__name__)


class ConductorService:
    def __init__(self, host: str | None = None,
                 on_give_up: Callable[[], None] | None = None):
        """``on_give_up``: called once when a dependency's retries ran
        out (``gave_up`` then says which); ``ironic-conductor`` wakes up
        and exits."""
        self.host = host or CONF.host
        self._on_give_up = on_give_up
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
        # When a heartbeat first landed after failing ones (monotonic).
        self._beating_again_at: float | None = None
        self._heartbeat_failing = False
        self._threads: list[threading.Thread] = []
        self._rpc_server: Any = None
        self.gave_up: dependencies.GaveUp | None = None
        self.party = party.Party(leader_jobs.GROUP, self.host,
                                 leader_jobs.jobs(self),
                                 on_fatal=self._coordination_lost)
        # Set with the one line to log when the coordination backend is
        # gone for good; the command then exits non-zero.
        self.fatal: str | None = None
        self._wake_command: threading.Event | None = None

    @property
    def stopping(self) -> threading.Event:
        """Set once the service is stopping: long loops end early."""
        return self._stop

    @property
    def conductor_id(self) -> int | None:
        return self.conductor.id if self.conductor else None

    # ------------------------------------------------------------------

    def start(self, stop: threading.Event | None = None) -> None:
        """``stop`` (the command's SIGTERM flag) interrupts the waits for
        the coordination backend, and is set when that backend is lost
        for good (``fatal`` then says why)."""
        agent_logs.check_config()
        registry = driver_registry.load()
        self._wake_command = stop or threading.Event()
        # In the party before anything else: a conductor that cannot
        # reach the backend must not take nodes (coordination.GiveUp).
        self.party.start(self._wake_command)
        SHUTDOWN.clear()
        throttle.STOPPING.clear()
        try:
            self._start_serving(registry)
        except BaseException:
            # In the party (perhaps leading) but never serving: leave the
            # party and the ring at once rather than lead or take calls
            # until timeouts notice.
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
        dependencies.Watch(dependencies.for_conductor(),
                           lambda: CONF.conductor.heartbeat_interval,
                           self._stop, self._give_up).start()
        LOG.info("Conductor %s started (group '%s', hardware types %s)",
                 self.host, CONF.conductor.conductor_group,
                 ", ".join(registry.hardware_types))

    def _start_serving(self, registry: Any) -> None:
        """Register and take this conductor's share of the nodes."""
        cleared = node_lock.clear_for_conductor(self.host)
        if cleared:
            LOG.warning("Cleared %d node locks left by a previous run of %s",
                        cleared, self.host)
        # Listen before registering: once the ring names this conductor,
        # calls are sent to its queue, and a queue nobody declared yet
        # loses them.
        self._start_rpc()
        self.conductor = self._register(list(registry.hardware_types))
        # Records what this conductor serves and warns about peers that
        # serve the same hardware types with other interfaces (seed 003).
        driver_registry.register_hardware(self.conductor.id, self.host,
                                         registry)
        hash_ring.manager().reset()
        lock_book.release_stray_locks(self.host)
        takeover.recover_orphans(self)
        allocations.resume_orphans(self)

    def _abandon_start(self) -> None:
        self.party.leave()
        if self._rpc_server is not None:
            self._rpc_server.stop()
        rpc.unregister_local(self.host)
        self._unregister()

    def _register(self, hardware_types: list[str]) -> Conductor:
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
        # The dead conductors' locks are broken by the party's leader
        # (leader_jobs); here each conductor resumes what it now owns,
        # after giving back locks of its own that no task holds (their
        # answer lost in a database outage: nobody else would ever).
        hash_ring.manager().reset()
        lock_book.release_stray_locks(self.host)
        takeover.recover_orphans(self)
        takeover.take_over_active_nodes(self)
        consoles.stop_moved_consoles(self)
        consoles.start_taken_over_consoles(self)
        allocations.resume_orphans(self)

    # ------------------------------------------------------------------

    def _give_up(self, gave_up: dependencies.GaveUp) -> None:
        if self.gave_up is None:
            self.gave_up = gave_up
            LOG.error("%s", gave_up.line(self.host))
            if self._on_give_up is not None:
                self._on_give_up()

    def _coordination_lost(self, line: str) -> None:
        LOG.error("Conductor %s stops: %s; exiting with status %d so that "
                  "the supervisor restarts it", self.host, line,
                  dependencies.EXIT_GAVE_UP)
        self.fatal = line
        if self._wake_command is not None:
            self._wake_command.set()

    def _heartbeat(self) -> None:
        conductor = self.conductor
        if conductor is None:
            return  # the loop starts once registered: never the case
        try:
            with self._beat_lock:
                conductor.touch(online=not self._leaving)
            if self._heartbeat_failing:
                self._heartbeat_failing = False
                self._beating_again_at = time.monotonic()
        except Exception as e:  # noqa: BLE001 - the DB may come back
            self._heartbeat_failing = True
            if outages.dependency_outage(e):
                # The dependency watch reports the outage and its end.
                LOG.warning("Conductor %s failed to heartbeat: %s",
                            self.host, type(e).__name__)
            else:
                LOG.exception("Conductor %s failed to heartbeat", self.host)

    def peers_heartbeats_trustworthy(self) -> bool:
        """False while the peers' heartbeats may be old only because the
        database was away for everyone: from a failed heartbeat of this
        conductor until ``[conductor]heartbeat_timeout`` after the next
        one that landed. Breaking the locks of peers that are alive would
        let two workers run the same node."""
        if self._heartbeat_failing:
            return False
        back = self._beating_again_at
        return back is None or (time.monotonic() - back
                                >= CONF.conductor.heartbeat_timeout)

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
                except Exception as e:  # noqa: BLE001 - next run may succeed
                    what = outages.dependency_outage(e)
                    if what:
                        LOG.warning("Periodic task %s skipped: the %s is "
                                    "unavailable", name, what)
                    else:
                        LOG.exception("Periodic task %s failed", name)
                LOG.debug("Periodic task %s took %.3f s", name,
                          time.monotonic() - started)

        thread = threading.Thread(target=loop, name=f"periodic-{name}",
                                  daemon=True)
        thread.start()
        self._threads.append(thread)

    def abandon(self) -> None:
        """Stop without the database (its retries ran out): take no more
        calls, interrupt the workers and write nothing. Locks still held
        are left to the takeover path: peers break them once this
        conductor's heartbeat is older than heartbeat_timeout, and its own
        next start clears them; the nodes they guard are resumed as
        orphans."""
        self._stop.set()
        self._heartbeat_stop.set()
        SHUTDOWN.set()
        if self._rpc_server is not None:
            try:
                self._rpc_server.stop()
            except Exception:  # noqa: BLE001 - exiting anyway
                LOG.debug("Stopping the RPC server failed", exc_info=True)
        rpc.unregister_local(self.host)

    def stop(self, timeout: float | None = None,
             bus: bool = True) -> bool:
        """Drain and unregister; True when every worker finished.

        ``bus=False``: the message bus is gone; the RPC server is left
        alone rather than waited for."""
        if timeout is None:
            timeout = CONF.conductor.graceful_shutdown_timeout
        deadline = time.monotonic() + timeout
        # Out of the party first: the others elect a new leader at once.
        self.party.leave()
        throttle.STOPPING.set()
        # Out of the ring before anything observes the stop: a worker that
        # wakes on it must already see this conductor gone from the ring.
        self._leave_ring()
        self._stop.set()
        if not bus:
            self._rpc_server = None
        if self._rpc_server is not None:
            # Rings cached elsewhere (the API's) still name this conductor
            # until they are rebuilt; answer their calls until then rather
            # than let them wait for rpc_response_timeout.
            linger = min(CONF.hash_ring_reset_interval, timeout)
            LOG.info("Conductor %s left the hash ring; answering RPC for "
                     "%d s more ([DEFAULT]hash_ring_reset_interval), until "
                     "the APIs' cached rings no longer name it", self.host,
                     linger)
            self._stop_rpc_later(linger)
        rpc.unregister_local(self.host)
        remaining = max(deadline - time.monotonic(), 0)
        if self.pool.running:
            LOG.info("Conductor %s waiting up to %d s "
                     "([conductor]graceful_shutdown_timeout) for %d running "
                     "workers", self.host, remaining, self.pool.running)
        drained = self.pool.wait_idle(remaining)
        if not drained:
            LOG.warning("%d workers still running after %s s; stopping "
                        "them", self.pool.running, timeout)
        # Wake anything sleeping (lock retries, wait steps, fake delays).
        SHUTDOWN.set()
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
            node_lock.clear_for_conductor(self.host)
            if self.conductor is not None:
                self.conductor.unregister()
        except Exception:  # noqa: BLE001 - others will time us out
            LOG.exception("Conductor %s failed to unregister", self.host)
        hash_ring.manager().reset()


def exit_if_workers_stuck(service: ConductorService, code: int = 0) -> None:
    """End the process now when workers outlived ``stop()``.

    futurist joins its threads when the interpreter exits; a call stuck on
    a BMC would keep the stopped service alive for as long as it hangs.
    Its node's lock is released by the next conductor's takeover, as after
    a crash.
    """
    stuck = service.pool.running
    if not stuck:
        return
    LOG.warning("Exiting with %d conductor workers still running", stuck)
    logging.shutdown()
    os._exit(code)


def exit_if_threads_linger(code: int = 0, grace: float = 10.0) -> None:
    """End the process when threads other than daemons outlive a stop
    that drained everything by ``grace`` seconds.

    The interpreter joins every such thread before it exits; one left
    blocked by a library (a connection's I/O, an executor's queue) would
    keep a stopped conductor alive, out of the ring and unregistered,
    until its supervisor kills it. Their names are logged.
    """
    deadline = time.monotonic() + grace
    for thread in threading.enumerate():
        if thread is threading.current_thread() or thread.daemon:
            continue
        thread.join(max(0.0, deadline - time.monotonic()))
    lingering = [t.name for t in threading.enumerate()
                 if t is not threading.current_thread() and not t.daemon
                 and t.is_alive()]
    if not lingering:
        return
    LOG.warning("Exiting with threads still running %s s after the stop: "
                "%s", grace, ", ".join(sorted(lingering)))
    logging.shutdown()
    os._exit(code)
