"""Public node states of the Bare Metal API and the provision state machine.

The machine is built once, from the transition table below, with automaton.
Conductors never assign ``provision_state`` themselves: they copy the machine,
start it at the node's state and feed it an event, so every move a node can
make is listed in ``_TRANSITIONS`` (and drawn by ``tools/states_diagram.py``).
"""

from __future__ import annotations

from automaton import machines

# Provision states (stable and transient), as the API shows them.
ENROLL = "enroll"
VERIFYING = "verifying"
MANAGEABLE = "manageable"
INSPECTING = "inspecting"
INSPECTWAIT = "inspect wait"
INSPECTFAIL = "inspect failed"
CLEANING = "cleaning"
CLEANWAIT = "clean wait"
CLEANHOLD = "clean hold"
CLEANFAIL = "clean failed"
AVAILABLE = "available"
DEPLOYING = "deploying"
DEPLOYWAIT = "wait call-back"
DEPLOYHOLD = "deploy hold"
DEPLOYFAIL = "deploy failed"
ACTIVE = "active"
DELETING = "deleting"
ERROR = "error"
REBUILD = "rebuild"
ADOPTING = "adopting"
ADOPTFAIL = "adopt failed"
RESCUING = "rescuing"
RESCUEWAIT = "rescue wait"
RESCUEFAIL = "rescue failed"
RESCUE = "rescue"
UNRESCUING = "unrescuing"
UNRESCUEFAIL = "unrescue failed"
SERVICING = "servicing"
SERVICEWAIT = "service wait"
SERVICEHOLD = "service hold"
SERVICEFAIL = "service failed"
NOSTATE = None

# Verbs of ``PUT /v1/nodes/{node}/states/provision`` (the API's "target").
VERBS = {
    "manage": "manage", "provide": "provide", "inspect": "inspect",
    "clean": "clean", "active": "deploy", "deploy": "deploy",
    "rebuild": "rebuild", "deleted": "deleted", "undeploy": "deleted",
    "adopt": "adopt", "rescue": "rescue", "unrescue": "unrescue",
    "abort": "abort", "service": "service", "unhold": "unhold",
}
# Minor API version that introduced each verb.
VERB_SINCE = {
    "active": 1, "deleted": 1, "rebuild": 1, "manage": 4, "provide": 4,
    "inspect": 6, "abort": 13, "clean": 15, "adopt": 17, "rescue": 38,
    "unrescue": 38, "deploy": 73, "undeploy": 73, "unhold": 85,
    "service": 87,
}

# Power states.
POWER_ON = "power on"
POWER_OFF = "power off"
REBOOT = "rebooting"
SOFT_REBOOT = "soft rebooting"
SOFT_POWER_OFF = "soft power off"
POWER_TARGETS = (POWER_ON, POWER_OFF, REBOOT, SOFT_REBOOT, SOFT_POWER_OFF)

# A node may be deleted only when nothing is, or could be, running on it.
DELETE_ALLOWED_STATES = frozenset({
    AVAILABLE, MANAGEABLE, ENROLL, ADOPTFAIL, INSPECTFAIL})

# Where a node rests until an API request moves it.
STABLE_STATES = frozenset({ENROLL, MANAGEABLE, AVAILABLE, ACTIVE, ERROR,
                           RESCUE})
# Where a node waits for the ramdisk or for a driver's periodic poll.
WAIT_STATES = frozenset({INSPECTWAIT, CLEANWAIT, DEPLOYWAIT, RESCUEWAIT,
                         SERVICEWAIT})
HOLD_STATES = frozenset({CLEANHOLD, DEPLOYHOLD, SERVICEHOLD})
FAILURE_STATES = frozenset({INSPECTFAIL, CLEANFAIL, DEPLOYFAIL, ADOPTFAIL,
                            RESCUEFAIL, UNRESCUEFAIL, SERVICEFAIL})
# States in which a conductor worker runs; a crash leaves a node here.
WORKING_STATES = frozenset({VERIFYING, INSPECTING, CLEANING, DEPLOYING,
                            DELETING, ADOPTING, RESCUING, UNRESCUING,
                            SERVICING})
# A node in these is mid-operation: settings the operation may rely on
# (boot mode, secure boot) must not change under it.
UNSTABLE_STATES = WORKING_STATES | WAIT_STATES
# Where the agent may look the node up and heartbeat.
LOOKUP_ALLOWED_STATES = frozenset({INSPECTING, INSPECTWAIT, CLEANING,
                                   CLEANWAIT, DEPLOYING, DEPLOYWAIT,
                                   RESCUING, RESCUEWAIT, SERVICING,
                                   SERVICEWAIT})

# Target shown as target_provision_state while a node is in each state
# that is not stable. CLEANING's target depends on the request (manual
# cleaning ends in manageable) and is given by the caller.
TARGETS: dict[str, str | None] = {
    VERIFYING: MANAGEABLE, INSPECTING: MANAGEABLE, INSPECTWAIT: MANAGEABLE,
    INSPECTFAIL: MANAGEABLE, CLEANING: AVAILABLE, CLEANWAIT: AVAILABLE,
    CLEANHOLD: AVAILABLE, CLEANFAIL: AVAILABLE, DEPLOYING: ACTIVE,
    DEPLOYWAIT: ACTIVE, DEPLOYHOLD: ACTIVE, DEPLOYFAIL: ACTIVE,
    DELETING: AVAILABLE, ADOPTING: ACTIVE, ADOPTFAIL: ACTIVE,
    RESCUING: RESCUE, RESCUEWAIT: RESCUE, RESCUEFAIL: RESCUE,
    UNRESCUING: ACTIVE, UNRESCUEFAIL: ACTIVE, SERVICING: ACTIVE,
    SERVICEWAIT: ACTIVE, SERVICEHOLD: ACTIVE, SERVICEFAIL: ACTIVE,
}

# (from, event, to). Events named like API verbs are started by the API;
# done/fail/wait/resume/hold/error are the conductor's own.
_TRANSITIONS: tuple[tuple[str, str, str], ...] = (
    (ENROLL, "manage", VERIFYING),
    (VERIFYING, "done", MANAGEABLE),
    (VERIFYING, "fail", ENROLL),
    (MANAGEABLE, "provide", CLEANING),
    (MANAGEABLE, "clean", CLEANING),
    (MANAGEABLE, "inspect", INSPECTING),
    (MANAGEABLE, "adopt", ADOPTING),
    (INSPECTING, "done", MANAGEABLE),
    (INSPECTING, "wait", INSPECTWAIT),
    (INSPECTING, "fail", INSPECTFAIL),
    (INSPECTWAIT, "resume", INSPECTING),
    (INSPECTWAIT, "done", MANAGEABLE),
    (INSPECTWAIT, "fail", INSPECTFAIL),
    (INSPECTWAIT, "abort", INSPECTFAIL),
    (INSPECTFAIL, "manage", MANAGEABLE),
    (INSPECTFAIL, "inspect", INSPECTING),
    (CLEANING, "done", AVAILABLE),
    (CLEANING, "manage", MANAGEABLE),
    (CLEANING, "wait", CLEANWAIT),
    (CLEANING, "hold", CLEANHOLD),
    (CLEANING, "fail", CLEANFAIL),
    (CLEANWAIT, "resume", CLEANING),
    (CLEANWAIT, "hold", CLEANHOLD),
    (CLEANWAIT, "fail", CLEANFAIL),
    (CLEANWAIT, "abort", CLEANFAIL),
    (CLEANHOLD, "unhold", CLEANWAIT),
    (CLEANHOLD, "abort", CLEANFAIL),
    (CLEANFAIL, "manage", MANAGEABLE),
    (AVAILABLE, "deploy", DEPLOYING),
    (AVAILABLE, "manage", MANAGEABLE),
    (DEPLOYING, "done", ACTIVE),
    (DEPLOYING, "wait", DEPLOYWAIT),
    (DEPLOYING, "hold", DEPLOYHOLD),
    (DEPLOYING, "fail", DEPLOYFAIL),
    (DEPLOYWAIT, "resume", DEPLOYING),
    (DEPLOYWAIT, "hold", DEPLOYHOLD),
    (DEPLOYWAIT, "fail", DEPLOYFAIL),
    (DEPLOYWAIT, "abort", DEPLOYFAIL),
    (DEPLOYWAIT, "deleted", DELETING),
    (DEPLOYHOLD, "unhold", DEPLOYWAIT),
    (DEPLOYHOLD, "abort", DEPLOYFAIL),
    (DEPLOYFAIL, "deploy", DEPLOYING),
    (DEPLOYFAIL, "rebuild", DEPLOYING),
    (DEPLOYFAIL, "deleted", DELETING),
    (ACTIVE, "rebuild", DEPLOYING),
    (ACTIVE, "deleted", DELETING),
    (ACTIVE, "rescue", RESCUING),
    (ACTIVE, "service", SERVICING),
    (DELETING, "clean", CLEANING),
    (DELETING, "error", ERROR),
    (ERROR, "rebuild", DEPLOYING),
    (ERROR, "deleted", DELETING),
    (ADOPTING, "done", ACTIVE),
    (ADOPTING, "fail", ADOPTFAIL),
    (ADOPTFAIL, "adopt", ADOPTING),
    (ADOPTFAIL, "manage", MANAGEABLE),
    (RESCUING, "done", RESCUE),
    (RESCUING, "wait", RESCUEWAIT),
    (RESCUING, "fail", RESCUEFAIL),
    (RESCUEWAIT, "resume", RESCUING),
    (RESCUEWAIT, "fail", RESCUEFAIL),
    (RESCUEWAIT, "abort", RESCUEFAIL),
    (RESCUEWAIT, "deleted", DELETING),
    (RESCUE, "rescue", RESCUING),
    (RESCUE, "unrescue", UNRESCUING),
    (RESCUE, "deleted", DELETING),
    (RESCUEFAIL, "rescue", RESCUING),
    (RESCUEFAIL, "unrescue", UNRESCUING),
    (RESCUEFAIL, "deleted", DELETING),
    (UNRESCUING, "done", ACTIVE),
    (UNRESCUING, "fail", UNRESCUEFAIL),
    (UNRESCUEFAIL, "rescue", RESCUING),
    (UNRESCUEFAIL, "unrescue", UNRESCUING),
    (UNRESCUEFAIL, "deleted", DELETING),
    (SERVICING, "done", ACTIVE),
    (SERVICING, "wait", SERVICEWAIT),
    (SERVICING, "hold", SERVICEHOLD),
    (SERVICING, "fail", SERVICEFAIL),
    (SERVICEWAIT, "resume", SERVICING),
    (SERVICEWAIT, "hold", SERVICEHOLD),
    (SERVICEWAIT, "fail", SERVICEFAIL),
    (SERVICEWAIT, "abort", SERVICEFAIL),
    (SERVICEWAIT, "deleted", DELETING),
    (SERVICEHOLD, "unhold", SERVICEWAIT),
    (SERVICEHOLD, "abort", SERVICEFAIL),
    (SERVICEHOLD, "service", SERVICING),
    (SERVICEFAIL, "service", SERVICING),
    (SERVICEFAIL, "rescue", RESCUING),
    (SERVICEFAIL, "abort", ACTIVE),
    (SERVICEFAIL, "deleted", DELETING),
)

# Events the conductor raises itself (drawn in gray in the diagram).
INTERNAL_EVENTS = frozenset({"done", "fail", "wait", "resume", "hold",
                             "error"})
ALL_STATES = frozenset(s for t in _TRANSITIONS for s in (t[0], t[2]))


def transitions() -> tuple[tuple[str, str, str], ...]:
    """Every (from state, event, to state) of the provision machine."""
    return _TRANSITIONS


def _build() -> machines.FiniteMachine:
    fsm = machines.FiniteMachine()
    for state in sorted(ALL_STATES):
        fsm.add_state(state)
    for src, event, dst in _TRANSITIONS:
        fsm.add_transition(src, dst, event)
    fsm.default_start_state = ENROLL
    fsm.freeze()
    return fsm


machine = _build()


def next_state(current: str, event: str) -> str:
    """The state ``event`` leads to from ``current``.

    Raises ``automaton.exceptions.NotFound`` (an unknown event for that
    state) or ``InvalidState`` - callers turn both into an API error.
    """
    fsm = machine.copy()
    fsm.initialize(current)
    fsm.process_event(event)
    return fsm.current_state


def allowed_events(current: str) -> list[str]:
    return sorted(e for s, e, _ in _TRANSITIONS if s == current)


def target_for(state: str, requested: str | None = None) -> str | None:
    """target_provision_state to show while a node is in ``state``."""
    if state in STABLE_STATES:
        return None
    if requested is not None:
        return requested
    return TARGETS.get(state)
