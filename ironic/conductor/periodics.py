"""The conductor's periodic work, run on the nodes this conductor owns.

* power state sync: what the BMC says against what the database says;
* wait timeouts: nodes waiting longer than their callback timeout fail;
* dead conductors: their locks are broken and their nodes taken over
  (``takeover``).

Nodes are selected with one query of the needed columns and filtered by the
hash ring in memory; a node is locked only when something must change.
"""

from __future__ import annotations

import collections
import datetime
import logging
import threading
import time
from concurrent import futures
from typing import Any, Callable, Iterable, Iterator

from ironic import hash_ring, metrics
from ironic.common import exception, faults, states
from ironic.conductor import power, power_failures, power_sync, task_manager, waits
from ironic.conf import CONF
from ironic.objects import node as node_obj
from ironic.objects.node import Node
from ironic.task import Task

LOG = logging.getLogger(__name__)

# wait state -> (timeout option, what timed out)
WAIT_TIMEOUTS = {
    states.DEPLOYWAIT: ("deploy_callback_timeout", "deploy"),
    states.CLEANWAIT: ("clean_callback_timeout", "cleaning"),
    states.INSPECTWAIT: ("inspect_wait_timeout", "inspection"),
    states.RESCUEWAIT: ("rescue_callback_timeout", "rescue"),
    states.SERVICEWAIT: ("service_callback_timeout", "servicing"),
}


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def owned(host: str, rows: Iterable[Any]) -> list[Any]:
    """The rows (dicts with uuid, driver, conductor_group) ``host`` owns."""
    ring = hash_ring.manager()
    out = []
    for row in rows:
        try:
            hosts = ring.hosts_for(row)
        except exception.NoValidHost:
            continue
        if hosts and hosts[0] == host:
            out.append(row)
    return out


def _rows(criteria: list[tuple[str, Any]],
          columns: list[str] | None = None) -> list:
    """Every node meeting the criteria (see ``node_obj.list_rows``), as
    dicts of the columns the hash ring needs and ``columns``."""
    cols = ["id", "uuid", "driver", "conductor_group"] + (columns or [])
    return node_obj.list_rows(criteria, columns=cols)


# ---------------------------------------------------------------------------
# wait timeouts

def check_wait_timeouts(svc: Any) -> int:
    """Fail nodes that waited too long and undo what they were doing (the
    same clean-up as an abort), at most ``[conductor]periodic_max_workers``
    nodes at a time; returns how many timed out."""
    due = []
    for state, (option, what) in WAIT_TIMEOUTS.items():
        timeout = getattr(CONF.conductor, option)
        if not timeout:
            continue
        limit = _now() - datetime.timedelta(seconds=timeout)
        rows = _rows([("provision_state", state), ("reservation", None),
                      ("provision_updated_before", limit)])
        due += [(row, state, what, timeout)
                for row in owned(svc.host, rows)]
    return sum(bounded(lambda item: _time_out(svc, *item), due))


def bounded(func: Callable[[Any], int], items: list) -> list[int]:
    """``func`` over ``items``, at most ``periodic_max_workers`` at once
    (each may talk to hardware while it holds a node's lock)."""
    if len(items) <= 1:
        return [func(item) for item in items]
    workers = min(CONF.conductor.periodic_max_workers, len(items))
    with futures.ThreadPoolExecutor(max_workers=workers,
                                    thread_name_prefix="periodic") as ex:
        return list(ex.map(func, items))


def _time_out(svc: Any, row: dict, state: str, what: str,
              timeout: int) -> int:
    try:
        with task_manager.acquire(None, row["id"], purpose="wait timeout",
                                  host=svc.host, pool=svc.pool,
                                  retry=False) as task:
            if task.node.provision_state != state:
                return 0
            waits.time_out(task, f"Timeout reached while waiting for "
                                 f"{what} ({timeout} s) in state "
                                 f"'{state}'.")
            return 1
    except (exception.NodeLocked, exception.NodeNotFound,
            exception.InvalidStateRequested):
        return 0
    except Exception:  # noqa: BLE001 - one node must not stop the others
        LOG.exception("Timing out node %s failed", row["uuid"])
        return 0


# ---------------------------------------------------------------------------
# power state sync (the parallel BMC queries live in ``power_sync``)

# Not enroll: a node there may not have working BMC credentials yet (the
# public Ironic leaves it out of the sync too).
_SYNC_STATES = (states.MANAGEABLE, states.AVAILABLE, states.ACTIVE,
                states.RESCUE, states.ERROR) + tuple(
                    s for s in states.FAILURE_STATES if s != states.ADOPTFAIL)

SYNC_ERROR = power_failures.SYNC_ERROR


# Whole nodes are read this many at a time, as the workers get to them:
# 50,000 of them at once held some 200 MB for the length of a cycle.
_LOAD_CHUNK = 500


def _load(ids: set[int]) -> Iterator[Node]:
    ordered = sorted(ids)
    for start in range(0, len(ordered), _LOAD_CHUNK):
        yield from Node.list_by_ids(ordered[start:start + _LOAD_CHUNK])


def sync_power_states(svc: Any) -> int:
    """Compare BMC and database power states of owned, idle nodes.

    Nodes in maintenance are left out (``recover_power_failures`` polls
    those that a power failure put there). Returns the number of nodes
    whose record or hardware was corrected.
    """
    started = time.monotonic()
    rows = _rows([("reservation", None), ("maintenance", False),
                  ("provision_states", _SYNC_STATES)])
    ids = {r["id"] for r in owned(svc.host, rows)}
    del rows
    changed = 0
    if ids:
        book = power_failures.FailureBook(svc)
        cycle = power_sync.Cycle(svc, lambda node, answer: _apply_sync(
            svc, node, answer, book))
        changed = cycle.run(_load(ids)) + book.flush()
        book.summarise(len(ids))
    took = time.monotonic() - started
    LOG.debug("Power state sync of %d nodes took %.2f s", len(ids), took)
    # Observed even with nothing to sync (every node in maintenance after
    # an outage, say): the cycles still run, and monitoring counts them.
    metrics.power_sync_cycle(took, len(ids))
    return changed


def _apply_sync(svc: Any, node: Node, answer: Any,
                book: power_failures.FailureBook) -> int:
    if answer.error is not None:
        return book.add(node, answer.error)
    svc.power_failures.pop(node.id, None)
    health_changed = CONF.conductor.enable_health_monitoring and \
        answer.health != node.health
    ours = (node.last_error or "").startswith(SYNC_ERROR)
    if answer.power_state == node.power_state and not health_changed and \
            not ours:
        return 0
    try:
        with task_manager.acquire(None, node.id, purpose="power sync",
                                  host=svc.host, pool=svc.pool,
                                  retry=False) as task:
            fresh = task.node
            if fresh.maintenance:
                return 0
            if health_changed:
                fresh.health = answer.health
            if (fresh.last_error or "").startswith(SYNC_ERROR):
                fresh.last_error = None
            if answer.power_state == fresh.power_state:
                fresh.save()
                return 0
            return _fix_power(task, answer.power_state)
    except exception.NodeLocked:
        return 0
    except Exception as e:  # noqa: BLE001 - counted towards maintenance
        LOG.debug("Power state sync of node %s failed", node.uuid,
                  exc_info=True)
        return book.add(node, str(e) or type(e).__name__)


def _fix_power(task: Task, actual: str) -> int:
    node = task.node
    expected = node.power_state
    if expected is None or not CONF.conductor.force_power_state_during_sync:
        node.power_state = actual
        node.save()
        LOG.info("Node %s power state recorded as %s", node.uuid, actual)
        return 1
    LOG.warning("Node %s is %s but should be %s; restoring", node.uuid,
                actual, expected)
    node.save()
    power.node_power_action(task, expected)
    return 1


# ---------------------------------------------------------------------------
# recovery from power failures

def recover_power_failures(svc: Any) -> int:
    """Ask the BMCs of nodes a power failure put in maintenance again;
    a node whose BMC answers leaves maintenance. Returns how many did."""
    rows = _rows([("reservation", None), ("maintenance", True),
                  ("fault", faults.POWER_FAILURE)])
    ids = {r["id"] for r in owned(svc.host, rows)}
    if not ids:
        return 0
    tally = _RecoveryTally()
    book = power_failures.RecoveryBook(svc)
    recovered = power_sync.Cycle(svc, lambda node, answer: _apply_recovery(
        node, answer, tally, book)).run(_load(ids)) + book.flush()
    if tally.errors or recovered > power_failures.DETAILED:
        # One line, not one per node: after a BMC network outage this is
        # every node of the conductor, every run.
        LOG.info("%d of %d nodes in maintenance for a power failure still "
                 "fail to answer (%s); %d recovered", tally.errors.total(),
                 len(ids), "; ".join(f"{count} x {error}" for error, count
                                       in tally.errors.most_common(3)),
                 recovered)
    return recovered


class _RecoveryTally:
    """The errors of one recovery run, for its summary line."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.errors: collections.Counter = collections.Counter()

    def failed(self, error: str) -> None:
        with self.lock:
            if error in self.errors or len(self.errors) < 100:
                self.errors[error] += 1
            else:
                self.errors["other errors"] += 1


def _apply_recovery(node: Node, answer: Any, tally: _RecoveryTally,
                    book: power_failures.RecoveryBook) -> int:
    if answer.error is not None:
        LOG.debug("Node %s is still in maintenance: its BMC fails: %s",
                  node.uuid, answer.error)
        tally.failed(answer.error)
        return 0
    return book.add(node, answer.power_state, answer.health)
