"""Servicing: user-given steps on an active node."""

from __future__ import annotations

from ironic.common import states
from ironic.conductor import steps, utils
from ironic.task import Task

KIND = steps.SERVICE
# driver_internal_info key: servicing runs without the ramdisk (1.108),
# remembered so the steps resumed after a wait still skip its tear down.
DISABLE_RAMDISK_KEY = "service_disable_ramdisk"


def start(task: Task, service_steps: list[dict],
          disable_ramdisk: bool = False) -> None:
    """The ``service`` verb: the steps are checked before the node moves."""
    task.check_event("service")
    steps.manual(task, KIND, service_steps, disable_ramdisk)
    task.process_event("service", callback=do_node_service,
                       call_args=(task, service_steps, disable_ramdisk))


def do_node_service(task: Task, service_steps: list[dict],
                    disable_ramdisk: bool = False) -> None:
    node = task.node
    try:
        todo = steps.manual(task, KIND, service_steps, disable_ramdisk)
        steps.StepState(node, KIND).store(todo)
        utils.set_internal(node, **{DISABLE_RAMDISK_KEY:
                                    disable_ramdisk or None})
        if not disable_ramdisk:
            result = utils.interface(task, "deploy").prepare_service(task)
            if result == states.SERVICEWAIT:
                task.process_event("wait")
                return
        steps.run_then(task, KIND, 0, _done)
    except Exception as e:  # noqa: BLE001 - recorded on the node
        _fail(task, f"Failed to service: {e}")


def continue_node_service(task: Task) -> None:
    steps.run_remaining(task, KIND, _done, _fail)


def _done(task: Task) -> None:
    _tear_down(task)
    task.process_event("done")


def _tear_down(task: Task) -> None:
    # The flag goes first: a tear down that fails must not leave it behind.
    ramdisk_off = (task.node.driver_internal_info or {}).get(
        DISABLE_RAMDISK_KEY)
    utils.set_internal(task.node, **{DISABLE_RAMDISK_KEY: None})
    if not ramdisk_off:
        utils.interface(task, "deploy").tear_down_service(task)


def abort(task: Task) -> None:
    """Undo servicing stopped in service wait or service hold (an abort,
    a timeout) or failed: forget the steps and shut the service ramdisk
    down. A failure of the tear down is the caller's to record."""
    steps.StepState(task.node, KIND).clear()
    _tear_down(task)


def _fail(task: Task, message: str) -> None:
    utils.fail(task, "fail", message, abort)


def replan(task: Task) -> None:
    """The agent reported its service steps: check the user's now."""
    state = steps.StepState(task.node, KIND)
    steps.keep_position(task, KIND, steps.manual(task, KIND, state.steps))


# What interfaces finishing steps asynchronously call (see steps.resume).
continue_steps = continue_node_service
fail = _fail
