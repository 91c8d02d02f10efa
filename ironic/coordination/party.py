"""The party: the processes of one kind (conductors, PXE filters) as a
tooz group with one elected leader.

Every member heartbeats, reads the group's members and takes part in the
election on each tick (``[coordination]heartbeat_interval``). The leader
is whoever holds the group's leader lock; the backend drops the lock of a
member that stops heartbeating (SIGKILL, lost host) after
``[coordination]member_timeout`` and the next tick of a survivor takes it.

The leader runs the party's singleton jobs in a thread of its own. That
thread stops through a reset flag - not the process's SIGTERM flag - set
when the group shrinks (the work restarts at once, so that what the
departed member left is seen to), when a job raises, or when the backend
stops answering (the leader then steps down: a leader that cannot renew
its lock may already have a successor). A job that raises makes its
leader step down and sit out one election.

All state changes happen in the tick thread; the work thread only reports.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from typing import Any, Callable

from ironic.conf import CONF
from ironic.coordination import backend as backend_mod

LOG = logging.getLogger(__name__)


@dataclasses.dataclass
class Job:
    """Work run once per cluster every ``interval()`` seconds (0: never).
    ``at_reset`` jobs also run at once whenever the leader's work starts
    (a new leader, a member gone)."""

    name: str
    func: Callable[[], Any]
    interval: Callable[[], float]
    at_reset: bool = False
    next_run: float = 0.0
    runs: int = 0


class _Work(threading.Thread):
    """The leader's jobs, until ``reset`` is set."""

    def __init__(self, party: Party, jobs: list[Job]):
        super().__init__(name=f"leader-{party.group}", daemon=True)
        self.party = party
        self.jobs = jobs
        self.reset = threading.Event()
        self.failed: str | None = None

    def run(self) -> None:
        now = time.monotonic()
        for job in self.jobs:
            if job.at_reset:
                job.next_run = min(job.next_run, now)
        while not self.reset.is_set():
            now = time.monotonic()
            for job in self.jobs:
                if self.reset.is_set():
                    return
                interval = job.interval()
                if interval <= 0 or job.next_run > now:
                    continue
                try:
                    job.func()
                except Exception as e:  # noqa: BLE001 - the leader steps down
                    LOG.exception("Leader job %s failed on %s", job.name,
                                  self.party.member_id)
                    self.failed = f"{job.name}: {e}"
                    self.party.wake.set()
                    return
                job.runs += 1
                job.next_run = time.monotonic() + interval
                LOG.info("Leader job %s ran on %s (run %d here)", job.name,
                         self.party.member_id, job.runs)
            pending = [j.next_run for j in self.jobs if j.interval() > 0]
            delay = (min(pending) - time.monotonic()) if pending else 3600
            self.reset.wait(max(delay, 0.05))


class Party:
    """Membership of ``group`` and the leader's singleton work.

    ``on_change(leader)`` is called (in the tick thread) whenever this
    member becomes or stops being the leader. ``on_fatal(line)`` is called
    once when the backend stayed away past the retries; the process then
    logs that line and exits non-zero.
    """

    def __init__(self, group: str, member_id: str,
                 jobs: list[Job] | None = None,
                 on_change: Callable[[bool], None] | None = None,
                 on_fatal: Callable[[str], None] | None = None,
                 backend: backend_mod.Backend | None = None):
        self.group = group
        self.member_id = member_id
        self.jobs = jobs or []
        self.backend = backend or backend_mod.Backend(member_id)
        self._group_id = group.encode()
        self._on_change = on_change or (lambda leader: None)
        self._on_fatal = on_fatal or (lambda line: None)
        self.wake = threading.Event()
        self._closing = threading.Event()
        self._thread: threading.Thread | None = None
        self._work: _Work | None = None
        self._leader_lock: Any = None
        self._members: set[bytes] | None = None
        self._failing_since: float | None = None
        self._failures = 0
        self._sit_out_until = 0.0
        self.leader = False
        self.elections = 0

    # -- life cycle ----------------------------------------------------------

    def start(self, stop: threading.Event) -> None:
        """Connect and join; ``backend.GiveUp`` or ``Interrupted`` when the
        backend cannot be reached within the retries or SIGTERM came."""
        self.backend.start(stop)
        backend_mod.set_current(self.backend)
        if self.backend.local:
            self._elected()
            return
        self._leader_lock = self.backend.get_lock(f"{self.group}-leader")
        backend_mod.with_retries(self._join, f"join the group {self.group}",
                                 stop)
        self._tick()
        self._thread = threading.Thread(target=self._loop,
                                        name=f"party-{self.group}",
                                        daemon=True)
        self._thread.start()

    def leave(self) -> None:
        """First thing on SIGTERM: stop leading, leave the group (the
        others elect a new leader at once), disconnect."""
        self._closing.set()
        self.wake.set()
        if self._thread is not None:
            self._thread.join(10)
        if self.leader:
            self._step_down("the process is stopping", logging.INFO)
        coordinator = self.backend.coordinator
        if coordinator is not None:
            try:
                backend_mod.bounded(
                    lambda: coordinator.leave_group(self._group_id).get(),
                    CONF.coordination.member_timeout)
                LOG.info("%s left the group %s", self.member_id, self.group)
            except backend_mod.errors() as e:
                LOG.warning("%s could not leave the group %s: %s",
                            self.member_id, self.group, e)
        self.backend.stop()

    # -- the tick ------------------------------------------------------------

    def _loop(self) -> None:
        while not self._closing.is_set():
            conf = CONF.coordination
            # While the backend fails, attempts are retry_interval apart
            # (as its help says), not heartbeat_interval: with a backend
            # that refuses at once, max_retries ticks would otherwise last
            # only max_retries heartbeats (10 s by default).
            self.wake.wait(conf.retry_interval if self._failing_since
                           is not None else conf.heartbeat_interval)
            self.wake.clear()
            if self._closing.is_set():
                return
            try:
                self._tick()
            except Exception:  # noqa: BLE001 - the loop must go on
                LOG.exception("Party %s: tick failed", self.group)

    def _join(self) -> None:
        import tooz.coordination
        coordinator = self.backend.coordinator
        try:
            coordinator.create_group(self._group_id).get()
        except tooz.coordination.GroupAlreadyExist:
            pass
        try:
            coordinator.join_group(self._group_id).get()
        except tooz.coordination.MemberAlreadyExist:
            pass
        LOG.info("%s joined the group %s", self.member_id, self.group)

    def _tick(self) -> None:
        # Only with a backend, so tooz is loaded (see backend.errors).
        import tooz.coordination
        work = self._work
        if work is not None and work.failed:
            self._step_down(f"its job {work.failed}")
            self._sit_out_until = time.monotonic() + \
                2 * CONF.coordination.heartbeat_interval
        try:
            # Bounded: a tick stuck in the client library would keep this
            # member from noticing that it must step down or give up.
            members = backend_mod.bounded(
                self._beat, CONF.coordination.member_timeout)
        except tooz.coordination.GroupNotCreated:
            members = None
        except backend_mod.errors() as e:
            self._backend_failed(e)
            return
        if members is None or self.member_id.encode() not in members:
            # The backend forgot us (it restarted, or we were away longer
            # than the member timeout): join again.
            try:
                self._join()
            except backend_mod.errors() as e:
                self._backend_failed(e)
                return
            members = (members or set()) | {self.member_id.encode()}
        if self._failing_since is not None:
            LOG.info("Coordination backend answers again")
        self._failing_since, self._failures = None, 0
        gone = (self._members or set()) - members
        self._members = members
        if gone:
            LOG.info("Party %s: %s left; %d members remain", self.group,
                     ", ".join(sorted(m.decode() for m in gone)),
                     len(members))
        self._elect(shrunk=bool(gone))

    def _beat(self) -> set[bytes]:
        self.backend.heartbeat()
        if self._failing_since is not None:
            self._join()
        return set(self.backend.coordinator.get_members(
            self._group_id).get())

    def _elect(self, shrunk: bool) -> None:
        if self.leader:
            try:
                still = backend_mod.still_owner(self._leader_lock)
            except backend_mod.errors() as e:
                self._backend_failed(e)
                return
            if not still:
                self._step_down("its leader lock expired")
            elif shrunk:
                LOG.info("Party %s: restarting the leader's work (a member "
                         "left)", self.group)
                self._restart_work()
            return
        if time.monotonic() < self._sit_out_until:
            return
        try:
            won = self._leader_lock.acquire(blocking=False)
        except backend_mod.errors() as e:
            self._backend_failed(e)
            return
        if won:
            self._elected()

    def _backend_failed(self, error: Exception) -> None:
        now = time.monotonic()
        if self._failing_since is None:
            self._failing_since = now
            LOG.warning("Coordination backend stopped answering: %s", error)
        self._failures += 1
        if self.leader:
            self._step_down("the coordination backend does not answer")
        conf = CONF.coordination
        waited = now - self._failing_since
        if self._failures > conf.max_retries or waited > conf.retry_timeout:
            self._closing.set()
            self._on_fatal(
                f"the coordination backend did not answer for {waited:.0f} "
                f"s ({self._failures} attempts; [coordination]max_retries = "
                f"{conf.max_retries}, retry_timeout = "
                f"{conf.retry_timeout:g}); last error: {error}")

    # -- leadership ------------------------------------------------------------

    def _elected(self) -> None:
        self.leader = True
        self.elections += 1
        LOG.info("%s is now the leader of %s", self.member_id, self.group)
        self._restart_work()
        self._on_change(True)

    def _restart_work(self) -> None:
        self._stop_work()
        if self.jobs:
            self._work = _Work(self, self.jobs)
            self._work.start()

    def _stop_work(self) -> None:
        work, self._work = self._work, None
        if work is not None:
            work.reset.set()
            if work is not threading.current_thread():
                work.join(30)

    def _step_down(self, why: str, level: int = logging.WARNING) -> None:
        if not self.leader:
            return
        self.leader = False
        LOG.log(level, "%s steps down as leader of %s: %s", self.member_id,
                self.group, why)
        self._stop_work()
        if self._leader_lock is not None:
            try:
                self._leader_lock.release()
            except backend_mod.errors() as e:
                LOG.info("Releasing the leader lock failed (it expires on "
                         "its own): %s", e)
        self._on_change(False)
