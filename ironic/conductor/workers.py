"""The conductor's bounded worker pool.

A request that needs a worker takes a slot first, before it changes any
state; when every slot is busy it fails at once with NoFreeConductorWorker
(503 at the API) instead of queueing without bound.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

import futurist

from ironic.common import exception

LOG = logging.getLogger(__name__)


class Slot:
    """A reserved place in the pool, used once by ``WorkerPool.run``."""

    def __init__(self, pool: WorkerPool):
        self._pool = pool
        self._used = False

    def release(self) -> None:
        if not self._used:
            self._used = True
            self._pool._free.release()

    def consume(self) -> None:
        self._used = True


class WorkerPool:
    def __init__(self, size: int, name: str = "conductor-worker"):
        self.size = size
        self._free = threading.BoundedSemaphore(size)
        self._executor = futurist.ThreadPoolExecutor(max_workers=size)
        self._running = 0
        self._idle = threading.Condition()

    def reserve(self) -> Slot:
        if not self._free.acquire(blocking=False):
            raise exception.NoFreeConductorWorker()
        return Slot(self)

    def run(self, slot: Slot, func: Callable, *args: Any, **kwargs: Any
            ) -> futurist.Future:
        """Run ``func`` in the reserved slot; the slot frees when it ends."""
        slot.consume()
        with self._idle:
            self._running += 1

        def _job():
            try:
                return func(*args, **kwargs)
            except Exception:
                LOG.exception("Conductor worker %s failed", func)
                raise
            finally:
                self._free.release()
                with self._idle:
                    self._running -= 1
                    self._idle.notify_all()

        return self._executor.submit(_job)

    def spawn(self, func: Callable, *args: Any, **kwargs: Any
              ) -> futurist.Future:
        return self.run(self.reserve(), func, *args, **kwargs)

    @property
    def running(self) -> int:
        return self._running

    def wait_idle(self, timeout: float) -> bool:
        """True when every worker finished within ``timeout`` seconds."""
        with self._idle:
            return self._idle.wait_for(lambda: self._running == 0, timeout)

    def shutdown(self, wait: bool = False) -> None:
        self._executor.shutdown(wait=wait)
