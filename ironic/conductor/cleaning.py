"""Cleaning: automated (provide, undeploy) and manual (clean verb)."""

from __future__ import annotations

import logging
from typing import Any

from ironic.common import exception, states
from ironic.conductor import steps, utils
from ironic.conf import CONF
from ironic.task import Task

LOG = logging.getLogger(__name__)
KIND = steps.CLEAN


def automated_clean_enabled(node: Any) -> bool:
    if node.automated_clean is not None:
        return bool(node.automated_clean)
    return CONF.conductor.automated_clean


def _manual(node: Any) -> bool:
    return node.target_provision_state == states.MANAGEABLE


def start_provide(task: Task) -> None:
    """The ``provide`` verb: automated cleaning, then available."""
    if task.node.retired:
        raise exception.NodeIsRetired(op="provide", node=task.node.uuid)
    task.process_event("provide", callback=do_node_clean, call_args=(task,),
                       target_state=states.AVAILABLE)


def start_manual(task: Task, clean_steps: list[dict],
                 disable_ramdisk: bool = False) -> None:
    """The ``clean`` verb: the steps are checked before the node moves;
    manual cleaning ends in manageable."""
    task.check_event("clean")
    steps.manual(task, KIND, clean_steps, disable_ramdisk)
    task.process_event("clean", callback=do_node_clean,
                       call_args=(task, clean_steps, disable_ramdisk),
                       target_state=states.MANAGEABLE)


def do_node_clean(task: Task, clean_steps: list[dict] | None = None,
                  disable_ramdisk: bool = False) -> None:
    """Worker: prepare, gather the steps and run them (node in CLEANING)."""
    node = task.node
    try:
        if clean_steps is None and not automated_clean_enabled(node):
            LOG.info("Automated cleaning is disabled for node %s",
                     node.uuid)
            _finish(task, cleaned=False)
            return
        for kind in ("power", "management"):
            utils.interface(task, kind).validate(task)
        todo = (steps.manual(task, KIND, clean_steps, disable_ramdisk)
                if clean_steps is not None
                else steps.automated(task, KIND))
        steps.StepState(node, KIND).store(todo)
        utils.set_internal(node, cleaning_disable_ramdisk=disable_ramdisk
                           or None)
        if not disable_ramdisk:
            result = utils.interface(task, "deploy").prepare_cleaning(task)
            if result == states.CLEANWAIT:
                task.process_event("wait")
                return
        steps.run_then(task, KIND, 0, _done)
    except Exception as e:  # noqa: BLE001 - the node records it
        _fail(task, f"Failed to prepare or run cleaning: {e}")


def continue_node_clean(task: Task) -> None:
    """Worker: resume after an asynchronous step (node in CLEANING)."""
    steps.run_remaining(task, KIND, _done, _fail)


def _done(task: Task) -> None:
    _tear_down(task)
    _finish(task)


def _tear_down(task: Task) -> None:
    # The flag goes first: a tear down that fails must not leave it behind.
    info = task.node.driver_internal_info or {}
    utils.set_internal(task.node, cleaning_disable_ramdisk=None)
    if not info.get("cleaning_disable_ramdisk"):
        utils.interface(task, "deploy").tear_down_cleaning(task)


def _finish(task: Task, cleaned: bool = True) -> None:
    """Leave CLEANING: manageable after manual cleaning and, when cleaning
    really ran, for retired nodes (never offered again); else available."""
    node = task.node
    retire = cleaned and node.retired and not _manual(node)
    if retire:
        LOG.info("Node %s is retired: it goes to manageable, not "
                 "available", node.uuid)
    event = "manage" if _manual(node) or retire else "done"
    task.process_event(event)


def _fail(task: Task, message: str) -> None:
    def cleanup(t):
        steps.StepState(t.node, KIND).clear()
        _tear_down(t)
    utils.fail(task, "fail", message, cleanup)


def replan(task: Task) -> None:
    """The agent reported its clean steps: manual steps are checked now,
    automated ones gathered again with the agent's."""
    node = task.node
    if _manual(node):
        todo = steps.manual(task, KIND, steps.StepState(node, KIND).steps)
    else:
        todo = steps.automated(task, KIND)
    steps.keep_position(task, KIND, todo)


# What interfaces finishing steps asynchronously call (see steps.resume).
continue_steps = continue_node_clean
fail = _fail


def abort(task: Task) -> None:
    """Undo cleaning stopped in clean wait or clean hold (an abort or a
    timeout): forget the steps, shut the ramdisk down. A failure of the
    tear down is the caller's to record."""
    steps.StepState(task.node, KIND).clear()
    _tear_down(task)
