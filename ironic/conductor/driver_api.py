"""What drivers may ask of the conductor, and nothing more.

A driver receives a task (``ironic.task.Task``) and acts on its
hardware; a few things it needs belong to the conductor: moving the power
state the way every flow does, handing a step's result back to the step
loop, failing a node, the fast-track checks, and taking a node again from
a thread of its own. ``TaskConductor`` implements the drivers' protocol
for them (``ironic.task.ConductorAPI``), bound to one task; the
task manager hands it out as ``task.conductor``. Drivers import no
conductor module at all, so the conductor can reshape its flows without
touching a driver.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Callable

from ironic.conductor import fast_track, inspection_lookup, power, steps
from ironic.conductor import utils as cond_utils
from ironic.conductor.stopping import SHUTDOWN
from ironic.task import Task


class TaskConductor:
    """The conductor's side of ``ConductorAPI`` for ``task``.

    ``acquire(context, node_id, **kwargs)`` is the task manager's own:
    passed in, so that this module need not import the task manager that
    imports it.
    """

    def __init__(self, task: Task,
                 acquire: Callable[..., AbstractContextManager[Any]]
                 ) -> None:
        self._task = task
        self._acquire = acquire

    # -- power, as the flows move it (notifications, fault records) -------

    def power_action(self, state: str) -> None:
        power.node_power_action(self._task, state)

    def power_off_or_reboot(self) -> None:
        power.power_off_or_reboot(self._task)

    def set_boot_device(self, device: str, persistent: bool) -> None:
        power.set_boot_device(self._task, device, persistent=persistent)

    def forget_agent_before_ramdisk(self) -> None:
        power.forget_agent_before_ramdisk(self._task)

    # -- the step loop -----------------------------------------------------

    def resume_steps(self, kind: str) -> None:
        steps.resume(self._task, kind)

    def fail_steps(self, kind: str, message: str) -> None:
        steps.fail(self._task, kind, message)

    def replan_steps(self, kind: str) -> None:
        steps.replan(self._task, kind)

    def repeat_current_step(self, kind: str) -> None:
        steps.StepState(self._task.node, steps.KINDS[kind]).repeat_current()

    def restart_automated_steps(self, kind: str) -> None:
        found = steps.KINDS[kind]
        steps.StepState(self._task.node, found).store(
            steps.automated(self._task, found))

    # -- failing, fast track, inspection -----------------------------------

    def fail_node(self, event: str, message: str) -> None:
        cond_utils.fail(self._task, event, message)

    def fast_track_usable(self) -> bool:
        return fast_track.usable(self._task)

    def keeps_agent(self) -> bool:
        return fast_track.keeps_agent(self._task.node)

    def agent_alive(self) -> bool:
        return fast_track.agent_alive(self._task.node)

    def remember_bmc_addresses(self) -> None:
        node = self._task.node
        info = dict(node.driver_internal_info or {})
        info[inspection_lookup.BMC_KEY] = inspection_lookup.bmc_addresses(
            node.driver_info or {})
        node.driver_internal_info = info

    def forget_bmc_addresses(self) -> None:
        node = self._task.node
        info = dict(node.driver_internal_info or {})
        if inspection_lookup.BMC_KEY in info:
            del info[inspection_lookup.BMC_KEY]
            node.driver_internal_info = info

    # -- a driver's own threads --------------------------------------------

    def acquire(self, purpose: str) -> AbstractContextManager[Task]:
        task = self._task
        return self._acquire(task.context, task.node.uuid, host=task.host,
                             pool=task.pool, purpose=purpose)

    def sleep(self, seconds: float) -> bool:
        return SHUTDOWN.wait(seconds)
