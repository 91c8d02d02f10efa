"""Tasks: a node, its lock, its driver, and the state machine, together.

    with task_manager.acquire(ctx, node_id, purpose="node deployment") as task:
        task.process_event("deploy", callback=deployments.do_deploy,
                           call_args=(task,))

An exclusive task holds the node's ``reservation`` (taken with one
compare-and-swap UPDATE, retried a bounded number of times before
NodeLocked - 409 at the API); a shared task writes nothing and may be
upgraded. Every write of a locked node is conditional on the lock still
being ours, so a conductor whose lease a survivor broke cannot overwrite
the new holder. ``process_event`` moves the node through the provision state
machine and writes the new state, its target, ``provision_updated_at`` and
``last_error`` in one UPDATE; its callback runs in the worker pool, which
then owns the lock until the callback returns.
"""

from __future__ import annotations

import datetime
import logging
import threading
import time
from typing import TYPE_CHECKING, Any, Callable

from automaton import exceptions as fsm_exc

from ironic import driver_registry
from ironic.common import agent_token, exception, outages, states, utils
from ironic.conductor import (
    driver_api,
    fast_track,
    pxe_filter_notice,
    workers,
)
from ironic.conductor import utils as cond_utils
from ironic.conductor.lock_book import LOCKS
from ironic.conductor.stopping import SHUTDOWN
from ironic.conf import CONF
from ironic.metrics import lock_held
from ironic.objects import node_lock
from ironic.objects.node import Node
from ironic.objects.port import Port
from ironic.task import Task

LOG = logging.getLogger(__name__)

_KEEP = object()
# Events that mean something went wrong (or was stopped): each is recorded
# in the node's history.
_FAILURE_EVENTS = frozenset({"fail", "error", "abort"})

_DEFAULT_POOL: workers.WorkerPool | None = None
_POOL_LOCK = threading.Lock()


def default_pool() -> workers.WorkerPool:
    """The process's worker pool ([conductor]workers_pool_size)."""
    global _DEFAULT_POOL
    with _POOL_LOCK:
        if _DEFAULT_POOL is None:
            _DEFAULT_POOL = workers.WorkerPool(
                CONF.conductor.workers_pool_size)
        return _DEFAULT_POOL


def set_default_pool(pool: workers.WorkerPool | None) -> None:
    global _DEFAULT_POOL
    with _POOL_LOCK:
        _DEFAULT_POOL = pool


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def acquire(context: Any, node_id: int | str, **kwargs: Any) -> TaskManager:
    """A task on the node (by id, UUID or name); use it as a context."""
    return TaskManager(context, node_id, **kwargs)


_PENDING_RELEASES: set[threading.Thread] = set()


def _release_when_database_answers(host: str, node_id: int,
                                   uuid: str) -> None:
    """Give a lock back, in the background if the database is away.

    The caller (an RPC handler the API waits for, a worker) goes on at
    once; a thread retries the release ``[database]max_retries`` times
    ``retry_interval`` seconds apart (-1: until it answers), interrupted
    by the conductor stopping. While it retries, the lock book keeps this
    process's tasks and its stray sweep off the node (see ``lock_book``).
    A lock still held when it gives up is left to the stray sweep and the
    takeover path: the conductor gives up on the same bound and exits, its
    peers break its locks once its heartbeat is older than
    ``[conductor]heartbeat_timeout``, and its next start clears them.
    """
    try:
        node_lock.release(host, node_id)
        return
    except Exception as e:
        if outages.dependency_outage(e) != outages.DATABASE:
            raise

    def retry() -> None:
        attempt = 0
        try:
            while True:
                attempt += 1
                limit = CONF.database.max_retries
                if (0 <= limit < attempt) or SHUTDOWN.wait(
                        CONF.database.retry_interval):
                    LOG.warning("Lock of node %s left to the takeover: the "
                                "database did not answer", node_id)
                    return
                try:
                    node_lock.release(host, node_id)
                    LOG.info("Lock of node %s released after a database "
                             "outage", node_id)
                    return
                except (exception.NodeLocked, exception.NodeNotLocked,
                        exception.NodeNotFound):
                    return
                except Exception as e:  # noqa: BLE001 - retried or logged
                    if outages.dependency_outage(e) != outages.DATABASE:
                        LOG.exception("Releasing the lock of node %s "
                                      "failed", node_id)
                        return
        finally:
            LOCKS.released_late(host, node_id, uuid)
            _PENDING_RELEASES.discard(threading.current_thread())

    thread = threading.Thread(target=retry, name=f"release-{node_id}",
                              daemon=True)
    LOCKS.releasing_late(host, node_id, uuid)
    _PENDING_RELEASES.add(thread)
    try:
        thread.start()
    except BaseException:
        LOCKS.released_late(host, node_id, uuid)
        _PENDING_RELEASES.discard(thread)
        raise


def wait_pending_releases(timeout: float) -> bool:
    """Wait for the locks being released after an outage; True when none
    is left."""
    deadline = time.monotonic() + timeout
    for thread in list(_PENDING_RELEASES):
        thread.join(max(0.0, deadline - time.monotonic()))
    return not _PENDING_RELEASES


class TaskManager:
    def __init__(self, context: Any, node_id: int | str, *,
                 shared: bool = False, purpose: str = "unspecified action",
                 host: str | None = None, retry: bool = True,
                 pool: workers.WorkerPool | None = None) -> None:
        self.context = context
        self.shared = shared
        self.purpose = purpose
        self.host = host or CONF.host
        self._pool = pool
        self._driver = None
        self._ports: list | None = None
        self._spawn: tuple | None = None
        self._locked_at: float | None = None
        self._conductor: driver_api.TaskConductor | None = None
        self.node: Node = Node.get(node_id) if shared else \
            self._reserve(node_id, retry)

    # ------------------------------------------------------------------
    # the lock

    def _reserve(self, node_id: int | str, retry: bool) -> Node:
        if not isinstance(node_id, int) and not utils.is_uuid_like(node_id):
            node_id = Node.get(node_id).id
        elif isinstance(node_id, str):
            # The lock is taken by UUID directly: one query less per call.
            node_id = utils.normalize_uuid(node_id)
        attempts = 1 + (CONF.conductor.node_locked_retry_attempts
                        if retry else 0)
        started = time.monotonic()
        for attempt in range(attempts):
            try:
                node = self._reserve_once(node_id)
                break
            except exception.NodeLocked:
                if attempt + 1 >= attempts or SHUTDOWN.wait(
                        CONF.conductor.node_locked_retry_interval):
                    raise
        self._locked_at = time.monotonic()
        self._guard_saves(node)
        LOG.debug("Node %s locked by %s for %s (took %.3f s)", node.uuid,
                  self.host, self.purpose, self._locked_at - started)
        return node

    def _reserve_once(self, node_id: int | str) -> Node:
        token = LOCKS.taking(self.host, node_id)
        node = None
        try:
            node = node_lock.reserve(self.host, node_id)
            return node
        finally:
            LOCKS.taken(token, None if node is None else node.id)

    def _guard_saves(self, node: Node) -> None:
        """Route ``node.save()`` through the lock-conditional write."""
        object.__setattr__(node, "save", self._save_locked)

    def _save_locked(self) -> None:
        node_lock.save_locked(self.node, self.host)

    def save_with_allocation(self, alloc_id: int, alloc_values: dict
                             ) -> None:
        """Write the node's changes, while this task holds the lock, and
        ``alloc_values`` to allocation ``alloc_id``, in one transaction."""
        node_lock.save_locked_with_allocation(self.node, self.host,
                                              alloc_id, alloc_values)

    def upgrade_lock(self, purpose: str | None = None) -> None:
        """Turn a shared task into an exclusive one (re-reading the node)."""
        if not self.shared:
            return
        self.purpose = purpose or self.purpose
        self.node = self._reserve(self.node.id, retry=True)
        self._ports = None
        self.shared = False

    def save_and_release(self) -> None:
        """Write the node's changes and give the lock back in one UPDATE
        (the task's block must end right after)."""
        node = self.node
        node_lock.save_locked(node, self.host, and_release=True)
        held = time.monotonic() - (self._locked_at or time.monotonic())
        LOG.debug("Node %s saved and released by %s after %s (held %.3f s)",
                  node.uuid, self.host, self.purpose, held)
        lock_held(self.purpose, held)
        self._locked_at = None
        LOCKS.released(self.host, node.id)

    def finish(self) -> None:
        """Save what is left unsaved and release, in one UPDATE, unless
        the task was handed on (``spawn_after``) or holds no lock; the
        end of the block then has nothing left to do."""
        if self.shared or self._locked_at is None or \
                self._spawn is not None:
            return
        if self.node.what_changed():
            self.save_and_release()
        else:
            self.release_resources()

    def lock_gone_with_node(self) -> None:
        """The node was deleted while locked: nothing is left to release."""
        if self._locked_at is not None:
            LOG.debug("Node %s deleted by %s (held %.3f s)", self.node.uuid,
                      self.host, time.monotonic() - self._locked_at)
            LOCKS.released(self.host, self.node.id)
        self._locked_at = None

    def release_resources(self) -> None:
        if self.shared or self._locked_at is None:
            return
        held = time.monotonic() - self._locked_at
        self._locked_at = None
        try:
            _release_when_database_answers(self.host, self.node.id,
                                           self.node.uuid)
        except (exception.NodeLocked, exception.NodeNotLocked,
                exception.NodeNotFound) as e:
            LOG.warning("Lock of node %s for %s was lost while held: %s",
                        self.node.uuid, self.purpose, e)
            return
        finally:
            # Only now: the stray sweep must not release it first.
            LOCKS.released(self.host, self.node.id)
        LOG.debug("Node %s released by %s after %s (held %.3f s)",
                  self.node.uuid, self.host, self.purpose, held)
        lock_held(self.purpose, held)

    # ------------------------------------------------------------------
    # what a task gives its callers

    @property
    def driver(self) -> Any:
        if self._driver is None:
            driver_registry.build_driver_for_task(self)
        return self._driver

    @driver.setter
    def driver(self, value: Any) -> None:
        self._driver = value

    @property
    def ports(self) -> list:
        if self._ports is None:
            # The rows as stored (drivers read their columns).
            self._ports = Port.list_rows([("node_id", self.node.id)])
        return self._ports

    @property
    def pool(self) -> workers.WorkerPool:
        return self._pool or default_pool()

    @property
    def conductor(self) -> driver_api.TaskConductor:
        """What the node's driver may ask of the conductor."""
        if self._conductor is None:
            self._conductor = driver_api.TaskConductor(self, acquire)
        return self._conductor

    # ------------------------------------------------------------------
    # the state machine

    def _new_target(self, event: str, new: str, target: Any) -> str | None:
        if target is not _KEEP:
            return states.target_for(new, target)
        current = self.node.target_provision_state
        continuing = event in states.INTERNAL_EVENTS or event in (
            "unhold", "abort")
        if (new not in states.STABLE_STATES and current is not None
                and continuing and event != "done"):
            return current
        return states.target_for(new)

    def process_event(self, event: str, *, callback: Callable | None = None,
                      call_args: tuple = (), call_kwargs: dict | None = None,
                      err_handler: Callable | None = None,
                      target_state: Any = _KEEP,
                      last_error: Any = _KEEP) -> None:
        """Move the node on ``event``; run ``callback`` in a worker after.

        The worker slot is taken before anything is written, so a full pool
        leaves the node untouched. ``err_handler(task, exc)`` runs if the
        callback cannot be started.
        """
        if self.shared:
            raise exception.IronicException(
                "A shared lock can not change the provision state.")
        slot = self.pool.reserve() if callback else None
        try:
            self._move(event, target_state, last_error)
        except Exception:
            if slot:
                slot.release()
            raise
        if callback:
            self._spawn = (slot, callback, call_args, call_kwargs or {},
                           err_handler)

    def check_event(self, event: str, action: str | None = None) -> str:
        """The state ``event`` would lead to; InvalidStateRequested (400,
        naming the current state) when it is not allowed now."""
        current = self.node.provision_state
        try:
            return states.next_state(current, event)
        except (fsm_exc.NotFound, fsm_exc.InvalidState) as e:
            raise exception.InvalidStateRequested(
                action=action or event, node=self.node.uuid,
                state=current) from e

    def _move(self, event: str, target_state: Any, last_error: Any) -> None:
        node = self.node
        current = node.provision_state
        new = self.check_event(event)
        # History tells where the node was when it failed, and how long.
        left = (current, node.target_provision_state,
                node.provision_updated_at)
        node.provision_state = new
        node.target_provision_state = self._new_target(event, new,
                                                       target_state)
        node.provision_updated_at = utcnow()
        if last_error is not _KEEP:
            node.last_error = last_error
        elif event not in states.INTERNAL_EVENTS:
            node.last_error = None
        if new in states.STABLE_STATES:
            # At rest: no ramdisk agent is expected any more, unless fast
            # track keeps the running one for the next operation.
            if not (fast_track.keeps_agent(node)
                    and node.power_state == states.POWER_ON):
                agent_token.wipe(node)
        node.save()
        LOG.info("Node %s moved from %s to %s on %s", node.uuid, current,
                 new, event)
        pxe_filter_notice.state_changed(self, current, new)
        if event in _FAILURE_EVENTS or new in states.FAILURE_STATES:
            self._record_failure(current, new, event, left)

    def _record_failure(self, current: str, new: str, event: str,
                        left: tuple | None = None) -> None:
        """One history entry per failure or abort, typed by the flow that
        failed (a failed verify goes back to enroll, not a failed state,
        and is recorded all the same)."""
        cond_utils.record_history(
            self, self.node.last_error or f"{current} -> {new} on {event}",
            event_type=cond_utils.event_type_for(current),
            severity="INFO" if new == states.ACTIVE else "ERROR",
            snapshot=left)

    def spawn_after(self, callback: Callable, *args: Any,
                    **kwargs: Any) -> None:
        """Run ``callback(*args, **kwargs)`` in a worker once the task's
        block ends, handing the lock over to it."""
        slot = self.pool.reserve()
        self._spawn = (slot, callback, args, kwargs, None)

    # ------------------------------------------------------------------
    # the context

    def __enter__(self) -> TaskManager:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        spawn, self._spawn = self._spawn, None
        if spawn is None or exc_type is not None:
            if spawn:
                spawn[0].release()
            self.release_resources()
            return
        slot, callback, args, kwargs, err_handler = spawn
        try:
            self.pool.run(slot, self._run_callback, callback, args, kwargs)
        except Exception as e:
            slot.release()
            if err_handler:
                err_handler(self, e)
            self.release_resources()
            raise

    def _run_callback(self, callback: Callable, args: tuple,
                      kwargs: dict) -> Any:
        try:
            result = callback(*args, **kwargs)
            # The callback may hand the task on in its turn (a heartbeat
            # processed in a worker that resumes cleaning, say): this
            # worker, which holds the lock, runs what it handed on.
            while self._spawn is not None:
                slot, callback, args, kwargs, _ = self._spawn
                self._spawn = None
                slot.release()
                result = callback(*args, **kwargs)
            return result
        finally:
            if self._spawn is not None:
                self._spawn[0].release()
                self._spawn = None
            self.release_resources()


if TYPE_CHECKING:
    # The type check proves that a TaskManager is what the Task protocol
    # describes, so drivers typed against the protocol get one.
    def _is_a_task(task: TaskManager) -> Task:
        return task
