"""Resuming after a wait: continue_node_steps skips or repeats the step
that asked to wait; unhold goes on with the steps."""

from __future__ import annotations

import pytest

from ironic.common import exception, states
from ironic.drivers.modules import fake
from ironic.tests.unit.conductor.test_lifecycle import (
    _node,
    _provision,
    _state,
)

BIOS = {"interface": "bios", "step": "factory_reset"}


@pytest.fixture
def runs(monkeypatch):
    """factory_reset waits the first time it runs, then finishes."""
    seen = []

    def factory_reset(self, task):
        seen.append(task.node.provision_state)
        return states.CLEANWAIT if len(seen) == 1 else None
    monkeypatch.setattr(fake.FakeBIOS, "factory_reset", factory_reset)
    return seen


def _clean_wait(env):
    uuid = _node(env[0])
    _provision(env, uuid, "manage")
    _provision(env, uuid, "clean", clean_steps=[BIOS])
    assert _state(env, uuid)[0] == states.CLEANWAIT
    return uuid


@pytest.mark.parametrize("skip_current,times", [(True, 1), (False, 2)])
def test_continue_skips_or_repeats_the_waiting_step(env, runs,
                                                    skip_current, times):
    api, svc = env
    uuid = _clean_wait(env)
    svc.manager.continue_node_steps(None, uuid, skip_current=skip_current)
    assert svc.pool.wait_idle(10)
    assert _state(env, uuid) == (states.MANAGEABLE, None, None)
    assert len(runs) == times
    info = api.get(f"/v1/nodes/{uuid}").json["driver_internal_info"]
    assert not [k for k in info if k.startswith(("clean_", "skip_"))]


def test_continue_outside_a_wait_is_refused(env):
    uuid = _node(env[0])
    with pytest.raises(exception.InvalidStateRequested):
        env[1].manager.continue_node_steps(None, uuid)
    assert _state(env, uuid) == (states.ENROLL, None, None)


def test_unhold_goes_on_with_the_steps(env, runs):
    uuid = _node(env[0])
    _provision(env, uuid, "manage")
    _provision(env, uuid, "clean", clean_steps=[
        {"interface": "deploy", "step": "hold"}, BIOS])
    assert _state(env, uuid)[0] == states.CLEANHOLD
    _provision(env, uuid, "unhold")
    assert _state(env, uuid)[0] == states.CLEANWAIT
    assert runs == [states.CLEANING]
