"""Failures land in their documented failed state with last_error and a
typed history entry, and each documented recovery verb gets the node out.

An interface of the fake driver is made to raise, the verb that uses it
fails, the interface is repaired and the recovery verb is sent, all
through the API and an in-process conductor.
"""

from __future__ import annotations

import pytest

from ironic.common import states
from ironic.drivers.modules import fake
from ironic.tests.unit.conductor.test_lifecycle import (
    _node,
    _provision,
    _state,
)

S = states
BIOS = {"interface": "bios", "step": "factory_reset"}


class Breaker:
    """Makes one fake interface method raise, then repairs it."""

    def __init__(self, monkeypatch):
        self.monkeypatch = monkeypatch
        self.broken: list[tuple[type, str, object]] = []

    def break_(self, cls: type, name: str) -> str:
        message = f"{cls.__name__}.{name} is broken"

        def raise_(self, *args, **kwargs):
            raise RuntimeError(message)
        self.broken.append((cls, name, getattr(cls, name)))
        self.monkeypatch.setattr(cls, name, raise_)
        return message

    def repair(self) -> None:
        for cls, name, original in self.broken:
            self.monkeypatch.setattr(cls, name, original)
        self.broken.clear()


@pytest.fixture
def breaker(monkeypatch):
    return Breaker(monkeypatch)


def _manageable(env, uuid):
    _provision(env, uuid, "manage")


def _available(env, uuid):
    _manageable(env, uuid)
    _provision(env, uuid, "provide")


def _active(env, uuid):
    _available(env, uuid)
    _provision(env, uuid, "active")


def _rescued(env, uuid):
    _active(env, uuid)
    _provision(env, uuid, "rescue", rescue_password="pw")


# name: (set-up before the failure, what breaks, the failing request,
#        failed state, history event_type)
FAILURES = {
    "verify": (None, (fake.FakePower, "validate"), ("manage", {}),
               S.ENROLL, "verify"),
    "inspect": (_manageable, (fake.FakeInspect, "inspect_hardware"),
                ("inspect", {}), S.INSPECTFAIL, "introspection"),
    "automated clean": (_manageable, (fake.FakeDeploy, "prepare_cleaning"),
                        ("provide", {}), S.CLEANFAIL, "cleaning"),
    "manual clean": (_manageable, (fake.FakeBIOS, "factory_reset"),
                     ("clean", {"clean_steps": [BIOS]}), S.CLEANFAIL,
                     "cleaning"),
    "deploy": (_available, (fake.FakeDeploy, "deploy"), ("active", {}),
               S.DEPLOYFAIL, "deploying"),
    "undeploy": (_active, (fake.FakeDeploy, "tear_down"), ("deleted", {}),
                 S.ERROR, "unprovision"),
    "adopt": (_manageable, (fake.FakeDeploy, "take_over"), ("adopt", {}),
              S.ADOPTFAIL, "adoption"),
    "rescue": (_active, (fake.FakeRescue, "rescue"),
               ("rescue", {"rescue_password": "pw"}), S.RESCUEFAIL,
               "rescue"),
    "unrescue": (_rescued, (fake.FakeRescue, "unrescue"), ("unrescue", {}),
                 S.UNRESCUEFAIL, "rescue"),
    "service": (_active, (fake.FakeBIOS, "factory_reset"),
                ("service", {"service_steps": [BIOS]}), S.SERVICEFAIL,
                "servicing"),
}

# (failure, recovery verb and body, state reached)
RECOVERIES = [
    ("verify", "manage", {}, S.MANAGEABLE),
    ("inspect", "manage", {}, S.MANAGEABLE),
    ("inspect", "inspect", {}, S.MANAGEABLE),
    ("automated clean", "manage", {}, S.MANAGEABLE),
    ("manual clean", "manage", {}, S.MANAGEABLE),
    ("deploy", "active", {}, S.ACTIVE),
    ("deploy", "rebuild", {}, S.ACTIVE),
    ("deploy", "deleted", {}, S.AVAILABLE),
    ("undeploy", "deleted", {}, S.AVAILABLE),
    ("undeploy", "rebuild", {}, S.ACTIVE),
    ("adopt", "adopt", {}, S.ACTIVE),
    ("adopt", "manage", {}, S.MANAGEABLE),
    ("rescue", "unrescue", {}, S.ACTIVE),
    ("rescue", "rescue", {"rescue_password": "pw"}, S.RESCUE),
    ("rescue", "deleted", {}, S.AVAILABLE),
    ("unrescue", "unrescue", {}, S.ACTIVE),
    ("unrescue", "rescue", {"rescue_password": "pw"}, S.RESCUE),
    ("unrescue", "deleted", {}, S.AVAILABLE),
    ("service", "abort", {}, S.ACTIVE),
    ("service", "service", {"service_steps": [BIOS]}, S.ACTIVE),
    ("service", "rescue", {"rescue_password": "pw"}, S.RESCUE),
    ("service", "deleted", {}, S.AVAILABLE),
]


def _fail(env, breaker, name):
    setup, (cls, method), (verb, body), failed, event_type = FAILURES[name]
    uuid = _node(env[0])
    if setup:
        setup(env, uuid)
    message = breaker.break_(cls, method)
    _provision(env, uuid, verb, **body)
    state, _, last_error = _state(env, uuid)
    assert state == failed
    assert message in last_error
    history = env[0].get(f"/v1/nodes/{uuid}/history?detail=true").json[
        "history"]
    assert [(e["event_type"], e["severity"]) for e in history
            if message in e["event"]] == [(event_type, "ERROR")]
    breaker.repair()
    return uuid


@pytest.mark.parametrize("name", sorted(FAILURES))
def test_failure_lands_in_its_failed_state(env_newest, breaker, name):
    _fail(env_newest, breaker, name)


@pytest.mark.parametrize("name,verb,body,reached", RECOVERIES,
                         ids=[f"{r[0]}-{r[1]}" for r in RECOVERIES])
def test_recovery_verb_gets_the_node_out(env_newest, breaker, name, verb,
                                         body, reached):
    env = env_newest
    uuid = _fail(env, breaker, name)
    _provision(env, uuid, verb, **body)
    assert _state(env, uuid) == (reached, None, None)


def test_every_failure_state_is_covered():
    failed = {f[3] for f in FAILURES.values()}
    assert failed == S.FAILURE_STATES | {S.ERROR, S.ENROLL}
    recovered_from = {FAILURES[r[0]][3] for r in RECOVERIES}
    assert recovered_from == failed
