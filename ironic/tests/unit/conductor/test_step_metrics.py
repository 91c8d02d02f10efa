"""Step durations recorded by the conductor: a step that waits is timed
until the steps resume after it."""

from __future__ import annotations

import pytest

from ironic import metrics
from ironic.common import states
from ironic.tests.unit.conductor.test_waits import (
    _clean_wait,
    runs,  # noqa: F401
)


@pytest.fixture
def series(config):
    from ironic.conf import CONF
    config("metrics", prometheus_port=0)
    metrics.setup(CONF)
    yield metrics.SINKS.prometheus
    config("metrics", prometheus_port=None)
    metrics.setup(CONF)


def _samples(series) -> dict:
    found = {}
    for family in series.registry.collect():
        for s in family.samples:
            if s.name == "ironic_step_duration_seconds_count":
                found[(s.labels["step"], s.labels["outcome"])] = s.value
    return found


@pytest.mark.usefixtures("runs")
def test_a_waiting_step_is_timed_until_the_steps_go_on(env, series):
    uuid = _clean_wait(env)
    assert _samples(series) == {("factory_reset", "wait"): 1.0}
    env[1].manager.continue_node_steps(None, uuid)
    assert env[1].pool.wait_idle(10)
    assert _samples(series)[("factory_reset", "async")] == 1.0
    assert env[0].get(f"/v1/nodes/{uuid}").json["provision_state"] == \
        states.MANAGEABLE
