"""The ``agent`` rescue interface: the rescue ramdisk with the agent.

``rescue`` powers the instance off, moves the node from the tenant
network to the rescuing network, has the boot interface prepare the rescue
ramdisk (``rescue_kernel``/``rescue_ramdisk``) and powers it on; the node
waits in ``rescue wait``. On the agent's first heartbeat the conductor
sends ``rescue.finalize_rescue`` with the rescue password hashed
(SHA-crypt, ``[conductor]rescue_password_hash_algorithm``): the agent puts
it in place for the ``rescue`` user and stops heartbeating, and the node
goes back to the tenant network in ``rescue`` (the password and the
rescue boot files are removed). ``unrescue`` boots the instance again.
"""

from __future__ import annotations

import logging
from typing import Any

from ironic.common import exception, password_hash, states
from ironic.conf import CONF
from ironic.drivers import base
from ironic.drivers.modules import agent_base, agent_client, agent_steps
from ironic.task import Task

LOG = logging.getLogger(__name__)

PASSWORD = "rescue_password"
HASHED_PASSWORD = "hashed_rescue_password"


def _set_instance_info(node: Any, **values: Any) -> None:
    info = dict(node.instance_info or {})
    for key, value in values.items():
        if value is None:
            info.pop(key, None)
        else:
            info[key] = value
    node.instance_info = info


class AgentRescue(base.RescueInterface):
    """Rescue through the agent's rescue extension."""

    def get_properties(self) -> dict[str, str]:
        return {}

    def validate(self, task: Task) -> None:
        agent_base.check_ramdisk_boot(task, "rescue")

    def rescue(self, task: Task) -> str:
        node = task.node
        password = (node.instance_info or {}).get(PASSWORD)
        if not password:
            raise exception.MissingParameterValue(
                err=f"Node {node.uuid} has no rescue password.")
        _set_instance_info(node, **{HASHED_PASSWORD: password_hash.sha_crypt(
            password, CONF.conductor.rescue_password_hash_algorithm)})
        node.save()
        task.conductor.power_off_or_reboot()
        task.driver.boot.clean_up_instance(task)
        network = task.driver.network
        network.unconfigure_tenant_networks(task)
        network.add_rescuing_network(task)
        task.conductor.forget_agent_before_ramdisk()
        task.driver.boot.prepare_ramdisk(task,
                                         agent_steps.ramdisk_params(task))
        if not node.disable_power_off:
            task.conductor.power_action(states.POWER_ON)
        LOG.info("Node %s is booting its rescue ramdisk", node.uuid)
        return states.RESCUEWAIT

    def heartbeat(self, task: Task, callback_url: str,
                  agent_version: str | None, **kwargs: Any) -> None:
        if task.node.provision_state != states.RESCUEWAIT:
            return
        task.spawn_after(self._finalize, task)

    def ignores_heartbeat(self, node: Any) -> bool:
        """Only a node in ``rescue wait`` acts on the agent's heartbeat."""
        if type(self).heartbeat is not AgentRescue.heartbeat:
            return False
        return node.provision_state != states.RESCUEWAIT

    def _finalize(self, task: Task) -> None:
        """Worker: hand the password to the agent, leave the ramdisk up."""
        node = task.node
        if node.provision_state != states.RESCUEWAIT:
            return
        hashed = (node.instance_info or {}).get(HASHED_PASSWORD)
        try:
            result = agent_client.AgentClient(node).finalize_rescue(
                hashed, hashed=True)
            if result.get("command_status") != agent_client.SUCCEEDED:
                raise agent_client.AgentCommandError(
                    node=node.uuid, command="rescue.finalize_rescue",
                    error=agent_client.command_error(result))
        except agent_client.AgentInProgress as e:
            LOG.info("Node %s: %s; trying again on the next heartbeat",
                     node.uuid, e)
            return
        except Exception as e:  # noqa: BLE001 - the node records it
            task.conductor.fail_node("fail", f"Failed to finalize the "
                                             f"rescue of node {node.uuid}: "
                                             f"{e}")
            return
        task.process_event("resume")
        # The agent has the password: nothing of the rescue boot is
        # needed any more, a reboot boots the instance's way again.
        self.clean_up(task)
        task.driver.network.configure_tenant_networks(task)
        task.process_event("done")
        LOG.info("Node %s is in rescue", node.uuid)

    def unrescue(self, task: Task) -> str:
        task.conductor.power_off_or_reboot()
        self.clean_up(task)
        task.driver.network.configure_tenant_networks(task)
        task.driver.boot.prepare_instance(task)
        if not task.node.disable_power_off:
            task.conductor.power_action(states.POWER_ON)
        return states.ACTIVE

    def clean_up(self, task: Task) -> None:
        node = task.node
        _set_instance_info(node, **{PASSWORD: None, HASHED_PASSWORD: None})
        node.save()
        task.driver.boot.clean_up_ramdisk(task)
        task.driver.network.remove_rescuing_network(task)
