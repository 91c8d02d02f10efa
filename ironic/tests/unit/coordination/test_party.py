"""The party's logic on tooz's file backend (real tooz, no service):
election, step-down on a failing job, hand-over on leave, the member
timeout added to backend URLs, bounded and interruptible retries."""

from __future__ import annotations

import threading
import time

import pytest
import tooz

from ironic.coordination import backend, party


@pytest.fixture
def coord(config, tmp_path):
    config("coordination", heartbeat_interval=0.1, retry_interval=0.1,
           max_retries=2, retry_timeout=30)
    yield f"file://{tmp_path}/coordination"
    backend.set_current(None)


def _member(url: str, name: str, jobs=None, **kw) -> party.Party:
    return party.Party("test-group", name, jobs,
                       backend=backend.Backend(name, url), **kw)


def _wait(predicate, what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_no_backend_is_a_cluster_of_its_own(config, caplog):
    ran = threading.Event()
    caplog.set_level("INFO")
    p = party.Party("test-group", "solo",
                    [party.Job("job", ran.set, lambda: 60)],
                    backend=backend.Backend("solo", url=""))
    p.start(threading.Event())
    try:
        assert p.leader
        assert ran.wait(5)
        assert "is a cluster of its own" in caplog.text
        lock = backend.current().get_lock("x")
        assert lock.acquire(blocking=False)
        assert not backend.current().get_lock("x").acquire(blocking=False)
        lock.release()
    finally:
        p.leave()
        backend.set_current(None)


def test_one_leader_and_hand_over_on_leave(coord):
    runs: list[str] = []
    members = [_member(coord, f"m{i}", [party.Job(
        "count", lambda i=i: runs.append(f"m{i}"), lambda: 60)])
        for i in range(3)]
    stop = threading.Event()
    for m in members:
        m.start(stop)
    try:
        _wait(lambda: sum(m.leader for m in members) == 1, "a leader")
        time.sleep(0.5)  # a few ticks: nobody else is elected meanwhile
        leaders = [m for m in members if m.leader]
        assert len(leaders) == 1
        first = leaders[0]
        _wait(lambda: runs == [first.member_id], "the leader's first run")
        first.leave()
        rest = [m for m in members if m is not first]
        _wait(lambda: sum(m.leader for m in rest) == 1, "a new leader")
        second = next(m for m in rest if m.leader)
        _wait(lambda: runs == [first.member_id, second.member_id],
              "the new leader's run")
    finally:
        for m in members:
            m.leave()


def test_failing_job_makes_the_leader_step_down(coord):
    calls: list[str] = []

    def job(name):
        calls.append(name)
        if name == "bad":
            raise RuntimeError("boom")

    bad = _member(coord, "bad", [party.Job("j", lambda: job("bad"),
                                           lambda: 60)])
    good = _member(coord, "good", [party.Job("j", lambda: job("good"),
                                             lambda: 60)])
    stop = threading.Event()
    bad.start(stop)  # first in: elected first
    good.start(stop)
    try:
        _wait(lambda: good.leader, "the other member to take over")
        assert calls[0] == "bad" and "good" in calls
        assert not bad.leader
    finally:
        bad.leave()
        good.leave()


def test_shrink_restarts_the_leaders_work(coord):
    starts: list[float] = []
    a = _member(coord, "a", [party.Job("j", lambda: starts.append(1),
                                       lambda: 60, at_reset=True)])
    b = _member(coord, "b")
    stop = threading.Event()
    a.start(stop)
    b.start(stop)
    try:
        _wait(lambda: len(starts) == 1, "the first run")
        _wait(lambda: a._members and len(a._members) == 2, "both members")
        b.leave()
        _wait(lambda: len(starts) == 2, "the run after the shrink")
        assert a.leader
    finally:
        a.leave()
        b.leave()


def test_backend_url_gets_a_member_timeout(config):
    config("coordination", member_timeout=7)
    assert backend.backend_url("redis://h:6379") == \
        "redis://h:6379?timeout=7"
    assert backend.backend_url("redis://h:6379?namespace=x") == \
        "redis://h:6379?namespace=x&timeout=7"
    assert backend.backend_url("redis://h:6379?timeout=3") == \
        "redis://h:6379?timeout=3"
    assert backend.backend_url("etcd3+http://h:2379") == \
        "etcd3+http://h:2379?timeout=7"
    assert backend.backend_url("file:///var/lib/c") == "file:///var/lib/c"
    assert backend.backend_url("") is None
    assert backend.safe_url("redis://:pw@h:1?timeout=7") == \
        "redis://:***@h:1?timeout=7"


def test_retries_are_bounded(config):
    config("coordination", max_retries=2, retry_interval=0.1,
           retry_timeout=30)
    attempts = []

    def fail():
        attempts.append(1)
        raise tooz.coordination.ToozConnectionError("refused")

    with pytest.raises(backend.GiveUp, match="after 3 attempts"):
        backend.with_retries(fail, "connect", threading.Event())
    assert len(attempts) == 3


def test_retries_stop_at_sigterm(config):
    config("coordination", max_retries=100, retry_interval=60,
           retry_timeout=600)
    stop = threading.Event()

    def fail():
        stop.set()  # SIGTERM arrives during the first attempt
        raise tooz.coordination.ToozConnectionError("refused")

    started = time.monotonic()
    with pytest.raises(backend.Interrupted):
        backend.with_retries(fail, "connect", stop)
    assert time.monotonic() - started < 30


def test_lost_backend_steps_down_then_gives_up(coord, monkeypatch):
    fatal: list[str] = []
    p = _member(coord, "m", on_fatal=fatal.append)
    p.start(threading.Event())
    try:
        _wait(lambda: p.leader, "the leader")

        def down():
            raise tooz.coordination.ToozConnectionError("gone")
        monkeypatch.setattr(p.backend, "heartbeat", down)
        _wait(lambda: fatal, "giving up")
        assert not p.leader
        assert "did not answer" in fatal[0] and "max_retries = 2" in fatal[0]
    finally:
        p.leave()


def test_attempts_on_a_failing_backend_are_retry_interval_apart(
        coord, config, monkeypatch):
    # A backend that refuses at once: the retries last max_retries times
    # retry_interval, not max_retries heartbeats.
    config("coordination", heartbeat_interval=0.1, retry_interval=0.5,
           max_retries=3, retry_timeout=60)
    fatal: list[str] = []
    p = _member(coord, "m", on_fatal=fatal.append)
    p.start(threading.Event())
    attempts: list[float] = []
    try:
        def down():
            attempts.append(time.monotonic())
            raise tooz.coordination.ToozConnectionError("refused")
        monkeypatch.setattr(p.backend, "heartbeat", down)
        _wait(lambda: fatal, "giving up")
        assert len(attempts) == 4, attempts
        gaps = [b - a for a, b in zip(attempts, attempts[1:], strict=False)]
        assert min(gaps) >= 0.5, gaps
    finally:
        p.leave()
