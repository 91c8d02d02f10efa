"""Leaving a wait or hold state: resume, abort, or time out.

A node waits (clean wait, wait call-back, inspect wait, rescue wait,
service wait) for its ramdisk or a driver's poll, or holds (clean hold,
deploy hold, service hold) for an operator. It leaves by

* ``resume``: the awaited event came (or ``unhold``); the steps go on;
* ``abort``: an operator stopped it;
* ``time_out``: it waited longer than its ``[conductor]*_timeout``.

Aborts and timeouts end in the state's failed state and then undo what
the interrupted operation set up with the same clean-up, so a node that
timed out is left exactly like one that was aborted: no step state, no
ramdisk, no rescue password.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from ironic.common import exception, states
from ironic.conductor import (
    cleaning,
    deployments,
    inspection,
    rescue,
    servicing,
    steps,
    utils,
)
from ironic.task import Task

LOG = logging.getLogger(__name__)

# What undoes the operation a node was in, by the state it waited in.
CLEANUPS: dict[str, Callable[[Any], None]] = {
    states.CLEANWAIT: cleaning.abort,
    states.CLEANHOLD: cleaning.abort,
    states.DEPLOYWAIT: deployments.abort,
    states.DEPLOYHOLD: deployments.abort,
    states.INSPECTWAIT: inspection.abort,
    states.RESCUEWAIT: rescue.abort,
    states.SERVICEWAIT: servicing.abort,
    states.SERVICEHOLD: servicing.abort,
}

# What goes on with the steps after a wait, by the waiting state.
_CONTINUATIONS: dict[str, Callable[[Any], None]] = {
    states.CLEANWAIT: cleaning.continue_node_clean,
    states.DEPLOYWAIT: deployments.continue_node_deploy,
    states.SERVICEWAIT: servicing.continue_node_service,
}


def abort(task: Task) -> None:
    """The ``abort`` verb (its event was checked by the caller).

    From a wait or hold the node fails with a last_error naming the state
    and a worker undoes the operation; from ``service failed`` it goes back
    to active as it is.
    """
    state = task.node.provision_state
    if state not in CLEANUPS:
        task.process_event("abort", last_error=None)
        return
    task.process_event(
        "abort", callback=clean_up, call_args=(task, state),
        last_error=f"Aborted by an operator while in state '{state}'.")


def time_out(task: Task, message: str) -> None:
    """Fail a node whose wait lasted too long, then undo the operation
    (in the caller's thread: the periodic task bounds its own workers)."""
    state = task.node.provision_state
    task.process_event("fail", last_error=message)
    clean_up(task, state)


def clean_up(task: Task, state: str) -> None:
    """Undo what the operation stopped in ``state`` set up.

    A clean-up that fails is added to last_error and to the history: the
    node already is in its failed state, and the operator must know that
    something (a ramdisk, a rescue password) may be left behind.
    """
    node = task.node
    cleanup = CLEANUPS.get(state)
    if cleanup is None:
        return
    try:
        cleanup(task)
    except Exception as e:  # noqa: BLE001 - recorded on the node
        LOG.exception("Node %s: cleaning up after leaving '%s' failed",
                      node.uuid, state)
        note = f"Cleaning up after leaving '{state}' failed: {e}"
        node.last_error = f"{node.last_error} {note}" if node.last_error \
            else note
        utils.record_history(task, note,
                             event_type=utils.event_type_for(state))
    node.save()


def resume(task: Task) -> None:
    """Go on with the steps after a wait (the node is in a wait state)."""
    callback = _CONTINUATIONS.get(task.node.provision_state)
    if callback is None:
        raise exception.InvalidStateRequested(
            action="continue", node=task.node.uuid,
            state=task.node.provision_state)
    task.process_event("resume", callback=callback, call_args=(task,))


def unhold(task: Task) -> None:
    """The ``unhold`` verb: back to waiting, then on with the steps."""
    task.process_event("unhold")
    resume(task)


def continue_steps(task: Task, skip_current: bool = True) -> None:
    """Resume a node waiting on an asynchronous step; with
    ``skip_current`` False the step that returned the wait runs again."""
    kind = steps.waiting_kind(task.node.provision_state)
    if kind is not None and not skip_current:
        steps.StepState(task.node, kind).repeat_current()
    resume(task)
