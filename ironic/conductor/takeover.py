"""When conductors die: break their locks, resume or fail their work, and
take over the active nodes the ring now gives to this conductor.

A node in a working state (deploying, cleaning, ...) without a reservation
has lost its worker: a live worker always holds the lock until the node
reaches a stable or wait state. Such an orphan is resumed at its recorded
step where that is safe, restarted where the operation is idempotent, and
failed with a clear last_error otherwise.
"""

from __future__ import annotations

import logging
from typing import Any

from ironic.common import exception, states
from ironic.conductor import (
    cleaning,
    deployments,
    inspection,
    periodics,
    servicing,
    steps,
    task_manager,
    utils,
)
from ironic.conf import CONF
from ironic.objects import node_lock
from ironic.task import Task

LOG = logging.getLogger(__name__)


def release_dead_locks(svc: Any) -> list[str]:
    if not svc.peers_heartbeats_trustworthy():
        LOG.info("Not breaking the locks of conductors that look dead: "
                 "the database was away from here too within the last "
                 "%d s", CONF.conductor.heartbeat_timeout)
        return []
    released = node_lock.release_dead_conductors_locks(
        CONF.conductor.heartbeat_timeout)
    if released:
        LOG.warning("Released locks of dead conductors on nodes %s",
                    ", ".join(released))
    return released


def recover_orphans(svc: Any) -> int:
    rows = periodics._rows([("provision_states", states.WORKING_STATES),
                            ("reservation", None)])
    count = 0
    for row in periodics.owned(svc.host, rows):
        try:
            count += _recover(svc, row["id"])
        except (exception.NodeLocked, exception.NodeNotFound,
                exception.NoFreeConductorWorker):
            continue
    return count


def _stored_steps(task: Task, kind: steps.Kind) -> bool:
    return bool(steps.StepState(task.node, kind).steps)


def _resume_steps(task: Task, kind: steps.Kind, cont: Any) -> None:
    """Run the recorded step again (it may not have finished)."""
    steps.StepState(task.node, kind).repeat_current()
    task.node.save()
    task.spawn_after(cont, task)


def _recover(svc: Any, node_id: int) -> int:
    with task_manager.acquire(None, node_id, purpose="orphan recovery",
                              host=svc.host, pool=svc.pool,
                              retry=False) as task:
        state = task.node.provision_state
        if state not in states.WORKING_STATES:
            return 0
        LOG.warning("Node %s was left in %s by a stopped conductor; "
                    "recovering", task.node.uuid, state)
        utils.record_history(
            task, f"Conductor {task.host} recovered the node, left in "
                  f"'{state}' by a conductor that stopped.",
            event_type="takeover", severity="WARNING")
        _RECOVERY[state](task)
        return 1


def _deploying(task: Task) -> None:
    if _stored_steps(task, steps.DEPLOY):
        _resume_steps(task, steps.DEPLOY, deployments.continue_node_deploy)
    else:
        task.spawn_after(deployments.do_node_deploy, task)


def _cleaning(task: Task) -> None:
    if _stored_steps(task, steps.CLEAN):
        _resume_steps(task, steps.CLEAN, cleaning.continue_node_clean)
    elif task.node.target_provision_state == states.MANAGEABLE:
        _fail(task, "cleaning")
    else:
        task.spawn_after(cleaning.do_node_clean, task)


def _servicing(task: Task) -> None:
    if _stored_steps(task, steps.SERVICE):
        _resume_steps(task, steps.SERVICE, servicing.continue_node_service)
    else:
        _fail(task, "servicing")


def _fail(task: Task, what: str) -> None:
    utils.fail(task, "fail", f"The conductor running {what} of this node "
                             f"stopped; {what} did not finish.")


_RECOVERY = {
    states.DEPLOYING: _deploying,
    states.CLEANING: _cleaning,
    states.SERVICING: _servicing,
    states.DELETING: lambda t: t.spawn_after(deployments.do_node_tear_down,
                                             t),
    states.VERIFYING: lambda t: t.spawn_after(inspection.do_node_verify, t),
    states.ADOPTING: lambda t: t.spawn_after(deployments.do_node_adopt, t),
    states.INSPECTING: lambda t: _fail(t, "inspection"),
    states.RESCUING: lambda t: _fail(t, "rescue"),
    states.UNRESCUING: lambda t: _fail(t, "unrescue"),
}


def take_over_active_nodes(svc: Any) -> int:
    """Prepare active nodes whose conductor changed (boot configuration
    lives on the conductor that prepared it)."""
    if svc.conductor_id is None:
        return 0
    rows = periodics._rows([("provision_state", states.ACTIVE),
                            ("reservation", None),
                            ("not_prepared_by", svc.conductor_id)])
    count = 0
    for row in periodics.owned(svc.host, rows):
        try:
            with task_manager.acquire(None, row["id"], purpose="take over",
                                      host=svc.host, pool=svc.pool,
                                      retry=False) as task:
                deploy = task.driver.deploy
                if deploy is not None:
                    deploy.take_over(task)
                task.node.conductor_affinity = svc.conductor_id
                task.node.save()
                count += 1
        except Exception:  # noqa: BLE001 - retried next cycle
            LOG.exception("Take over of node %s failed", row["uuid"])
    return count
