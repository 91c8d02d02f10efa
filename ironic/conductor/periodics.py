"""The conductor's periodic work, run on the nodes this conductor owns.

* power state sync: what the BMC says against what the database says;
* wait timeouts: nodes waiting longer than their callback timeout fail;
* dead conductors: their locks are broken and their nodes taken over
  (``takeover``).

Nodes are selected with one query of the needed columns and filtered by the
hash ring in memory; a node is locked only when something must change.
"""

from __future__ import annotations

import datetime
import logging
import time
from concurrent import futures
from typing import Any, Callable, Iterable

from ironic.common import exception, faults, hash_ring, states
from ironic.conductor import task_manager, utils
from ironic.conf import CONF
from ironic.db import api as db_api
from ironic.db.sqlalchemy import models
from ironic.objects.node import Node

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


def _rows(filters: list, columns: list[str] | None = None) -> list:
    cols = ["id", "uuid", "driver", "conductor_group"] + (columns or [])
    return db_api.get_instance().get_node_list(filters=filters, columns=cols,
                                               limit=None)


# ---------------------------------------------------------------------------
# wait timeouts

def check_wait_timeouts(svc: Any) -> int:
    """Fail nodes that waited too long and undo what they were doing (the
    same clean-up as an abort), at most ``[conductor]periodic_max_workers``
    nodes at a time; returns how many timed out."""
    N = models.Node
    due = []
    for state, (option, what) in WAIT_TIMEOUTS.items():
        timeout = getattr(CONF.conductor, option)
        if not timeout:
            continue
        limit = _now() - datetime.timedelta(seconds=timeout)
        rows = _rows([N.provision_state == state, N.reservation.is_(None),
                      N.provision_updated_at < limit])
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
    from ironic.conductor import waits
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

# last_error written by the sync starts with this, so an answer that comes
# back clears only what the sync itself wrote.
SYNC_ERROR = "Power state sync failed"


def _load(ids: set[int]) -> list[Node]:
    if not ids:
        return []
    N = models.Node
    return [Node.from_db(row) for row in db_api.get_instance().get_node_list(
        filters=[N.id.in_(list(ids))], limit=None)]


def sync_power_states(svc: Any) -> int:
    """Compare BMC and database power states of owned, idle nodes.

    Nodes in maintenance are left out (``recover_power_failures`` polls
    those that a power failure put there). Returns the number of nodes
    whose record or hardware was corrected.
    """
    N = models.Node
    rows = _rows([N.reservation.is_(None), N.maintenance.is_(False),
                  N.provision_state.in_(_SYNC_STATES)])
    nodes = _load({r["id"] for r in owned(svc.host, rows)})
    if not nodes:
        return 0
    from ironic.conductor import power_sync
    cycle = power_sync.Cycle(svc, lambda node, answer: _apply_sync(
        svc, node, answer))
    started = time.monotonic()
    changed = cycle.run(nodes)
    LOG.debug("Power state sync of %d nodes took %.2f s (%d BMCs asked at "
              "once at most)", len(nodes), time.monotonic() - started,
              cycle.max_parallel)
    return changed


def _apply_sync(svc: Any, node: Node, answer: Any) -> int:
    if answer.error is not None:
        return _power_failure(svc, node, answer.error)
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
        return _power_failure(svc, node, str(e))


def _fix_power(task: Any, actual: str) -> int:
    node = task.node
    expected = node.power_state
    if expected is None or not CONF.conductor.force_power_state_during_sync:
        node.power_state = actual
        node.save()
        LOG.info("Node %s power state recorded as %s", node.uuid, actual)
        return 1
    from ironic.conductor import power
    LOG.warning("Node %s is %s but should be %s; restoring", node.uuid,
                actual, expected)
    node.save()
    power.node_power_action(task, expected)
    return 1


def _power_failure(svc: Any, node: Node, error: str) -> int:
    count = svc.power_failures.get(node.id, 0) + 1
    svc.power_failures[node.id] = count
    limit = CONF.conductor.power_state_sync_max_retries
    give_up = count > limit
    LOG.warning("Power state sync of node %s failed (%d in a row): %s",
                node.uuid, count, error)
    try:
        with task_manager.acquire(None, node.id, purpose="power failure",
                                  host=svc.host, pool=svc.pool,
                                  retry=False) as task:
            fresh = task.node
            if fresh.maintenance:
                svc.power_failures.pop(node.id, None)
                return 0
            if not give_up:
                fresh.last_error = (
                    f"{SYNC_ERROR} ({count} of {limit + 1} attempts before "
                    f"maintenance): {error}")
                fresh.save()
                return 0
            svc.power_failures.pop(node.id, None)
            fresh.maintenance = True
            fresh.fault = faults.POWER_FAILURE
            fresh.maintenance_reason = (
                f"{SYNC_ERROR} {count} times in a row, the node is in "
                f"maintenance until its BMC answers again; last error: "
                f"{error}")
            fresh.last_error = fresh.maintenance_reason
            fresh.save()
            utils.record_history(task, fresh.maintenance_reason,
                                 event_type="maintenance")
        LOG.error("Node %s put in maintenance after %d failed power state "
                  "syncs", node.uuid, count)
        return 1
    except exception.NodeLocked:
        return 0


# ---------------------------------------------------------------------------
# recovery from power failures

def recover_power_failures(svc: Any) -> int:
    """Ask the BMCs of nodes a power failure put in maintenance again;
    a node whose BMC answers leaves maintenance. Returns how many did."""
    N = models.Node
    rows = _rows([N.reservation.is_(None), N.maintenance.is_(True),
                  N.fault == faults.POWER_FAILURE])
    nodes = _load({r["id"] for r in owned(svc.host, rows)})
    if not nodes:
        return 0
    from ironic.conductor import power_sync
    return power_sync.Cycle(svc, lambda node, answer: _apply_recovery(
        svc, node, answer)).run(nodes)


def _apply_recovery(svc: Any, node: Node, answer: Any) -> int:
    if answer.error is not None:
        LOG.info("Node %s is still in maintenance: its BMC fails: %s",
                 node.uuid, answer.error)
        return 0
    try:
        with task_manager.acquire(None, node.id, purpose="power recovery",
                                  host=svc.host, pool=svc.pool,
                                  retry=False) as task:
            fresh = task.node
            if not fresh.maintenance or \
                    fresh.fault != faults.POWER_FAILURE:
                return 0
            fresh.power_state = answer.power_state
            if CONF.conductor.enable_health_monitoring:
                fresh.health = answer.health
            fresh.maintenance = False
            fresh.maintenance_reason = None
            fresh.fault = None
            if (fresh.last_error or "").startswith(SYNC_ERROR):
                fresh.last_error = None
            fresh.save()
            utils.record_history(
                task, f"The BMC answers again (power {answer.power_state}); "
                      f"maintenance set for the power failure is lifted",
                event_type="maintenance", severity="INFO")
        svc.power_failures.pop(node.id, None)
        LOG.info("Node %s left maintenance: its BMC answers again",
                 node.uuid)
        return 1
    except exception.NodeLocked:
        return 0
