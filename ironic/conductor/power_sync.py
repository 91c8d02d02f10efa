"""Power state sync: every owned node's BMC asked in parallel, on a deadline.

One cycle asks the BMCs of many nodes at once, at most
``[conductor]sync_power_state_workers`` at a time (never more than
``[conductor]periodic_max_workers``, the bound of every periodic task).
Each question has ``[conductor]sync_power_state_timeout`` seconds: a BMC
that has not answered by then counts as a failure for its node and gives
its worker slot back, so one slow or hung BMC never delays the others. Its thread is left to finish
alone, and the node is not asked again while that old question is still
open (it counts as another failure), which bounds the threads a hung BMC
can hold to one per node.

What the answer means for the node (record the power state, restore it,
count failures, maintenance, recovery) is decided by the caller's
``apply`` function, which runs in the worker's thread once the answer is
in, outside the deadline.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from typing import Any, Callable, Iterable, Iterator

from ironic import driver_registry
from ironic.common import states
from ironic.conf import CONF
from ironic.objects.node import Node

LOG = logging.getLogger(__name__)


@dataclasses.dataclass
class Answer:
    """What one BMC said: a power state (and health), or an error."""

    power_state: str | None = None
    health: str | None = None
    error: str | None = None


class PeekTask:
    """A read-only task for querying a BMC without taking the node lock."""

    shared = True

    def __init__(self, node: Node, host: str):
        self.node = node
        self.host = host
        self.context = None
        # A BareDriver: its interfaces are attributes set by name.
        self.driver: Any = driver_registry.build_driver(node)


def ask_bmc(node: Node, host: str) -> Answer:
    """Read the power state (and health, when monitored) of ``node``."""
    try:
        task = PeekTask(node, host)
        power = task.driver.power
        if power is None:
            return Answer(error="the node has no power interface")
        if CONF.conductor.enable_health_monitoring:
            state, health = power.get_power_state_and_health(task)
        else:
            state, health = power.get_power_state(task), None
    except Exception as e:  # noqa: BLE001 - any driver error is a failure
        return Answer(error=str(e) or type(e).__name__)
    if state not in (states.POWER_ON, states.POWER_OFF):
        return Answer(error=f"the BMC reported an unusable power state "
                            f"{state!r}")
    return Answer(power_state=state, health=health)


class _Job:
    __slots__ = ("node", "started", "abandoned")

    def __init__(self, node: Node):
        self.node = node
        self.started = time.monotonic()
        self.abandoned = False


class Cycle:
    """One parallel pass over ``nodes``; see the module docstring.

    ``apply(node, answer) -> int`` runs for every answer (errors included)
    and for every node whose BMC missed the deadline (with an error
    answer); the cycle returns the sum of what it returned.

    ``workers`` threads live for the whole cycle; each asks a BMC, applies
    the answer, then takes the next node. So the work in flight (threads,
    database sessions, answers not yet applied) never exceeds them however
    fast the BMCs fail, and 50,000 nodes cost 8 threads, not 50,000. Only
    a thread stuck past the deadline is replaced; it ends once its BMC
    answers.
    """

    def __init__(self, svc: Any, apply: Callable[[Node, Answer], int],
                 ask: Callable[[Node, str], Answer] = ask_bmc):
        self.svc = svc
        self.apply = apply
        self.ask = ask
        self.workers = min(CONF.conductor.sync_power_state_workers,
                           CONF.conductor.periodic_max_workers)
        self.timeout = CONF.conductor.sync_power_state_timeout
        self._cond = threading.Condition()
        self._asking: dict[int, _Job] = {}
        self._nodes: Iterator[Node] = iter(())
        # Worker threads not abandoned to a hung BMC.
        self._live = 0
        self._total = 0
        # Per-service: questions still open from earlier cycles.
        self._open: set[int] = svc.power_queries_open
        self.max_parallel = 0

    # -- the coordinator -------------------------------------------------

    def run(self, nodes: Iterable[Node]) -> int:
        self._nodes = iter(nodes)
        self._start_workers(self.workers)
        while True:
            with self._cond:
                late = self._take_late()
                if not late:
                    if not self._live:
                        break
                    self._cond.wait(self._until_next_deadline())
                    continue
            # Replacements first: the other nodes must not wait for the
            # failures to be applied.
            self._start_workers(len(late))
            for job in late:
                self._add(self._apply(job.node, Answer(
                    error=f"the BMC did not answer the power state query "
                          f"within {self.timeout} s")))
        return self._total

    def _start_workers(self, count: int) -> None:
        for _ in range(count):
            with self._cond:
                self._live += 1
            threading.Thread(target=self._work, name="power-sync",
                             daemon=True).start()

    def _take_late(self) -> list[_Job]:
        """Abandon the jobs past the deadline (the caller holds the lock);
        their threads stop counting as workers."""
        now = time.monotonic()
        late = [job for job in self._asking.values()
                if now - job.started >= self.timeout]
        for job in late:
            job.abandoned = True
            del self._asking[job.node.id]
        self._live -= len(late)
        return late

    def _until_next_deadline(self) -> float | None:
        if not self._asking:
            return None
        first = min(job.started for job in self._asking.values())
        return max(0.0, first + self.timeout - time.monotonic())

    def _add(self, count: int) -> None:
        with self._cond:
            self._total += count

    def _apply(self, node: Node, answer: Answer) -> int:
        try:
            return self.apply(node, answer)
        except Exception as e:  # noqa: BLE001 - one node must not end it
            LOG.warning("Applying the power state of node %s failed: %s",
                        node.uuid, e)
            LOG.debug("Applying the power state of node %s failed",
                      node.uuid, exc_info=True)
            return 0

    # -- the workers -----------------------------------------------------

    def _next(self) -> tuple[Node | None, _Job | None]:
        """The next node and its job (no job: its BMC still has a question
        open from an earlier cycle); no node when done or stopping."""
        stopping = getattr(self.svc, "stopping", None)
        with self._cond:
            if stopping is not None and stopping.is_set():
                return None, None
            node = next(self._nodes, None)
            if node is None or node.id in self._open:
                return node, None
            self._open.add(node.id)
            job = self._asking[node.id] = _Job(node)
            self.max_parallel = max(self.max_parallel, len(self._asking))
            return node, job

    def _ask(self, job: _Job) -> Answer | None:
        """The BMC's answer, or None when the deadline passed first."""
        thread = threading.current_thread()
        thread.name = f"power-sync-{job.node.id}"
        try:
            answer = self.ask(job.node, self.svc.host)
        except Exception as e:  # noqa: BLE001 - a failure like any other
            answer = Answer(error=str(e) or type(e).__name__)
        with self._cond:
            self._open.discard(job.node.id)
            if job.abandoned:
                LOG.debug("Late power state answer for node %s dropped",
                          job.node.uuid)
                return None
            del self._asking[job.node.id]
            self._cond.notify_all()
        thread.name = "power-sync"
        return answer

    def _work(self) -> None:
        while True:
            node, job = self._next()
            if node is None:
                break
            if job is None:
                answer = Answer(
                    error=f"the BMC has still not answered a power state "
                          f"query sent more than {self.timeout} s ago")
            else:
                asked = self._ask(job)
                if asked is None:
                    return  # abandoned: no longer counted as a worker
                answer = asked
            self._add(self._apply(node, answer))
        with self._cond:
            self._live -= 1
            self._cond.notify_all()
