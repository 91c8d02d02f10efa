"""Deploy, rebuild, tear down (undeploy) and adopt."""

from __future__ import annotations

import logging
from typing import Any

from ironic.common import configdrive as configdrive_mod
from ironic.common import exception, states
from ironic.conductor import (
    allocations,
    cleaning,
    deploy_templates,
    power,
    steps,
    utils,
)
from ironic.objects.conductor import Conductor
from ironic.task import Task

LOG = logging.getLogger(__name__)
KIND = steps.DEPLOY


def validate_deploy(task: Task) -> None:
    """Synchronous checks before the API answers 202."""
    for kind in ("power", "management", "boot", "deploy"):
        utils.interface(task, kind).validate(task)
    deploy_templates.instance_traits(task.node)


def plan(task: Task) -> list[dict]:
    """The deploy steps to run: the driver's automatic ones, changed and
    extended by the matching deploy templates and the request's steps."""
    request_steps = (task.node.driver_internal_info or {}).get(
        deploy_templates.USER_STEPS_KEY)
    planned = steps.automated(task, KIND, deploy_templates.user_steps(
        task.node, request_steps))
    # The deploy interface may drop steps it cannot run where they fall
    # (in-band steps outside the window the agent is up in).
    screen = getattr(getattr(task.driver, "deploy", None),
                     "screen_deploy_steps", None)
    return screen(task, planned) if screen else planned


def replan(task: Task) -> None:
    """The agent reported its deploy steps: plan again, checking them."""
    steps.keep_position(task, KIND, plan(task))


def start_deploy(task: Task, rebuild: bool = False, configdrive: Any = None,
                 deploy_steps: list[dict] | None = None) -> None:
    """The ``deploy``/``active`` and ``rebuild`` verbs: every check that
    can fail is made before the node moves."""
    event = "rebuild" if rebuild else "deploy"
    task.check_event(event, "rebuild" if rebuild else "active")
    if rebuild and task.node.protected:
        raise exception.NodeProtected(node=task.node.uuid)
    validate_deploy(task)
    if isinstance(configdrive, dict):
        configdrive_mod.validate_parts(configdrive)
    if deploy_steps:
        steps.automated(task, KIND, deploy_steps)
    task.process_event(event, callback=do_node_deploy,
                       call_args=(task, configdrive, deploy_steps))


def start_tear_down(task: Task) -> None:
    """The ``deleted``/``undeploy`` verb."""
    task.check_event("deleted")
    if task.node.protected:
        raise exception.NodeProtected(node=task.node.uuid)
    task.process_event("deleted", callback=do_node_tear_down,
                       call_args=(task,))


def start_adopt(task: Task) -> None:
    task.process_event("adopt", callback=do_node_adopt, call_args=(task,))


def do_node_deploy(task: Task, configdrive: Any = None,
                   deploy_steps: list[dict] | None = None) -> None:
    """Worker (node in DEPLOYING): prepare, plan the steps, run them."""
    node = task.node
    try:
        if configdrive:
            if isinstance(configdrive, dict):
                configdrive = configdrive_mod.build(node, configdrive)
            info = dict(node.instance_info or {})
            info["configdrive"] = configdrive
            node.instance_info = info
        utils.set_internal(node, **{
            deploy_templates.USER_STEPS_KEY: deploy_steps or None})
        utils.interface(task, "deploy").prepare(task)
        steps.StepState(node, KIND).store(plan(task))
        steps.run_then(task, KIND, 0, _done)
    except Exception as e:  # noqa: BLE001 - recorded on the node
        _fail(task, f"Failed to deploy: {e}")


def continue_node_deploy(task: Task) -> None:
    steps.run_remaining(task, KIND, _done, _fail)


def _done(task: Task) -> None:
    utils.set_internal(task.node, **{deploy_templates.USER_STEPS_KEY: None})
    task.node.conductor_affinity = _conductor_id(task)
    task.process_event("done")


def _conductor_id(task: Task) -> int | None:
    try:
        return Conductor.get_by_hostname(task.host).id
    except Exception:  # noqa: BLE001 - affinity is only a hint
        return None


def _forget_steps(node: Any) -> None:
    steps.StepState(node, KIND).clear()
    utils.set_internal(node, **{deploy_templates.USER_STEPS_KEY: None})


def _fail(task: Task, message: str) -> None:
    def cleanup(t):
        _forget_steps(t.node)
        utils.interface(t, "deploy").clean_up(t)
    utils.fail(task, "fail", message, cleanup)


# What interfaces finishing steps asynchronously call (see steps.resume).
continue_steps = continue_node_deploy
fail = _fail


def do_node_tear_down(task: Task) -> None:
    """Worker (node in DELETING): tear down, forget the instance, clean."""
    node = task.node
    try:
        deploy = utils.interface(task, "deploy")
        deploy.tear_down(task)
        deploy.clean_up(task)
    except Exception as e:  # noqa: BLE001 - recorded on the node
        utils.fail(task, "error", f"Failed to tear down: {e}")
        return
    info = dict(node.instance_info or {})
    node.instance_info = {}
    node.instance_uuid = None
    allocations.forget_on_teardown(node)
    # Undeploy may interrupt a deployment, rescue or servicing that was
    # waiting: no step of theirs may be resumed later.
    for kind in steps.KINDS.values():
        steps.StepState(node, kind).clear()
    utils.set_internal(node, is_whole_disk_image=None,
                       root_uuid_or_disk_id=None,
                       service_disable_ramdisk=None,
                       **{deploy_templates.USER_STEPS_KEY: None})
    LOG.info("Node %s torn down (instance info had %d keys)", node.uuid,
             len(info))
    task.process_event("clean", target_state=states.AVAILABLE)
    cleaning.do_node_clean(task)


def do_node_adopt(task: Task) -> None:
    """Worker (node in ADOPTING): take over a deployed node as active."""
    try:
        for kind in ("power", "boot", "deploy"):
            utils.interface(task, kind).validate(task)
        utils.interface(task, "deploy").take_over(task)
        task.node.conductor_affinity = _conductor_id(task)
        task.process_event("done")
    except Exception as e:  # noqa: BLE001 - recorded on the node
        utils.fail(task, "fail", f"Failed to adopt: {e}")


def abort(task: Task) -> None:
    """Undo a deployment stopped in wait call-back or deploy hold (an
    abort or a timeout), so that nothing is left half-deployed: forget the
    steps, let the deploy interface clean up (ramdisk, boot files) and
    power the node off, which also ends the agent's session. A failure is
    the caller's to record.
    """
    node = task.node
    _forget_steps(node)
    utils.interface(task, "deploy").clean_up(task)
    if node.disable_power_off:
        LOG.info("Node %s has disable_power_off set: left powered on "
                 "after the deployment stopped", node.uuid)
        return
    reason = node.last_error
    try:
        power.node_power_action(task, states.POWER_OFF)
    finally:
        # The power action rewrites last_error (cleared or its own error,
        # which the caller adds); the reason the deployment stopped stays.
        node.last_error = reason
