"""The provision state machine: every verb from where it is allowed."""

import pathlib

import pytest
from automaton import exceptions as fsm_exc

from ironic.common import states, states_diagram

S = states


@pytest.mark.parametrize("src,event,dst", [
    (S.ENROLL, "manage", S.VERIFYING),
    (S.VERIFYING, "done", S.MANAGEABLE),
    (S.VERIFYING, "fail", S.ENROLL),
    (S.MANAGEABLE, "inspect", S.INSPECTING),
    (S.INSPECTWAIT, "abort", S.INSPECTFAIL),
    (S.MANAGEABLE, "provide", S.CLEANING),
    (S.CLEANING, "done", S.AVAILABLE),
    (S.CLEANING, "manage", S.MANAGEABLE),
    (S.CLEANWAIT, "abort", S.CLEANFAIL),
    (S.CLEANHOLD, "unhold", S.CLEANWAIT),
    (S.AVAILABLE, "deploy", S.DEPLOYING),
    (S.DEPLOYING, "wait", S.DEPLOYWAIT),
    (S.DEPLOYWAIT, "resume", S.DEPLOYING),
    (S.DEPLOYING, "done", S.ACTIVE),
    (S.ACTIVE, "rebuild", S.DEPLOYING),
    (S.ACTIVE, "deleted", S.DELETING),
    (S.DELETING, "clean", S.CLEANING),
    (S.MANAGEABLE, "adopt", S.ADOPTING),
    (S.ADOPTFAIL, "adopt", S.ADOPTING),
    (S.ACTIVE, "rescue", S.RESCUING),
    (S.RESCUEWAIT, "abort", S.RESCUEFAIL),
    (S.RESCUE, "unrescue", S.UNRESCUING),
    (S.UNRESCUING, "done", S.ACTIVE),
    (S.ACTIVE, "service", S.SERVICING),
    (S.SERVICEWAIT, "abort", S.SERVICEFAIL),
    (S.DEPLOYFAIL, "deleted", S.DELETING),
])
def test_transition(src, event, dst):
    assert states.next_state(src, event) == dst


@pytest.mark.parametrize("src,event", [
    (S.ENROLL, "deploy"), (S.AVAILABLE, "rescue"), (S.ACTIVE, "provide"),
    (S.MANAGEABLE, "abort"), (S.CLEANING, "abort"), (S.ACTIVE, "bogus"),
])
def test_invalid_transition(src, event):
    with pytest.raises(fsm_exc.NotFound):
        states.next_state(src, event)


def test_every_public_state_and_verb_is_in_the_machine():
    public = {S.ENROLL, S.VERIFYING, S.MANAGEABLE, S.INSPECTING,
              S.INSPECTWAIT, S.INSPECTFAIL, S.CLEANING, S.CLEANWAIT,
              S.CLEANFAIL, S.AVAILABLE, S.DEPLOYING, S.DEPLOYWAIT,
              S.DEPLOYFAIL, S.ACTIVE, S.DELETING, S.ERROR, S.ADOPTING,
              S.ADOPTFAIL, S.RESCUING, S.RESCUEWAIT, S.RESCUEFAIL, S.RESCUE,
              S.UNRESCUING, S.UNRESCUEFAIL, S.SERVICING, S.SERVICEWAIT,
              S.SERVICEFAIL}
    assert public <= states.ALL_STATES
    events = {e for _, e, _ in states.transitions()}
    assert set(states.VERBS.values()) <= events
    assert set(states.VERBS) == set(states.VERB_SINCE)


def test_every_wait_state_can_be_aborted():
    for state in states.WAIT_STATES | states.HOLD_STATES:
        assert "abort" in states.allowed_events(state), state


def test_every_failure_state_has_a_way_out():
    for state in states.FAILURE_STATES:
        api = [e for e in states.allowed_events(state)
               if e not in states.INTERNAL_EVENTS]
        assert api, state


def test_targets():
    assert states.target_for(S.DEPLOYING) == S.ACTIVE
    assert states.target_for(S.ACTIVE) is None
    assert states.target_for(S.CLEANING, S.MANAGEABLE) == S.MANAGEABLE
    for state in states.ALL_STATES - states.STABLE_STATES:
        assert states.target_for(state) is not None, state


def test_committed_diagram_is_current():
    path = (pathlib.Path(__file__).resolve().parents[4] / "doc" / "source"
            / "images" / "states.dot")
    assert path.read_text() == states_diagram.dot(), \
        "run tools/states_diagram.py to redraw the state diagram"
