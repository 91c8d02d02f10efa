"""The conductor's worker pool: slots in front of a futurist executor."""

import threading

import pytest

from ironic.common import exception
from ironic.conductor import workers


@pytest.fixture
def pool():
    pool = workers.WorkerPool(3, name="test-worker")
    yield pool
    # Idle threads notice within a second and end on their own.
    pool.shutdown(wait=False)


def test_a_call_returns_its_result_or_its_error(pool):
    assert pool.spawn(lambda x: x * 2, 21).result(timeout=5) == 42

    def fail():
        raise ValueError("no BMC")

    with pytest.raises(ValueError, match="no BMC"):
        pool.spawn(fail).result(timeout=5)
    # A failed call gives its slot back.
    assert pool.wait_idle(5)
    slots = [pool.reserve() for _ in range(3)]
    for slot in slots:
        slot.release()


def test_idle_threads_are_reused(pool):
    for i in range(20):
        assert pool.spawn(lambda i=i: i).result(timeout=5) == i
    # One call at a time never needs the whole pool (the executor may
    # start a second thread while the first is handing its result back).
    assert 1 <= pool.threads <= 2


def test_every_slot_runs_at_once_and_a_fourth_is_refused(pool):
    release = threading.Event()
    started = threading.Barrier(4)

    def hold():
        started.wait(timeout=5)
        return release.wait(timeout=5)

    futures = [pool.spawn(hold) for _ in range(3)]
    started.wait(timeout=5)
    assert pool.running == 3
    assert pool.threads == 3
    with pytest.raises(exception.NoFreeConductorWorker):
        pool.reserve()
    release.set()
    assert [f.result(timeout=5) for f in futures] == [True] * 3
    assert pool.wait_idle(5)
    assert pool.running == 0


def test_wait_idle_times_out_while_a_call_runs(pool):
    release = threading.Event()
    future = pool.spawn(release.wait, 5)
    assert not pool.wait_idle(0.05)
    release.set()
    assert future.result(timeout=5)
    assert pool.wait_idle(5)


def test_shutdown_lets_submitted_calls_finish_then_stops():
    pool = workers.WorkerPool(1, name="stopping-worker")
    gate = threading.Event()
    first = pool.spawn(lambda: gate.wait(5))
    stopper = threading.Thread(target=pool.shutdown, args=(True,))
    stopper.start()
    gate.set()
    stopper.join(5)
    assert not stopper.is_alive()
    assert first.result(timeout=0) is True
    assert pool.running == 0
    with pytest.raises(RuntimeError):
        pool.spawn(lambda: None)


def test_a_call_refused_after_shutdown_gives_its_slot_back():
    pool = workers.WorkerPool(1, name="closed-worker")
    pool.shutdown(wait=True)
    with pytest.raises(RuntimeError):
        pool.spawn(lambda: None)
    assert pool.running == 0
    assert pool.wait_idle(0)
    pool.reserve().release()
