"""The conductor's bounded worker pool.

A request that needs a worker takes a slot first, before it changes any
state; when every slot is busy it fails at once with NoFreeConductorWorker
(503 at the API) instead of queueing without bound.

The threads are our own, not futurist's executor: importing futurist
imports eventlet, and with it dnspython and cryptography (300 modules and
17 MiB of the all-in-one's memory), when eventlet is installed.
"""

from __future__ import annotations

import functools
import logging
import queue
import threading
from concurrent.futures import Future
from typing import Any, Callable

from ironic.common import exception

LOG = logging.getLogger(__name__)


class _Threads:
    """Daemon threads that run submitted calls, reused once idle.

    The pool's slots bound how many calls run at once, so at most ``size``
    threads exist. Daemon threads: a call stuck on a BMC must not keep a
    stopping process alive; the service drains work with its own bounded
    wait (``WorkerPool.wait_idle``).
    """

    def __init__(self, size: int, name: str):
        self._size = size
        self._name = name
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        # Threads done with their call and back (or about to be) waiting
        # for the next one.
        self._idle = 0
        self._stopped = False

    def submit(self, func: Callable[[], Any]) -> Future:
        future: Future = Future()
        with self._lock:
            if self._stopped:
                raise RuntimeError("the worker pool is shut down")
            if self._idle:
                self._idle -= 1
            elif len(self._threads) < self._size:
                thread = threading.Thread(
                    target=self._work, daemon=True,
                    name=f"{self._name}-{len(self._threads)}")
                self._threads.append(thread)
                thread.start()
            # Otherwise every thread is busy: the call waits for the first
            # to finish (the slots make that rare).
            self._jobs.put((future, func))
        return future

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            future, func = job
            settle = None
            if future.set_running_or_notify_cancel():
                try:
                    settle = functools.partial(future.set_result, func())
                except BaseException as e:  # noqa: BLE001 - to the caller
                    settle = functools.partial(future.set_exception, e)
            # Idle before the caller hears back, so that the next call it
            # submits finds this thread.
            with self._lock:
                self._idle += 1
            if settle is not None:
                settle()
            del job, future, func, settle

    def shutdown(self, wait: bool) -> None:
        """Stop each thread once the calls already submitted have run."""
        with self._lock:
            self._stopped = True
            threads = list(self._threads)
            for _ in threads:
                self._jobs.put(None)
        if wait:
            for thread in threads:
                thread.join()


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
        self._threads = _Threads(size, name)
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
            return self._threads.submit(_job)
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

    def wait_idle(self, timeout: float) -> bool:
        """True when every worker finished within ``timeout`` seconds."""
        with self._idle:
            return self._idle.wait_for(lambda: self._running == 0, timeout)

    def shutdown(self, wait: bool = False) -> None:
        self._threads.shutdown(wait)
