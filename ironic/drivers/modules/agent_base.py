"""What every deploy interface driven by the ramdisk agent shares.

Preparing and tearing down cleaning and servicing in the agent ramdisk,
and the base of the deploy interfaces; their in-band steps and heartbeats
are ``agent_steps``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ironic.common import exception, states
from ironic.drivers import base
from ironic.drivers.modules import (
    agent_image,
    agent_logs,
    agent_state,
    agent_steps,
)
from ironic.task import Task

LOG = logging.getLogger(__name__)


def check_ramdisk_boot(task: Task, purpose: str) -> None:
    """InvalidParameterValue unless the node's boot interface can boot the
    agent ramdisk for ``purpose`` ("rescue" or "inspection"): the boot
    interface declares it with ``validate_<purpose>``."""
    boot = task.driver.boot
    if boot is None:
        raise exception.InvalidParameterValue(
            err=f"Node {task.node.uuid} has no boot interface to boot "
                f"the {purpose} ramdisk.")
    try:
        getattr(boot, f"validate_{purpose}")(task)
    except exception.UnsupportedDriverExtension as e:
        raise exception.InvalidParameterValue(
            err=f"The boot interface of node {task.node.uuid} cannot "
                f"boot the {purpose} ramdisk: {e}") from e


def power_off(task: Task) -> None:
    """Power off (reboot when the node may not be powered off), keeping
    last_error: tear downs run after failures and aborts whose reason the
    successful power action would otherwise erase."""
    kept = task.node.last_error
    task.conductor.power_off_or_reboot()
    if kept and task.node.last_error is None:
        task.node.last_error = kept
        task.node.save()


class AgentCleaningMixin(agent_steps.InterfaceBase):
    """Cleaning and servicing in the agent ramdisk."""

    if TYPE_CHECKING:
        def boot_agent(self, task: Task) -> None: ...  # AgentStepsMixin's

    def prepare_cleaning(self, task: Task) -> str:
        node = task.node
        task.driver.network.add_cleaning_network(task)
        info = agent_state.AgentInfo(node)
        info.set_clean_params()
        info.forget_cached_steps("clean")
        info.forget_operation()
        node.save()
        self.boot_agent(task)
        return states.CLEANWAIT

    def tear_down_cleaning(self, task: Task) -> None:
        agent_logs.on_success(task, "cleaning")
        self._leave_agent(task)
        task.driver.network.remove_cleaning_network(task)

    def prepare_service(self, task: Task) -> str:
        node = task.node
        task.driver.network.add_servicing_network(task)
        info = agent_state.AgentInfo(node)
        info.forget_cached_steps("service")
        info.forget_operation()
        node.save()
        self.boot_agent(task)
        return states.SERVICEWAIT

    def tear_down_service(self, task: Task) -> None:
        node = task.node
        agent_logs.on_success(task, "service")
        agent_state.AgentInfo(node).forget_operation()
        task.driver.boot.clean_up_ramdisk(task)
        task.driver.network.remove_servicing_network(task)
        # Back to the instance.
        task.driver.boot.prepare_instance(task)
        task.conductor.power_action(states.REBOOT)

    def _leave_agent(self, task: Task) -> None:
        node = task.node
        agent_state.AgentInfo(node).forget_operation()
        task.driver.boot.clean_up_ramdisk(task)
        if task.conductor.keeps_agent() and task.conductor.agent_alive():
            LOG.info("Node %s: fast track, the agent is left running",
                     node.uuid)
        else:
            power_off(task)
        node.save()


class AgentDeployBase(agent_steps.AgentStepsMixin, AgentCleaningMixin,
                      base.DeployInterface):
    """Heartbeats, in-band steps and cleaning for agent deploy interfaces;
    subclasses add their deploy steps."""

    def get_properties(self) -> dict[str, str]:
        return {"deploy_forces_oob_reboot":
                "Whether to power the node off out of band at the end of "
                "a deployment instead of asking the agent to shut down. "
                "Optional."}

    def validate(self, task: Task) -> None:
        boot = task.driver.boot
        if boot is not None:
            boot.validate(task)
        agent_image.validate_root_device_hints(task.node)

    def take_over(self, task: Task) -> None:
        if task.node.provision_state == states.ACTIVE:
            task.driver.boot.prepare_instance(task)

    def tear_down(self, task: Task) -> str:
        power_off(task)
        task.driver.storage.detach_volumes(task)
        network = task.driver.network
        network.unconfigure_tenant_networks(task)
        network.remove_provisioning_network(task)
        return "deleted"

    def clean_up(self, task: Task) -> None:
        boot = task.driver.boot
        boot.clean_up_ramdisk(task)
        boot.clean_up_instance(task)
        agent_image.unpublish(task.node)
        agent_state.AgentInfo(task.node).forget_operation()
