"""The ``ramdisk`` deploy interface: the instance is a ramdisk.

Nothing is written to a disk: the boot interface boots the instance's
kernel and ramdisk (or ISO) given in ``instance_info`` on the tenant
network, in one deploy step. Cleaning and servicing still run in the agent
ramdisk, with its in-band steps (``agent_steps``).
"""

from __future__ import annotations

import logging

from ironic.common import exception, states
from ironic.drivers import base
from ironic.drivers.modules import agent_base
from ironic.task import Task

LOG = logging.getLogger(__name__)


class RamdiskDeploy(agent_base.AgentDeployBase):
    """Boot a ramdisk (kernel + ramdisk, or an ISO) as the instance."""

    inband_kinds = ("clean", "service")

    def get_properties(self) -> dict[str, str]:
        return {}

    def validate(self, task: Task) -> None:
        boot = task.driver.boot
        if boot is None or "ramdisk_boot" not in boot.capabilities:
            raise exception.InvalidParameterValue(
                err="Invalid configuration: the boot interface must have "
                    "the ramdisk_boot capability to deploy a ramdisk.")
        boot.validate(task)

    def prepare(self, task: Task) -> None:
        node = task.node
        if node.provision_state == states.DEPLOYING:
            task.driver.network.validate(task)
            task.conductor.power_off_or_reboot()
            task.driver.storage.attach_volumes(task)
        elif node.provision_state in (states.ACTIVE, states.UNRESCUING):
            task.driver.boot.prepare_instance(task)

    @base.deploy_step(priority=100)
    def deploy(self, task: Task) -> None:
        node = task.node
        if "configdrive" in (node.instance_info or {}) and \
                "ramdisk_boot_configdrive" not in \
                task.driver.boot.capabilities:
            LOG.warning("Node %s: the boot interface cannot pass a "
                        "configuration drive to a ramdisk; it is ignored",
                        node.uuid)
        if not node.disable_power_off:
            task.conductor.power_action(states.POWER_OFF)
        task.driver.network.configure_tenant_networks(task)
        task.driver.boot.prepare_instance(task)
        target = states.REBOOT if node.disable_power_off else \
            states.POWER_ON
        task.conductor.power_action(target)
        LOG.info("Node %s boots its ramdisk instance", node.uuid)
