"""In-band steps through the ramdisk agent, driven by its heartbeats.

The agent (IPA) boots, looks its node up, and heartbeats. On the first
heartbeat of a ramdisk boot in ``wait call-back``, ``clean wait`` or
``service wait``, the interface asks the agent for its in-band steps
(``<kind>.get_<kind>_steps``), keeps them on the node, lets the conductor
plan again with them (user and template steps naming them are checked only
now) and resumes the steps. An in-band step runs as
``<kind>.execute_<kind>_step``; it always ends the worker in the wait state
and the heartbeats then poll ``GET /v1/commands/`` until it finished:
success resumes the steps (after rebooting into the ramdisk when the step
asked for it), failure fails the operation with the agent's error.

Heartbeats arrive with the node locked by the conductor's RPC handler; the
work is handed to a worker (``task.spawn_after``), so the agent's request
is answered at once.
"""

from __future__ import annotations

import collections
import datetime
import logging
import threading
from typing import TYPE_CHECKING, Any

from ironic.common import states, utils
from ironic.conf import CONF
from ironic.drivers import base
from ironic.drivers.modules import agent_client, agent_logs, agent_state
from ironic.task import Task

LOG = logging.getLogger(__name__)

#: The wait state of each kind of steps, and back.
WAIT_STATE = {"deploy": states.DEPLOYWAIT, "clean": states.CLEANWAIT,
              "service": states.SERVICEWAIT}
KIND_OF_WAIT = {state: kind for kind, state in WAIT_STATE.items()}

#: In-band deploy steps run while the agent is up: after ``deploy`` (100)
#: booted it and before ``tear_down_agent`` (40) shuts it down.
INBAND_DEPLOY_PRIORITIES = range(41, 100)


def ramdisk_params(task: Task) -> dict[str, str]:
    """Kernel parameters of the agent ramdisk (for the boot interface)."""
    return {"ipa-api-url": utils.ramdisk_api_url()}


def step_id(step: dict) -> str:
    return f"{step.get('interface')}.{step.get('step')}"


def _touch(node: Any) -> None:
    """A heartbeat shows the agent is alive: the wait timeout restarts."""
    node.provision_updated_at = datetime.datetime.now(
        datetime.timezone.utc).replace(tzinfo=None)


if TYPE_CHECKING:
    # What the mixins expect of the interface classes they are mixed into.
    InterfaceBase = base.BaseInterface
else:
    InterfaceBase = object


class AgentStepsMixin(InterfaceBase):
    """In-band steps through the agent, resumed by its heartbeats."""

    #: Kinds of steps the agent runs for this interface.
    inband_kinds: tuple[str, ...] = ("deploy", "clean", "service")

    # -- the steps offered -------------------------------------------------

    def inband_steps_pending(self, task: Task, kind: str) -> set[str]:
        """Interfaces whose in-band steps are not known yet (the agent
        reports them on its first heartbeat)."""
        if kind in self.inband_kinds and \
                agent_state.AgentInfo(task.node).cached_steps(kind) is None:
            return {self.interface_type}
        return set()

    def _inband_steps(self, task: Task, kind: str) -> list[dict]:
        """The agent's steps for this interface that no declared (out of
        band) step of the same name shadows."""
        if kind not in self.inband_kinds:
            return []
        cached = agent_state.AgentInfo(task.node).cached_steps(kind) or {}
        declared = self._declared_steps[kind]
        return [s for s in cached.get(self.interface_type, [])
                if s["step"] not in declared]

    def is_inband(self, kind: str, step: dict) -> bool:
        return step.get("interface") == self.interface_type and \
            step.get("step") not in self._declared_steps[kind]

    def get_deploy_steps(self, task: Task) -> list[dict]:
        found = list(super().get_deploy_steps(task))
        for step in self._inband_steps(task, "deploy"):
            priority = step.get("priority") or 0
            if priority and priority not in INBAND_DEPLOY_PRIORITIES:
                LOG.warning("Node %s: ignoring in-band deploy step %s of "
                            "priority %s: in-band deploy steps must have a "
                            "priority from 41 to 99", task.node.uuid,
                            step_id(step), priority)
                continue
            found.append(step)
        return found

    def get_clean_steps(self, task: Task) -> list[dict]:
        overrides = {"erase_devices": CONF.deploy.erase_devices_priority,
                     "erase_devices_metadata":
                         CONF.deploy.erase_devices_metadata_priority}
        found = list(super().get_clean_steps(task))
        for step in self._inband_steps(task, "clean"):
            if overrides.get(step["step"]) is not None:
                step["priority"] = overrides[step["step"]]
            found.append(step)
        return found

    def get_service_steps(self, task: Task) -> list[dict]:
        return list(super().get_service_steps(task)) + \
            self._inband_steps(task, "service")

    def screen_deploy_steps(self, task: Task, planned: list[dict]
                            ) -> list[dict]:
        """Drop in-band deploy steps that would run while the agent is
        down (templates can give any priority)."""
        kept = []
        for step in planned:
            if self.is_inband("deploy", step) and \
                    step.get("priority") not in INBAND_DEPLOY_PRIORITIES:
                LOG.warning("Node %s: in-band deploy step %s with priority "
                            "%s is ignored: it must be from 41 to 99",
                            task.node.uuid, step_id(step),
                            step.get("priority"))
                continue
            kept.append(step)
        return kept

    def refresh_steps(self, task: Task, kind: str) -> None:
        """Ask the agent for its ``kind`` steps and keep them."""
        node = task.node
        result = agent_client.AgentClient(node).get_steps(kind, task.ports)
        offered = result.get(f"{kind}_steps")
        if not isinstance(offered, dict):
            raise agent_client.AgentCommandError(
                node=node.uuid, command=f"{kind}.get_{kind}_steps",
                error=f"no {kind}_steps in the result {result!r}")
        by_iface: dict[str, list[dict]] = collections.defaultdict(list)
        for manager_steps in offered.values():
            for step in manager_steps or []:
                missing = {"interface", "step", "priority"} - set(step)
                if missing:
                    raise agent_client.AgentCommandError(
                        node=node.uuid, command=f"{kind}.get_{kind}_steps",
                        error=f"step {step!r} lacks {sorted(missing)}")
                if kind != "deploy":
                    step = dict(step, requires_ramdisk=True)
                by_iface[step["interface"]].append(step)
        agent_state.AgentInfo(node).set_cached_steps(
            kind, dict(by_iface), result.get("hardware_manager_version"))
        node.save()
        LOG.info("Node %s: the agent offers %d %s steps", node.uuid,
                 sum(len(v) for v in by_iface.values()), kind)

    # -- running in-band steps ----------------------------------------------

    def execute_deploy_step(self, task: Task, step: dict) -> Any:
        return self._execute("deploy", task, step)

    def execute_clean_step(self, task: Task, step: dict) -> Any:
        return self._execute("clean", task, step)

    def execute_service_step(self, task: Task, step: dict) -> Any:
        return self._execute("service", task, step)

    def _execute(self, kind: str, task: Task, step: dict) -> Any:
        if not self.is_inband(kind, step):
            return self._execute_step(kind, task, step)
        sent = {k: step[k] for k in ("interface", "step", "priority",
                                     "args", "abortable",
                                     "reboot_requested") if k in step}
        version = agent_state.AgentInfo(task.node).hardware_manager_version
        return self.run_agent_command(
            task, kind, f"execute_{kind}_step",
            lambda client: client.execute_step(kind, sent, task.ports,
                                               version))

    def run_agent_command(self, task: Task, kind: str, name: str,
                          send: Any) -> str:
        """Start an asynchronous agent command for the current step and
        wait (in the wait state) for the heartbeats to see it finish."""
        node = task.node
        info = agent_state.AgentInfo(node)
        try:
            result = send(agent_client.AgentClient(node))
        except agent_client.AgentInProgress as e:
            LOG.info("Node %s: %s; trying again on the next heartbeat",
                     node.uuid, e)
            return self._retry_later(task, kind)
        except agent_client.AgentConnectionFailed:
            if info.rebooting(kind):
                LOG.info("Node %s: the agent is not up yet after the "
                         "reboot; waiting for its heartbeat", node.uuid)
                return self._retry_later(task, kind)
            raise
        if not result.get("command_status"):
            raise agent_client.AgentCommandError(
                node=node.uuid, command=name,
                error=f"bad command result {result!r}")
        info.await_command(kind, name)
        node.save()
        return WAIT_STATE[kind]

    def _retry_later(self, task: Task, kind: str) -> str:
        task.conductor.repeat_current_step(kind)
        agent_state.AgentInfo(task.node).clear_pending_command()
        task.node.save()
        return WAIT_STATE[kind]

    # -- heartbeats -----------------------------------------------------------

    def heartbeat(self, task: Task, callback_url: str,
                  agent_version: str | None, **kwargs: Any) -> None:
        node = task.node
        kind = KIND_OF_WAIT.get(node.provision_state)
        if kind is None or kind not in self.inband_kinds:
            LOG.debug("Heartbeat of node %s in state %s: nothing to do",
                      node.uuid, node.provision_state)
            return
        _touch(node)
        node.save()
        task.spawn_after(self._continue, task, kind)

    def ignores_heartbeat(self, node: Any) -> bool:
        """Nothing to do outside the wait states of this interface's
        in-band steps (see ``heartbeat``); a subclass with its own
        ``heartbeat`` is never taken for idle."""
        if type(self).heartbeat is not AgentStepsMixin.heartbeat:
            return False
        kind = KIND_OF_WAIT.get(node.provision_state)
        return kind is None or kind not in self.inband_kinds

    def _continue(self, task: Task, kind: str) -> None:
        """Worker: act on a heartbeat of a node waiting in ``kind``."""
        node = task.node
        if node.provision_state != WAIT_STATE[kind]:
            return
        doing = "Failed to load the agent's in-band steps"
        try:
            info = agent_state.AgentInfo(node)
            if info.cached_steps(kind) is None:
                self.refresh_steps(task, kind)
                doing = f"Failed to plan the {kind} steps with the agent's"
                task.conductor.replan_steps(kind)
                node.save()
            doing = f"Failed to continue the {kind} steps"
            self._process(task, kind)
        except agent_client.AgentInProgress as e:
            LOG.info("Node %s: %s; trying again on the next heartbeat",
                     node.uuid, e)
        except Exception as e:  # noqa: BLE001 - the node records it
            LOG.exception("Node %s: heartbeat processing failed",
                          node.uuid)
            if node.provision_state in (WAIT_STATE[kind],
                                        *_WORKING.get(kind, ())):
                task.conductor.fail_steps(kind, f"{doing}: {e}")

    def _process(self, task: Task, kind: str) -> None:
        node = task.node
        info = agent_state.AgentInfo(node)
        if info.rebooting(kind):
            LOG.info("Node %s: the agent is back after the reboot a step "
                     "asked for", node.uuid)
            info.set_rebooting(kind, False)
            info.clear_pending_command()
            node.save()
            task.conductor.resume_steps(kind)
            return
        pending = info.pending_command
        if pending is None:
            # The step that waited was waiting for the agent itself.
            task.conductor.resume_steps(kind)
            return
        result = agent_client.AgentClient(node).last_command(pending["name"])
        self._check_result(task, kind, pending["name"], result)

    def _check_result(self, task: Task, kind: str, name: str,
                      result: dict | None) -> None:
        node = task.node
        current = getattr(node, f"{kind}_step") or {}
        if result is None or not self._result_is_for(kind, result, current):
            LOG.warning("Node %s: the agent has no result of %s for step "
                        "%s (it may have restarted); running the step "
                        "again", node.uuid, name, step_id(current))
            self._retry_later(task, kind)
            task.conductor.resume_steps(kind)
            return
        status = result.get("command_status")
        if status == agent_client.RUNNING:
            return
        agent_state.AgentInfo(node).clear_pending_command()
        if status == agent_client.SUCCEEDED:
            self._step_done(task, kind, current, result)
        elif status in agent_client.VERSION_MISMATCH:
            self._version_mismatch(task, kind)
        else:
            error = agent_client.command_error(result)
            agent_logs.on_failure(task, _LOG_LABELS.get(kind))
            task.conductor.fail_steps(kind, f"{kind.capitalize()} step "
                                      f"{step_id(current)} failed on node "
                                      f"{node.uuid}: {error}")

    @staticmethod
    def _result_is_for(kind: str, result: dict, current: dict) -> bool:
        """Whether an execute_<kind>_step result is of the current step
        (an older step's result says the current one never started)."""
        if result.get("command_name") != f"execute_{kind}_step":
            return True
        ran = (result.get("command_result") or {}).get(f"{kind}_step")
        if result.get("command_status") == agent_client.RUNNING or not ran:
            return True
        return (ran.get("interface"), ran.get("step")) == \
            (current.get("interface"), current.get("step"))

    def _step_done(self, task: Task, kind: str, current: dict,
                   result: dict | None = None) -> None:
        node = task.node
        # The interface that owns the step may record what it produced
        # (e.g. the RAID configuration the agent built) before moving on.
        owner = getattr(task.driver, current.get("interface") or "", None)
        finished = getattr(owner, "agent_step_finished", None)
        if finished is not None:
            finished(task, kind, current, result or {})
        if current.get("reboot_requested"):
            LOG.info("Node %s: step %s asked for a reboot", node.uuid,
                     step_id(current))
            self.boot_agent(task)
            agent_state.AgentInfo(node).set_rebooting(kind, True)
            node.save()
            return
        node.save()
        task.conductor.resume_steps(kind)

    def _version_mismatch(self, task: Task, kind: str) -> None:
        """The agent's hardware managers changed since it gave its steps."""
        node = task.node
        if kind == "deploy":
            task.conductor.fail_steps(kind, "The agent's hardware managers "
                                      "changed during the deployment "
                                      "(version mismatch); deploy again.")
            return
        self.refresh_steps(task, kind)
        automated = kind == "clean" and \
            node.target_provision_state != states.MANAGEABLE
        if automated:
            LOG.info("Node %s: agent version changed, automated cleaning "
                     "starts over", node.uuid)
            task.conductor.restart_automated_steps(kind)
        else:
            self._retry_later(task, kind)
        node.save()
        task.conductor.resume_steps(kind)

    # -- booting the agent -------------------------------------------------

    def boot_agent(self, task: Task) -> None:
        """Make the node boot the agent ramdisk now (reboot or power on),
        or, with fast track, use the agent that is running."""
        node = task.node
        agent_state.AgentInfo(node).clear_pending_command()
        if task.conductor.fast_track_usable():
            self._kick_running_agent(task)
            return
        task.conductor.forget_agent_before_ramdisk()
        task.driver.boot.prepare_ramdisk(task, ramdisk_params(task))
        if task.driver.power.get_power_state(task) == states.POWER_ON:
            task.conductor.power_action(states.REBOOT)
        else:
            task.conductor.power_action(states.POWER_ON)

    def _kick_running_agent(self, task: Task) -> None:
        """Fast track: act as on the running agent's next heartbeat, as
        soon as the caller has moved the node to its wait state and
        released it (the agent only heartbeats every few minutes when
        idle)."""
        node_uuid, conductor = task.node.uuid, task.conductor

        def kick() -> None:
            try:
                with conductor.acquire(purpose="fast track") as t:
                    info = t.node.driver_internal_info or {}
                    if t.node.provision_state in KIND_OF_WAIT and \
                            t.conductor.agent_alive():
                        self.heartbeat(t, info["agent_url"],
                                       info.get("agent_version"))
            except Exception:  # noqa: BLE001 - the next heartbeat retries
                LOG.exception("Node %s: fast track could not resume with "
                              "the running agent; waiting for its "
                              "heartbeat", node_uuid)

        timer = threading.Timer(0.1, kick)
        timer.daemon = True
        timer.start()


# The label of collected agent logs, by operation (none for deployments).
_LOG_LABELS = {"clean": "cleaning", "service": "service"}

# Failing from these working states is also the interface's job.
_WORKING = {"deploy": (states.DEPLOYING,), "clean": (states.CLEANING,),
            "service": (states.SERVICING,)}
