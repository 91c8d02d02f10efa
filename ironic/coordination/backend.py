"""The process's connection to the coordination backend.

Every wait here (between connection attempts, for a lock) ends early when
the ``stop`` event is set (SIGTERM): a process never outlives its
supervisor's patience because a backend is away. Attempts are bounded by
``[coordination]max_retries`` and ``retry_timeout``; past them
``GiveUp`` is raised with the one line the process logs before it exits
non-zero.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
import urllib.parse
from typing import Any, Callable, TypeVar

from ironic.conf import CONF

LOG = logging.getLogger(__name__)

T = TypeVar("T")

# URL schemes whose members and locks expire after the URL's "timeout".
_EXPIRING = ("redis", "rediss", "etcd3+http", "etcd3+https")


class _NeverRaised(Exception):
    """Stands for tooz's errors while tooz is not loaded."""


class Timeout(Exception):
    """A backend call did not return in time (the client library may
    retry a refused connection for a minute on its own)."""


def errors() -> tuple[type[Exception], ...]:
    """What a failing backend raises: tooz's base error, ``Timeout`` and
    the redis client's own errors (tooz hands them through untranslated
    from the futures of group calls, ``leave_group`` for one).
    tooz is imported only when a backend is configured: it loads futurist,
    eventlet and dnspython (about 20 MiB), which the all-in-one does not
    need; without it nothing raises tooz errors."""
    tooz = sys.modules.get("tooz")
    redis_exceptions = sys.modules.get("redis.exceptions")
    return (tooz.ToozError if tooz is not None else _NeverRaised, Timeout,
            redis_exceptions.RedisError if redis_exceptions is not None
            else _NeverRaised)


def bounded(func: Callable[[], T], seconds: float,
            stop: threading.Event | None = None) -> T:
    """``func()`` in a helper thread, waited for at most ``seconds`` and
    no longer than ``stop`` stays clear: ``Timeout`` or ``Interrupted``
    otherwise (the helper is a daemon thread and is left to finish)."""
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def run():
        try:
            outcome["value"] = func()
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            outcome["error"] = e
        done.set()

    threading.Thread(target=run, name="coordination-call",
                     daemon=True).start()
    deadline = time.monotonic() + seconds
    while not done.wait(min(0.1, max(deadline - time.monotonic(), 0))):
        if stop is not None and stop.is_set():
            raise Interrupted("stopping")
        if time.monotonic() >= deadline:
            raise Timeout(f"no answer within {seconds:.1f} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


class GiveUp(Exception):
    """The backend stayed unreachable past the configured retries."""


class Interrupted(Exception):
    """The process is stopping (SIGTERM) while waiting for the backend."""


def backend_url(url: str | None = None) -> str | None:
    """The configured URL, with the member timeout added when the backend
    knows it and the URL does not set it (tooz's own default, 30 s,
    would make a failover take half a minute)."""
    url = url if url is not None else CONF.coordination.backend_url
    if not url:
        return None
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qs(parts.query)
    if parts.scheme in _EXPIRING and "timeout" not in query:
        extra = f"timeout={CONF.coordination.member_timeout}"
        parts = parts._replace(query=f"{parts.query}&{extra}"
                               if parts.query else extra)
    return urllib.parse.urlunsplit(parts)


def safe_url(url: str) -> str:
    """``url`` without its password, for logs."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[-1]
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return urllib.parse.urlunsplit(parts._replace(netloc=user + netloc))


def with_retries(func: Callable[[], T], what: str,
                 stop: threading.Event) -> T:
    """``func()`` until it stops raising tooz errors, at most
    ``max_retries`` more times and ``retry_timeout`` seconds;
    ``GiveUp`` after that, ``Interrupted`` when ``stop`` is set."""
    conf = CONF.coordination
    started = time.monotonic()
    failures = 0
    while True:
        if stop.is_set():
            raise Interrupted(what)
        try:
            # One attempt may take as long as the backend would wait for
            # a silent member, never longer than the retries have left.
            left = conf.retry_timeout - (time.monotonic() - started)
            return bounded(func, max(min(conf.member_timeout, left), 0.1),
                           stop)
        except errors() as e:
            failures += 1
            waited = time.monotonic() - started
            if failures > conf.max_retries or \
                    waited + conf.retry_interval > conf.retry_timeout:
                raise GiveUp(
                    f"the coordination backend did not answer to {what} "
                    f"after {failures} attempts in {waited:.0f} s "
                    f"([coordination]max_retries = {conf.max_retries}, "
                    f"retry_timeout = {conf.retry_timeout:g}); last "
                    f"error: {e}") from e
            LOG.warning("Coordination backend: cannot %s (attempt %d of "
                        "%d): %s; retrying in %g s", what, failures,
                        conf.max_retries + 1, e, conf.retry_interval)
            if stop.wait(conf.retry_interval):
                raise Interrupted(what) from e


class LocalLock:
    """A process-local lock with tooz's lock interface (no backend)."""

    def __init__(self, name: str):
        self.name = name
        self._lock = threading.Lock()
        self.acquired = False

    def acquire(self, blocking: bool | float = True) -> bool:
        if blocking is True:
            got = self._lock.acquire()
        elif blocking is False:
            got = self._lock.acquire(blocking=False)
        else:
            got = self._lock.acquire(timeout=float(blocking))
        self.acquired = self.acquired or got
        return got

    def release(self) -> bool:
        self.acquired = False
        self._lock.release()
        return True

    def is_still_owner(self) -> bool:
        return self.acquired


class Backend:
    """A tooz coordinator, or nothing when no backend is configured.

    ``start`` connects (with retries); ``heartbeat`` must be called every
    ``[coordination]heartbeat_interval`` (the ``party`` loop does), or the
    backend forgets this member and the locks it holds.
    """

    def __init__(self, member_id: str, url: str | None = None):
        self.member_id = member_id
        self.url = backend_url(url)
        self._coordinator: Any = None
        self._local_locks: dict[str, LocalLock] = {}
        self._guard = threading.Lock()

    @property
    def local(self) -> bool:
        return self.url is None

    def start(self, stop: threading.Event) -> None:
        if self.url is None:  # local
            LOG.info("No [coordination]backend_url: %s is a cluster of its "
                     "own (always the leader, process-local locks)",
                     self.member_id)
            return
        import tooz.coordination
        self._coordinator = tooz.coordination.get_coordinator(
            self.url, self.member_id.encode())
        with_retries(lambda: self._coordinator.start(start_heart=False),
                     "connect", stop)
        LOG.info("Coordination backend %s: connected as %s",
                 safe_url(self.url), self.member_id)

    def stop(self) -> None:
        if self._coordinator is None:
            return
        try:
            # Bounded: the redis client alone retries a refused
            # connection for about a minute.
            bounded(self._coordinator.stop, CONF.coordination.member_timeout)
        except errors() as e:
            LOG.warning("Coordination backend: disconnecting failed: %s", e)
        self._coordinator = None

    @property
    def coordinator(self) -> Any:
        return self._coordinator

    def heartbeat(self) -> None:
        """Keep this member and its locks alive; tooz errors propagate."""
        if self._coordinator is not None:
            self._coordinator.heartbeat()

    def get_lock(self, name: str) -> Any:
        """A cluster-wide lock (process-local without a backend)."""
        if self._coordinator is None:
            with self._guard:
                return self._local_locks.setdefault(name, LocalLock(name))
        return self._coordinator.get_lock(name.encode())


def still_owner(lock: Any) -> bool:
    """Whether ``lock`` is still held, on backends that can tell."""
    import tooz
    try:
        return bool(lock.is_still_owner())
    except tooz.NotImplemented:
        return bool(lock.heartbeat())


_CURRENT: Backend | None = None


def current() -> Backend:
    """The backend the process's party started, or a local one."""
    global _CURRENT
    if _CURRENT is None:
        _CURRENT = Backend(CONF.host, url="")
    return _CURRENT


def set_current(backend: Backend | None) -> None:
    global _CURRENT
    _CURRENT = backend
