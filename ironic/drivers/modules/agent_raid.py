"""The ``agent`` RAID interface: software or hardware RAID built in-band.

The agent ramdisk's hardware managers build the RAID (the generic one
builds Linux software RAID); the conductor only hands them the target and
records what they built. The steps are:

* clean steps ``create_configuration`` (from the node's
  ``target_raid_config``, optionally only its root or only its other
  volumes) and ``delete_configuration``;
* deploy steps ``apply_configuration`` (a ``raid_config`` argument, e.g.
  from a deploy template) and ``delete_configuration``.

Each runs as the agent's ``clean.execute_clean_step`` or
``deploy.execute_deploy_step`` with ``interface: raid``; the step waits for
the agent's heartbeats like any in-band step (``agent_steps``). When the
agent reports success, ``raid_config`` becomes what it built and, for a
root volume, the node's ``local_gb`` and ``raid_level`` capability follow
it, so scheduling sees the disk the instance will get.
"""

from __future__ import annotations

import logging
from typing import Any

from ironic.common import exception, states
from ironic.conf import CONF
from ironic.drivers import base
from ironic.drivers.modules import (
    agent_client,
    agent_state,
    agent_steps,
    pxe_info,
)
from ironic.task import Task

LOG = logging.getLogger(__name__)

APPLY_ARGSINFO = {
    "raid_config": {"description": "The RAID configuration to apply, as "
                                   "in target_raid_config.",
                    "required": True},
    "delete_existing": {"description": "Delete the existing RAID "
                                       "configuration first (default "
                                       "true).",
                        "required": False},
}
_SENT_KEYS = ("interface", "step", "priority", "args", "abortable",
              "reboot_requested")
#: Clean steps whose priority an option may change.
_PRIORITY_OPTIONS = {"create_configuration": "create_configuration_priority",
                     "delete_configuration": "delete_configuration_priority"}


def filter_target(node: Any, root: bool, nonroot: bool) -> dict:
    """The node's target RAID configuration reduced to the root volume
    and/or the other volumes; MissingParameterValue when nothing is left."""
    target = node.target_raid_config or {}
    disks = [d for d in target.get("logical_disks") or []
             if (root if d.get("is_root_volume") else nonroot)]
    if not disks:
        raise exception.MissingParameterValue(
            err=f"Node {node.uuid} has no logical disk to create in its "
                f"target_raid_config (create_root_volume={root}, "
                f"create_nonroot_volumes={nonroot}).")
    return {"logical_disks": disks}


def record_built(node: Any, config: dict) -> None:
    """Store what the agent built; the root volume's size and level
    become the node's local_gb and raid_level capability."""
    node.raid_config = config
    root = next((d for d in config.get("logical_disks") or []
                 if d.get("is_root_volume")), None)
    if root is None:
        return
    props = dict(node.properties or {})
    if isinstance(root.get("size_gb"), int):
        props["local_gb"] = root["size_gb"]
    caps = pxe_info.parse_capabilities(props.get("capabilities"))
    caps["raid_level"] = str(root.get("raid_level"))
    props["capabilities"] = ",".join(f"{k}:{v}" for k, v in caps.items())
    node.properties = props


class AgentRAID(agent_steps.AgentStepsMixin, base.RAIDInterface):
    """RAID configured by the agent ramdisk's hardware managers."""

    inband_kinds = ("clean", "deploy")

    def get_properties(self) -> dict[str, str]:
        return {}

    def validate(self, task: Task) -> None:
        target = task.node.target_raid_config
        if target:
            self.validate_raid_config(task, target)

    def get_clean_steps(self, task: Task) -> list[dict]:
        steps = super().get_clean_steps(task)
        for step in steps:
            option = _PRIORITY_OPTIONS.get(step["step"])
            if step["interface"] == "raid" and option and \
                    getattr(CONF.deploy, option) is not None:
                step["priority"] = getattr(CONF.deploy, option)
        return steps

    # --- the steps -------------------------------------------------------------

    @base.clean_step(priority=0, argsinfo={
        "create_root_volume": {"description": "Create the root volume "
                                              "(default true).",
                               "required": False},
        "create_nonroot_volumes": {"description": "Create the other "
                                                  "volumes (default true).",
                                   "required": False}})
    def create_configuration(self, task: Task, create_root_volume: bool = True,
                             create_nonroot_volumes: bool = True,
                             delete_existing: bool = False) -> str:
        target = filter_target(task.node, create_root_volume,
                               create_nonroot_volumes)
        self.validate_raid_config(task, target)
        # The agent builds the target it is given; the flags are ours.
        return self._in_agent(task, "clean", target, args={})

    @base.clean_step(priority=0)
    @base.deploy_step(priority=0)
    def delete_configuration(self, task: Task) -> str:
        deploying = task.node.provision_state in (states.DEPLOYING,
                                                  states.DEPLOYWAIT)
        return self._in_agent(task, "deploy" if deploying else "clean")

    @base.deploy_step(priority=0, argsinfo=APPLY_ARGSINFO)
    def apply_configuration(self, task: Task, raid_config: dict,
                            delete_existing: bool = True) -> str:
        self.validate_raid_config(task, raid_config)
        return self._in_agent(task, "deploy", raid_config)

    def _in_agent(self, task: Task, kind: str, target: dict | None = None,
                  args: dict | None = None) -> str:
        """Send the current step to the agent (with ``target`` as the
        node's target_raid_config, ``args`` as its arguments when given);
        the wait state."""
        node = task.node
        step = getattr(node, f"{kind}_step") or {}
        sent = {k: step[k] for k in _SENT_KEYS if k in step}
        if args is not None:
            sent["args"] = args
        version = agent_state.AgentInfo(node).hardware_manager_version

        def send(client: agent_client.AgentClient) -> dict:
            document = agent_client.node_document(node)
            if target is not None:
                document["target_raid_config"] = target
            params = {"node": document, "step": sent,
                      "ports": agent_client.port_documents(task.ports),
                      f"{kind}_version": version}
            return client.command(f"{kind}.execute_{kind}_step", params)

        LOG.info("Node %s: the agent runs RAID step %s", node.uuid,
                 sent.get("step"))
        return self.run_agent_command(task, kind, f"execute_{kind}_step",
                                      send)

    # --- results ------------------------------------------------------------

    def agent_step_finished(self, task: Task, kind: str, step: dict,
                            result: dict) -> None:
        """Record what a finished RAID step changed on the node."""
        node = task.node
        name = step.get("step")
        if name == "delete_configuration":
            node.raid_config = {}
            return
        if name not in ("create_configuration", "apply_configuration"):
            return
        built = (result.get("command_result") or {}).get(f"{kind}_result")
        if not isinstance(built, dict) or \
                not isinstance(built.get("logical_disks"), list):
            raise exception.IronicException(
                f"The agent of node {node.uuid} reported no RAID "
                f"configuration after {name}: {built!r}")
        record_built(node, built)
        LOG.info("Node %s: RAID configuration built with %d logical "
                 "disks", node.uuid, len(built["logical_disks"]))
