"""Wait timeouts: a node waiting longer than its ``[conductor]`` timeout
fails and is left exactly like an aborted one (no steps, no ramdisk, no
rescue password), for every wait state."""

from __future__ import annotations

import datetime
import threading

import pytest
import sqlalchemy as sa

from ironic.common import states
from ironic.conductor import periodics
from ironic.db.sqlalchemy import api as sqla_api
from ironic.db.sqlalchemy import models
from ironic.tests.unit.conductor import test_aborts as aborts
from ironic.tests.unit.conductor.test_aborts import undone  # noqa: F401

CASES = [
    (states.CLEANWAIT, aborts._clean_wait, "clean_callback_timeout",
     states.CLEANFAIL, "cleaning", ["FakeDeploy.tear_down_cleaning"]),
    (states.DEPLOYWAIT, aborts._deploy_wait, "deploy_callback_timeout",
     states.DEPLOYFAIL, "deploying", ["FakeDeploy.clean_up"]),
    (states.RESCUEWAIT, aborts._rescue_wait, "rescue_callback_timeout",
     states.RESCUEFAIL, "rescue", ["FakeRescue.clean_up"]),
    (states.INSPECTWAIT, aborts._inspect_wait, "inspect_wait_timeout",
     states.INSPECTFAIL, "introspection", ["FakeInspect.abort"]),
    (states.SERVICEWAIT, aborts._service_wait, "service_callback_timeout",
     states.SERVICEFAIL, "servicing", ["FakeDeploy.tear_down_service"]),
]


def _age(uuid: str, seconds: int) -> None:
    """Pretend the node entered its state ``seconds`` ago."""
    when = datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None) - datetime.timedelta(seconds=seconds)
    with sqla_api._writer() as session:
        session.execute(sa.update(models.Node).where(
            models.Node.uuid == uuid).values(provision_updated_at=when))


def test_every_wait_state_has_a_timeout():
    assert set(periodics.WAIT_TIMEOUTS) == states.WAIT_STATES
    assert {c[0] for c in CASES} == states.WAIT_STATES


@pytest.mark.parametrize("state,reach,option,failed,event_type,cleanups",
                         CASES, ids=[c[0] for c in CASES])
def test_timeout_fails_and_cleans_up(env_newest, undone,  # noqa: F811
                                     monkeypatch, config, state, reach,
                                     option, failed, event_type, cleanups):
    api, svc = env_newest
    config("conductor", **{option: 60})
    uuid = reach(env_newest, monkeypatch)
    assert api.get(f"/v1/nodes/{uuid}").json["provision_state"] == state
    undone.clear()
    _age(uuid, 30)
    assert periodics.check_wait_timeouts(svc) == 0
    _age(uuid, 90)

    assert periodics.check_wait_timeouts(svc) == 1

    doc = api.get(f"/v1/nodes/{uuid}").json
    assert doc["provision_state"] == failed
    assert "Timeout" in doc["last_error"] and state in doc["last_error"]
    for kind in ("clean", "deploy", "service"):
        assert f"{kind}_steps" not in doc["driver_internal_info"]
        assert not doc[f"{kind}_step"]
    assert "rescue_password" not in doc["instance_info"]
    assert undone == cleanups
    last = api.get(f"/v1/nodes/{uuid}/history?detail=true").json[
        "history"][-1]
    assert (last["event_type"], last["event"]) == (event_type,
                                                   doc["last_error"])


def test_timeouts_run_at_most_periodic_max_workers_at_once(
        env_newest, undone, monkeypatch, config):  # noqa: F811
    api, svc = env_newest
    config("conductor", clean_callback_timeout=60, periodic_max_workers=2)
    uuids = [aborts._clean_wait(env_newest, monkeypatch) for _ in range(5)]
    for uuid in uuids:
        _age(uuid, 90)
    cond = threading.Condition()
    running = [0, 0]  # now, most

    def slow_tear_down(self, task):
        # Stay until a third clean-up runs beside this one (the bound is
        # broken) or half a second passed.
        with cond:
            running[0] += 1
            running[1] = max(running)
            cond.notify_all()
            cond.wait_for(lambda: running[0] > 2, timeout=0.5)
            running[0] -= 1
    from ironic.drivers.modules import fake
    monkeypatch.setattr(fake.FakeDeploy, "tear_down_cleaning",
                        slow_tear_down)

    assert periodics.check_wait_timeouts(svc) == 5

    assert running[1] == 2
    assert {api.get(f"/v1/nodes/{u}").json["provision_state"]
            for u in uuids} == {states.CLEANFAIL}
