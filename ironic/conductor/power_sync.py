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
from typing import Any, Callable, Iterable

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
        from ironic.common import driver_factory
        self.node = node
        self.host = host
        self.context = None
        self.driver = driver_factory.build_driver(node)


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
        self._appliers: list[threading.Thread] = []
        self._total = 0
        # Per-service: questions still open from earlier cycles.
        self._open: set[int] = svc.power_queries_open
        self.max_parallel = 0

    # -- the coordinator -------------------------------------------------

    def run(self, nodes: Iterable[Node]) -> int:
        stopping = getattr(self.svc, "stopping", None)
        for node in nodes:
            if stopping is not None and stopping.is_set():
                break
            late = self._wait_for_slot()
            self._expire(late)
            with self._cond:
                busy = node.id in self._open
                if not busy:
                    self._open.add(node.id)
                    job = _Job(node)
                    self._asking[node.id] = job
                    self.max_parallel = max(self.max_parallel,
                                            len(self._asking))
            if busy:
                self._add(self.apply(node, Answer(
                    error=f"the BMC has still not answered a power state "
                          f"query sent more than {self.timeout} s ago")))
                continue
            thread = threading.Thread(target=self._work, args=(job,),
                                      name=f"power-sync-{node.id}",
                                      daemon=True)
            thread.start()
        while True:
            with self._cond:
                if not self._asking:
                    break
            self._expire(self._wait_for_slot(drain=True))
        for thread in list(self._appliers):
            thread.join()
        return self._total

    def _wait_for_slot(self, drain: bool = False) -> list[_Job]:
        """Block until a worker is free (or all are, with ``drain``);
        returns the jobs whose deadline passed meanwhile."""
        with self._cond:
            while True:
                limit = 0 if drain else self.workers - 1
                now = time.monotonic()
                late = [job for job in self._asking.values()
                        if now - job.started >= self.timeout]
                if late:
                    for job in late:
                        job.abandoned = True
                        del self._asking[job.node.id]
                    self._cond.notify_all()
                    return late
                if len(self._asking) <= limit:
                    return []
                first = min(job.started for job in self._asking.values())
                self._cond.wait(max(0.0, first + self.timeout - now))

    def _expire(self, late: list[_Job]) -> None:
        for job in late:
            LOG.warning("The BMC of node %s did not answer the power state "
                        "query in %s s", job.node.uuid, self.timeout)
            self._add(self.apply(job.node, Answer(
                error=f"the BMC did not answer the power state query "
                      f"within {self.timeout} s")))

    def _add(self, count: int) -> None:
        with self._cond:
            self._total += count

    # -- the workers -----------------------------------------------------

    def _work(self, job: _Job) -> None:
        answer = self.ask(job.node, self.svc.host)
        with self._cond:
            self._open.discard(job.node.id)
            if job.abandoned:
                LOG.info("Late power state answer for node %s dropped",
                         job.node.uuid)
                return
            del self._asking[job.node.id]
            self._appliers.append(threading.current_thread())
            self._cond.notify_all()
        try:
            self._add(self.apply(job.node, answer))
        except Exception:  # noqa: BLE001 - one node must not end the cycle
            LOG.exception("Applying the power state of node %s failed",
                          job.node.uuid)
