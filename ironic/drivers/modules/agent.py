"""The ``direct`` deploy interface: the agent writes the image itself.

The deployment is the decomposed sequence of deploy steps of seed 002:

==== ========================= ==============================================
 100 deploy                    provisioning network, boot the agent ramdisk;
                               waits for the agent (wait call-back)
  80 write_image               the agent downloads and writes the image
                               (asynchronous, finished on a heartbeat)
  60 prepare_instance_boot     boot loader (partition images, UEFI), boot
                               from disk, the boot interface's instance boot
  40 tear_down_agent           the agent shuts the node down
  30 switch_to_tenant_network  provisioning network off, tenant networks on
  20 boot_instance             power on
==== ========================= ==============================================

In-band deploy steps the agent offers run between 99 and 41 when enabled
(deploy templates, the request's deploy_steps); see ``agent_steps``.
"""

from __future__ import annotations

import logging
import time

from oslo_utils import strutils

from ironic.common import agent_token, boot_devices, exception, states
from ironic.conf import CONF
from ironic.drivers import base
from ironic.drivers.modules import (
    agent_base,
    agent_client,
    agent_image,
    agent_logs,
    agent_state,
    instance_image,
)
from ironic.task import Task

LOG = logging.getLogger(__name__)


class AgentDeploy(agent_base.AgentDeployBase):
    """Deploy an image with the agent ramdisk (``direct``)."""

    def validate(self, task: Task) -> None:
        super().validate(task)
        if task.driver.storage.should_write_image(task):
            agent_image.validate(task.node)

    def prepare(self, task: Task) -> None:
        node = task.node
        if node.provision_state in (states.ACTIVE, states.ADOPTING):
            # Taking the node over: only the instance boot is needed.
            task.driver.boot.prepare_instance(task)
            return
        if node.provision_state != states.DEPLOYING:
            return
        task.driver.network.validate(task)
        if not task.conductor.fast_track_usable():
            task.conductor.power_off_or_reboot()
        info = agent_state.AgentInfo(node)
        info.forget_cached_steps("deploy")
        info.forget_operation()
        if task.driver.storage.should_write_image(task):
            info.set_image_written(
                agent_image.image_type(node) == agent_image.WHOLE_DISK)
            # Checked (fetched, converted) before the agent boots: a bad
            # image fails the deployment now, not after a ramdisk boot.
            instance_image.prepare(node)
        task.driver.storage.attach_volumes(task)
        node.save()

    # -- the decomposed deploy steps ---------------------------------------

    @base.deploy_step(priority=100)
    def deploy(self, task: Task) -> str | None:
        """Boot the agent on the provisioning network; wait for it."""
        if not task.driver.storage.should_write_image(task):
            return None
        network = task.driver.network
        network.unconfigure_tenant_networks(task)
        network.add_provisioning_network(task)
        self.boot_agent(task)
        return states.DEPLOYWAIT

    @base.deploy_step(priority=80)
    def write_image(self, task: Task) -> str | None:
        """Have the agent write the image (and the configdrive)."""
        if not task.driver.storage.should_write_image(task):
            return None
        node = task.node
        image_info = agent_image.agent_image_info(
            node, CONF.agent.stream_raw_images)
        configdrive = (node.instance_info or {}).get("configdrive")
        if configdrive:
            # Older agents read it from the image information.
            image_info["configdrive"] = configdrive
        LOG.info("Node %s: the agent writes image %s", node.uuid,
                 image_info["urls"][0])
        if self._agent_offers(task, "write_image"):
            step = {"interface": "deploy", "step": "write_image",
                    "args": {"image_info": image_info,
                             "configdrive": configdrive}}
            version = agent_state.AgentInfo(node).hardware_manager_version
            return self.run_agent_command(
                task, "deploy", "execute_deploy_step",
                lambda client: client.execute_step("deploy", step,
                                                   task.ports, version))
        # An agent without the in-band step writes with prepare_image.
        return self.run_agent_command(
            task, "deploy", "prepare_image",
            lambda client: client.prepare_image(image_info, configdrive))

    def _agent_offers(self, task: Task, name: str) -> bool:
        cached = agent_state.AgentInfo(task.node).cached_steps("deploy")
        return any(s.get("step") == name
                   for s in (cached or {}).get("deploy", []))

    @base.deploy_step(priority=60)
    def prepare_instance_boot(self, task: Task) -> None:
        """Install the boot loader where needed and boot from the disk."""
        if task.driver.storage.should_write_image(task):
            self._install_bootloader(task)
            _set_boot_to_disk(task)
        task.driver.boot.prepare_instance(task)

    def _install_bootloader(self, task: Task) -> None:
        node = task.node
        client = agent_client.AgentClient(node)
        uuids = client.get_partition_uuids()
        root_uuid = uuids.get("root uuid")
        info = agent_state.AgentInfo(node)
        info.set_root_uuid(root_uuid)
        node.save()
        whole_disk = bool(info.is_whole_disk_image)
        mode = agent_image.boot_mode(node)
        if not whole_disk and not root_uuid:
            LOG.error("Node %s: the agent reported no root partition "
                      "(%s); the instance will likely not boot",
                      node.uuid, uuids)
        # Whole disk images carry their boot loader; in UEFI mode the
        # agent still records it in the firmware's boot entries.
        if (root_uuid and not whole_disk) or \
                (whole_disk and mode == "uefi"):
            efi = None if whole_disk or mode != "uefi" else \
                uuids.get("efi system partition uuid")
            prep = uuids.get("PReP Boot partition uuid") if str(
                (node.properties or {}).get("cpu_arch", "")).startswith(
                    "ppc64") else None
            client.install_bootloader(root_uuid, mode, efi, prep)
            LOG.info("Node %s: boot loader installed", node.uuid)

    @base.deploy_step(priority=40)
    def tear_down_agent(self, task: Task) -> None:
        """Stop the agent: the node ends powered off (or, when it may
        never be powered off, keeps running until boot_instance)."""
        node = task.node
        agent_logs.on_success(task)
        agent_state.AgentInfo(node).forget_operation()
        node.save()
        if node.disable_power_off:
            LOG.info("Node %s may not be powered off; the instance boots "
                     "with a reboot", node.uuid)
            return
        forced_oob = strutils.bool_from_string(
            (node.driver_info or {}).get("deploy_forces_oob_reboot", False))
        if not _can_power_on(task):
            _sync(task)
            task.conductor.power_action(states.REBOOT)
        elif forced_oob:
            _sync(task)
            task.conductor.power_action(states.POWER_OFF)
        else:
            _soft_power_off(task)

    @base.deploy_step(priority=30)
    def switch_to_tenant_network(self, task: Task) -> None:
        network = task.driver.network
        network.remove_provisioning_network(task)
        network.configure_tenant_networks(task)

    @base.deploy_step(priority=20)
    def boot_instance(self, task: Task) -> None:
        if task.node.disable_power_off:
            task.conductor.power_action(states.REBOOT)
        elif _can_power_on(task):
            task.conductor.power_action(states.POWER_ON)
        else:
            LOG.info("Node %s cannot be powered on remotely; it was "
                     "rebooted into the instance", task.node.uuid)


def _can_power_on(task: Task) -> bool:
    return states.POWER_ON in \
        task.driver.power.get_supported_power_states(task)


def _set_boot_to_disk(task: Task) -> None:
    try:
        task.driver.management.set_boot_device(task, boot_devices.DISK,
                                               persistent=True)
    except exception.UnsupportedDriverExtension:
        LOG.info("Node %s: the management interface cannot set the boot "
                 "device; the boot interface decides", task.node.uuid)


def _sync(task: Task) -> None:
    """Flush the agent's disks before a hard power action (best effort)."""
    try:
        agent_client.AgentClient(task.node).sync()
    except agent_client.AgentError as e:
        LOG.warning("Node %s: could not flush the file systems before "
                    "the power action: %s", task.node.uuid, e)


def _soft_power_off(task: Task) -> None:
    """Ask the agent to shut down; power off out of band if it does not
    within [agent]post_deploy_get_power_state_retries (and interval)."""
    node = task.node
    try:
        agent_client.AgentClient(node).power_off()
    except agent_client.AgentError as e:
        LOG.warning("Node %s: the agent did not take the power off "
                    "command: %s", node.uuid, e)
    power = task.driver.power
    for attempt in range(CONF.agent.post_deploy_get_power_state_retries + 1):
        if attempt:
            time.sleep(CONF.agent.post_deploy_get_power_state_retry_interval)
        try:
            if power.get_power_state(task) == states.POWER_OFF:
                node.power_state = states.POWER_OFF
                agent_token.wipe(node)
                node.save()
                return
        except Exception as e:  # noqa: BLE001 - the forced power off follows
            LOG.warning("Node %s: reading the power state failed: %s",
                        node.uuid, e)
    LOG.warning("Node %s did not power off by itself; powering it off out "
                "of band", node.uuid)
    task.conductor.power_action(states.POWER_OFF)
