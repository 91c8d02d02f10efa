"""The conductor's bounded worker pool.

A request that needs a worker takes a slot first, before it changes any
state; when every slot is busy it fails at once with NoFreeConductorWorker
(503 at the API) instead of queueing without bound. The calls run on a
futurist executor that grows with the load and gives idle threads back.

futurist joins its threads when the interpreter exits; a call stuck on a
BMC would hold a stopping process, so the commands end a process whose
pool did not drain without waiting for it (``WorkerPool.running``).
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future
from typing import Any, Callable

from ironic.common import eventlet_quiet, exception

with eventlet_quiet.quiet():
    import futurist

LOG = logging.getLogger(__name__)


def _executor(size: int) -> futurist.ThreadPoolExecutor:
    if size > 1:
        # Starts with no thread, grows while most threads are busy and
        # drops idle ones again: a conductor allowed 300 workers does not
        # keep 300 threads after a burst.
        return futurist.DynamicThreadPoolExecutor(max_workers=size)
    return futurist.ThreadPoolExecutor(max_workers=size)


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
        self.name = name
        self._free = threading.BoundedSemaphore(size)
        self._executor = _executor(size)
        self._running = 0
        self._idle = threading.Condition()

    def reserve(self) -> Slot:
        if not self._free.acquire(blocking=False):
            raise exception.NoFreeConductorWorker()
        return Slot(self)

    def run(self, slot: Slot, func: Callable, *args: Any, **kwargs: Any
            ) -> Future:
        """Run ``func`` in the reserved slot; the slot frees when it ends."""
        slot.consume()
        with self._idle:
            self._running += 1

        def _done():
            self._free.release()
            with self._idle:
                self._running -= 1
                self._idle.notify_all()

        def _job():
            try:
                return func(*args, **kwargs)
            except Exception:
                LOG.exception("Conductor worker %s failed", func)
                raise
            finally:
                _done()

        try:
            return self._executor.submit(_job)
        except RuntimeError:
            # A pool shut down while stopping: the call never runs, so its
            # slot and its count must not wait for it.
            _done()
            raise

    def spawn(self, func: Callable, *args: Any, **kwargs: Any
              ) -> Future:
        return self.run(self.reserve(), func, *args, **kwargs)

    @property
    def running(self) -> int:
        return self._running

    @property
    def threads(self) -> int:
        """The executor's threads now (at most ``size``)."""
        return self._executor.num_workers

    def wait_idle(self, timeout: float) -> bool:
        """True when every worker finished within ``timeout`` seconds."""
        with self._idle:
            return self._idle.wait_for(lambda: self._running == 0, timeout)

    def shutdown(self, wait: bool = False) -> None:
        """Refuse new calls; with ``wait``, until the submitted ones ran."""
        self._executor.shutdown(wait=wait)
