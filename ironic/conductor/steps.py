"""The steps engine shared by deployment, cleaning and servicing.

Steps ``{interface, step, priority, args}`` are gathered from every
interface of the node's driver, ordered by priority (highest first), stored
with the index of the running one in ``driver_internal_info`` and run one by
one. A step returning the kind's wait state ends the worker; the continue
call (agent heartbeat, driver poll, unhold) resumes after it. The stored
list is what a conductor taking the node over resumes from.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any, Callable, Sequence

from ironic import interfaces, metrics
from ironic.common import exception, states
from ironic.conductor import power, utils
from ironic.conductor.stopping import SHUTDOWN
from ironic.drivers import steps as driver_steps
from ironic.task import Task

LOG = logging.getLogger(__name__)

# Step names the conductor runs itself, on any interface.
RESERVED = ("hold", "wait", "power_on", "power_off", "reboot")


@dataclasses.dataclass(frozen=True)
class Kind:
    name: str            # clean, deploy, service
    field: str           # node field showing the running step
    wait_state: str      # what an asynchronous step returns

    @property
    def steps_key(self) -> str:
        return f"{self.name}_steps"

    @property
    def index_key(self) -> str:
        return f"{self.name}_step_index"


CLEAN = Kind("clean", "clean_step", states.CLEANWAIT)
DEPLOY = Kind("deploy", "deploy_step", states.DEPLOYWAIT)
SERVICE = Kind("service", "service_step", states.SERVICEWAIT)
KINDS = {k.name: k for k in (CLEAN, DEPLOY, SERVICE)}


def waiting_kind(state: str | None) -> Kind | None:
    """The kind of steps a node in ``state`` waits to go on with."""
    return next((k for k in KINDS.values() if k.wait_state == state), None)


# Steps of equal priority run in this order of their interfaces (the
# public rule: power, management, deploy, BIOS, RAID; vendor and firmware
# as cleaning places them); other interfaces follow, then by name.
INTERFACE_ORDER = {"vendor": 7, "power": 6, "management": 5, "firmware": 4,
                   "deploy": 3, "bios": 2, "raid": 1}


def sort_key(step: dict) -> tuple:
    return (-int(step.get("priority") or 0),
            -INTERFACE_ORDER.get(step["interface"], 0),
            step["interface"], step["step"])


# ---------------------------------------------------------------------------
# typed access to the step state kept in driver_internal_info

class StepState:
    """The step list and position of one kind, as stored on the node."""

    def __init__(self, node: Any, kind: Kind):
        self.node = node
        self.kind = kind

    @property
    def steps(self) -> list[dict]:
        return list((self.node.driver_internal_info or {}).get(
            self.kind.steps_key) or [])

    @property
    def index(self) -> int | None:
        return (self.node.driver_internal_info or {}).get(
            self.kind.index_key)

    def _update(self, **values: Any) -> None:
        utils.set_internal(self.node, **values)

    def resume_index(self) -> int:
        """Where to go on after an asynchronous step returns.

        Consumes ``skip_current_<kind>_step``: set to False, the step that
        was running is executed again instead of skipped.
        """
        key = f"skip_current_{self.kind.name}_step"
        skip = (self.node.driver_internal_info or {}).get(key, True)
        self._update(**{key: None})
        index = self.index
        return 0 if index is None else index + (1 if skip else 0)

    def repeat_current(self) -> None:
        """Run the step that was running again when the steps resume (it
        asked for it, or it may not have finished)."""
        self._update(**{f"skip_current_{self.kind.name}_step": False})

    def store(self, steps: list[dict]) -> None:
        self._update(**{self.kind.steps_key: steps,
                        self.kind.index_key: None})

    def at(self, index: int) -> dict:
        step = self.steps[index]
        self._update(**{self.kind.index_key: index})
        setattr(self.node, self.kind.field, step)
        return step

    def clear(self) -> None:
        self._update(**{self.kind.steps_key: None,
                        self.kind.index_key: None})
        setattr(self.node, self.kind.field, {})


# ---------------------------------------------------------------------------
# gathering and validating

def available(task: Task, kind: Kind) -> list[dict]:
    """Every step the node's interfaces offer for ``kind``."""
    found: list[dict] = []
    for iface_type in interfaces.TYPES:
        iface = getattr(task.driver, iface_type, None)
        if iface is None:
            continue
        getter = getattr(iface, f"get_{kind.name}_steps", None)
        if getter is not None:
            found.extend(getter(task) or [])
    return sorted(found, key=sort_key)


def automated(task: Task, kind: Kind, user_steps: Sequence[dict] = ()
              ) -> list[dict]:
    """The steps to run without an explicit list: priority above 0.

    User steps (deploy templates, the API's deploy_steps) replace a
    driver step of the same name (priority 0 disables it) or add to it.
    A user step the ramdisk agent may still offer (see ``pending``) is
    kept unchecked; it is checked once the agent told its steps.
    """
    steps = {(s["interface"], s["step"]): dict(s, args={})
             for s in available(task, kind) if s.get("priority")}
    offered = {(s["interface"], s["step"]): s
               for s in available(task, kind)}
    later = pending(task, kind)
    for user in user_steps:
        key = (user["interface"], user["step"])
        _check_user_step(task, kind, user, offered, later)
        steps[key] = dict(offered.get(key, {}), **user)
    return sorted((s for s in steps.values() if s.get("priority")),
                  key=sort_key)


def pending(task: Task, kind: Kind, disable_ramdisk: bool = False
            ) -> frozenset[str]:
    """Interfaces whose in-band steps of ``kind`` are not known yet: the
    deploy interface tells (its agent reports them after booting)."""
    if disable_ramdisk:
        return frozenset()
    deploy = getattr(task.driver, "deploy", None)
    ask = getattr(deploy, "inband_steps_pending", None)
    return frozenset(ask(task, kind.name)) if ask else frozenset()


def manual(task: Task, kind: Kind, user_steps: list[dict],
           disable_ramdisk: bool = False) -> list[dict]:
    """Validate steps given by a user for manual cleaning or servicing;
    they run in the order given.

    With ``disable_ramdisk`` (1.70 cleaning, 1.108 servicing) no ramdisk
    is booted, so every step must run out of band: a step that needs the
    agent is refused here, before the node moves.
    """
    offered = {(s["interface"], s["step"]): s
               for s in available(task, kind)}
    later = pending(task, kind, disable_ramdisk)
    out = []
    for user in user_steps:
        _check_user_step(task, kind, user, offered, later)
        base = offered.get((user["interface"], user["step"]), {})
        step = dict(base, **user)
        if disable_ramdisk and user["step"] not in RESERVED and \
                step.get("requires_ramdisk", True):
            raise exception.InvalidParameterValue(
                err=f"The {kind.name} step {user['interface']}."
                    f"{user['step']} needs the ramdisk (agent), which "
                    f"disable_ramdisk turns off; run it without "
                    f"disable_ramdisk.")
        out.append(step)
    return out


def _check_user_step(task: Task, kind: Kind, user: dict,
                     offered: dict, later: frozenset[str] = frozenset()
                     ) -> None:
    key = (user["interface"], user["step"])
    if user["step"] in RESERVED:
        return
    if key not in offered and user["interface"] in later:
        LOG.debug("Node %s: %s step %s.%s is checked once the agent "
                  "reports its steps", task.node.uuid, kind.name, *key)
        return
    if key not in offered:
        raise exception.InvalidParameterValue(
            err=f"Node {task.node.uuid} has no {kind.name} step "
                f"{user['step']!r} on its {user['interface']} interface; "
                f"available: {', '.join(sorted(f'{i}.{s}' for i, s in offered))}")
    # The offered step carries its argsinfo (in-band steps too: the agent
    # reported them); a declared step's is the same.
    argsinfo = offered[key].get("argsinfo") if "argsinfo" in offered[key] \
        else getattr(task.driver, user["interface"]).step_argsinfo(
            kind.name, user["step"])
    driver_steps.validate_user_args(user, argsinfo)


# ---------------------------------------------------------------------------
# running

def run(task: Task, kind: Kind, start: int) -> str | None:
    """Run stored steps from index ``start``.

    Returns None when every step ran, ``"wait"`` when a step is
    asynchronous and ``"hold"`` when a hold step stopped the sequence. The
    caller owns the state transitions.
    """
    state = StepState(task.node, kind)
    steps = state.steps
    if 0 < start <= len(steps):
        # Resumed: the step before ``start`` finished, maybe in the agent.
        done = steps[start - 1]
        metrics.step_resumed(task.node.uuid, kind.name, done["interface"],
                             done["step"])
    for index in range(start, len(steps)):
        step = state.at(index)
        task.node.save()
        LOG.info("Node %s: running %s step %s.%s", task.node.uuid,
                 kind.name, step["interface"], step["step"])
        with metrics.step(kind.name, step["interface"], step["step"],
                          node=task.node.uuid) as m:
            outcome = _execute(task, kind, step)
            m["outcome"] = ("wait" if outcome == kind.wait_state
                            else outcome or "done")
        if outcome in (kind.wait_state, "wait"):
            return "wait"
        if outcome == "hold":
            return "hold"
    state.clear()
    task.node.save()
    return None


def run_then(task: Task, kind: Kind, start: int,
             finish: Callable[[Task], None]) -> None:
    """Run stored steps from ``start``: a step that waits or holds moves
    the node to that state; ``finish`` runs once every step has."""
    outcome = run(task, kind, start)
    if outcome in ("wait", "hold"):
        task.process_event(outcome)
    else:
        finish(task)


def run_remaining(task: Task, kind: Kind,
                  finish: Callable[[Task], None],
                  fail: Callable[[Task, str], None]) -> None:
    """Worker: go on after an asynchronous step finished (the node back in
    its working state); an error fails the node through ``fail``."""
    start = StepState(task.node, kind).resume_index()
    try:
        run_then(task, kind, start, finish)
    except Exception as e:  # noqa: BLE001 - the node records it
        fail(task, f"Failed to run {kind.name} step: {e}")


def _execute(task: Task, kind: Kind, step: dict) -> str | None:
    name = step["step"]
    if name in RESERVED:
        return _reserved(task, name, step.get("args") or {})
    iface = getattr(task.driver, step["interface"], None)
    if iface is None:
        raise exception.InvalidParameterValue(
            err=f"The {step['interface']} interface of node "
                f"{task.node.uuid} is not available on this conductor.")
    return getattr(iface, f"execute_{kind.name}_step")(task, step)


def _reserved(task: Task, name: str, args: dict) -> str | None:
    if name == "hold":
        return "hold"
    if name == "wait":
        seconds = float(args.get("seconds", 0))
        if SHUTDOWN.wait(max(seconds, 0)):
            raise exception.IronicException(
                "The conductor stopped during a wait step.")
        return None
    target = {"power_on": states.POWER_ON, "power_off": states.POWER_OFF,
              "reboot": states.REBOOT}[name]
    power.node_power_action(task, target)
    return None


# ---------------------------------------------------------------------------
# entry points for interfaces that finish steps asynchronously (the agent's
# heartbeat): they hold the node's lock in a worker and hand back here

def _flow(kind: str) -> Any:
    from ironic.conductor import cleaning, deployments, servicing
    return {"deploy": deployments, "clean": cleaning,
            "service": servicing}[kind]


def resume(task: Task, kind: str) -> None:
    """Leave the wait state and run the steps after the current one."""
    task.process_event("resume")
    _flow(kind).continue_steps(task)


def fail(task: Task, kind: str, message: str) -> None:
    """Fail the operation of ``kind`` (a failed state with last_error)."""
    metrics.step_abandoned(task.node.uuid)
    _flow(kind).fail(task, message)


def replan(task: Task, kind: str) -> None:
    """The agent told its in-band steps: compute the step list again (now
    checking every user step), keeping the position of the current step."""
    _flow(kind).replan(task)


def keep_position(task: Task, kind: Kind, new_steps: list[dict]) -> None:
    """Store ``new_steps`` with the index pointing at the step running
    now (steps before it are the same: in-band steps come after)."""
    state = StepState(task.node, kind)
    current = getattr(task.node, kind.field) or {}
    index = state.index
    key = (current.get("interface"), current.get("step"))
    found = [i for i, s in enumerate(new_steps)
             if (s["interface"], s["step"]) == key]
    state.store(new_steps)
    if index is not None:
        utils.set_internal(task.node, **{
            kind.index_key: found[0] if found else index})
