"""Checks every unit test gets on top of ``ironic/tests/conftest.py``."""

from __future__ import annotations

import threading

import pytest

from ironic.coordination import party


@pytest.fixture(autouse=True)
def no_leader_outlives_its_test():
    """A conductor (or party) started by a test must be stopped by it: a
    leader's jobs left running would touch the next tests' database and
    log into streams pytest has closed. Stop any such thread, then fail
    the test that left it, by name."""
    yield
    left = [t for t in threading.enumerate()
            if isinstance(t, party._Work) and t.is_alive()]
    for work in left:
        work.reset.set()
    for work in left:
        work.join(10)
    if left:
        pytest.fail("leader work left running by this test (stop the "
                    "ConductorService or leave the Party it started): "
                    + ", ".join(f"{w.name} of {w.party.member_id}"
                                for w in left), pytrace=False)
