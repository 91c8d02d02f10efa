"""The reboot throttle and the concurrent deploy/clean limits through the
API and an in-process conductor (no coordination backend: the throttle's
lock is process-local, the behaviour is the same)."""

from __future__ import annotations

import itertools
import threading
import time

import sqlalchemy as sa

from ironic.common import states
from ironic.conductor import throttle
from ironic.db.sqlalchemy import engine, models
from ironic.tests import fixtures as ifx
from ironic.tests.unit.conductor.test_lifecycle import (
    _node,
    _provision,
    _state,
)


def _set_state(uuid: str, state: str) -> None:
    with engine.writer() as session:
        session.execute(sa.update(models.Node).where(
            models.Node.uuid == uuid).values(provision_state=state))


def test_power_ons_are_spaced_by_the_throttle(config):
    config("conductor", reboot_throttle=0.2)
    throttle.STOPPING.clear()
    times: list[float] = []

    def power_on(i):
        with throttle.throttled("power on", f"node-{i}"):
            times.append(time.monotonic())

    threads = [threading.Thread(target=power_on, args=(i,))
               for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    times.sort()
    assert len(times) == 4
    assert min(b - a for a, b in itertools.pairwise(times)) >= 0.2


def test_stopping_in_the_throttle_gives_the_power_on_up(env, config):
    api, svc = env
    config("conductor", reboot_throttle=30)
    uuid = _node(api)
    resp = api.put(f"/v1/nodes/{uuid}/states/power", {"target": "power on"})
    assert resp.status_int == 202, resp.body
    throttle.STOPPING.set()
    try:
        assert svc.pool.wait_idle(10)
    finally:
        throttle.STOPPING.clear()
    node = api.get(f"/v1/nodes/{uuid}").json
    assert "conductor is stopping" in node["last_error"]
    assert "reboot throttle" in node["last_error"]
    assert node["reservation"] is None
    assert node["target_power_state"] is None


def test_deploy_over_the_limit_is_503(env, config):
    api, _svc = env
    config("conductor", max_concurrent_deploy=1, automated_clean=False)
    busy, uuid = _node(api), _node(api)
    for node in (busy, uuid):
        _provision(env, node, "manage")
        _provision(env, node, "provide")
    _set_state(busy, states.DEPLOYWAIT)
    resp = _provision(env, uuid, "active", status=503)
    message = ifx.error_message(resp)
    assert "concurrent action limit for provisioning" in message
    assert _state(env, uuid)[0] == states.AVAILABLE
    _set_state(busy, states.ACTIVE)
    _provision(env, uuid, "active")
    assert _state(env, uuid)[0] == states.ACTIVE


def test_clean_over_the_limit_is_503(env, config):
    api, _svc = env
    config("conductor", max_concurrent_clean=1)
    busy, uuid = _node(api), _node(api)
    for node in (busy, uuid):
        _provision(env, node, "manage")
    _set_state(busy, states.CLEANWAIT)
    resp = _provision(env, uuid, "provide", status=503)
    assert "concurrent action limit for cleaning" in ifx.error_message(resp)
    resp = _provision(env, uuid, "clean", status=503, clean_steps=[
        {"interface": "bios", "step": "factory_reset"}])
    assert "concurrent action limit for cleaning" in ifx.error_message(resp)
    assert _state(env, uuid)[0] == states.MANAGEABLE
