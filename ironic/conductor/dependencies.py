"""Bounded, interruptible retries of the conductor's dependencies.

A conductor needs the database (node state, locks, its heartbeat) and the
message bus (the calls it serves). Each is checked every
``[conductor]heartbeat_interval`` seconds by a thread of its own. When a
check fails the thread retries it: ``max_retries`` more times (-1: for
ever), ``interval`` seconds apart, every wait interrupted by the stop
event (SIGTERM). When it comes back, the conductor goes on as before; when
the retries run out the watch calls ``on_exhausted`` once, and the
conductor logs one line and exits non-zero for its supervisor to restart
it (``ironic.command.conductor``).

The bounds are the dependencies' own options where they exist: for the
database oslo.db's ``[database]max_retries`` and ``retry_interval``; for
the message bus ``[conductor]message_bus_max_retries`` and
``[oslo_messaging_rabbit]rabbit_retry_interval``.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from typing import Any, Callable

from ironic import service
from ironic.conf import CONF
from ironic.objects import housekeeping

LOG = logging.getLogger(__name__)

#: Exit status of a conductor that gave up on a dependency (EX_TEMPFAIL:
#: a temporary failure, try again later); the coordination backend's loss
#: exits with it too.
EXIT_GAVE_UP = service.EXIT_GAVE_UP


@dataclasses.dataclass(frozen=True)
class Dependency:
    name: str
    check: Callable[[], None]
    max_retries: Callable[[], int]
    interval: Callable[[], float]


@dataclasses.dataclass(frozen=True)
class GaveUp:
    """What ``on_exhausted`` is told."""

    dependency: Dependency
    attempts: int
    seconds: float
    error: BaseException

    def line(self, host: str) -> str:
        """The one line a conductor logs before it exits."""
        return (f"Conductor {host} gives up: the {self.dependency.name} did "
                f"not answer {self.attempts} checks over "
                f"{self.seconds:.0f} s (last error: "
                f"{_first_line(self.error)}); exiting with status "
                f"{EXIT_GAVE_UP} so that the supervisor restarts it")


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0][:200] if text else ''}"


class Watch:
    """One thread per dependency; see the module's docstring."""

    def __init__(self, dependencies: list[Dependency],
                 period: Callable[[], float], stop: threading.Event,
                 on_exhausted: Callable[[GaveUp], None]):
        self.dependencies = dependencies
        self.period = period
        self.stop = stop
        self.on_exhausted = on_exhausted
        self.threads: list[threading.Thread] = []

    def start(self) -> None:
        for dep in self.dependencies:
            thread = threading.Thread(target=self.watch, args=(dep,),
                                      name=f"watch-{dep.name}", daemon=True)
            thread.start()
            self.threads.append(thread)

    def watch(self, dep: Dependency) -> None:
        while not self.stop.wait(self.period()):
            try:
                dep.check()
            except Exception as e:  # noqa: BLE001 - what the retries are for
                if not self.retry(dep, e):
                    return

    def retry(self, dep: Dependency, error: BaseException) -> bool:
        """Retry a failed check; True once it passes, False when the
        retries ran out (``on_exhausted`` called) or the stop came."""
        started = time.monotonic()
        attempts = 1
        LOG.warning("The %s does not answer (%s); retrying every %s s, "
                    "%s", dep.name, _first_line(error), dep.interval(),
                    "for ever" if dep.max_retries() < 0
                    else f"{dep.max_retries()} times")
        while True:
            limit = dep.max_retries()
            if 0 <= limit < attempts:
                self.on_exhausted(GaveUp(dep, attempts,
                                         time.monotonic() - started, error))
                return False
            if self.stop.wait(dep.interval()):
                return False
            try:
                dep.check()
            except Exception as e:  # noqa: BLE001 - counted
                attempts += 1
                error = e
                continue
            LOG.warning("The %s answers again after %.1f s", dep.name,
                        time.monotonic() - started)
            return True


def wait_for(dependencies: list[Dependency], stop: threading.Event
             ) -> GaveUp | None:
    """Check each dependency once, retrying a failed check as the watch
    does. The GaveUp of the first whose retries ran out; None when all
    answered, or when ``stop`` was set meanwhile."""
    gave_up: list[GaveUp] = []
    watch = Watch(dependencies, lambda: 0, stop, gave_up.append)
    for dep in dependencies:
        if stop.is_set():
            break
        try:
            dep.check()
        except Exception as e:  # noqa: BLE001 - what the retries are for
            if not watch.retry(dep, e):
                break
    return gave_up[0] if gave_up else None


# -- the checks ----------------------------------------------------------


def check_database() -> None:
    """One round trip to the database (a new connection if the pooled one
    died with the outage)."""
    housekeeping.database_round_trip()


def check_message_bus(timeout: float) -> None:
    """Open (and close) an AMQP connection to a broker of transport_url;
    raises when none accepts one within ``timeout`` seconds."""
    import kombu
    import oslo_messaging

    url = oslo_messaging.TransportURL.parse(CONF, CONF.transport_url)
    errors = []
    for host in url.hosts or []:
        conn = kombu.Connection(
            hostname=host.hostname, port=host.port, userid=host.username,
            password=host.password, virtual_host=url.virtual_host or "/",
            ssl=_ssl_options(), connect_timeout=timeout,
            transport="pyamqp")
        try:
            conn.connect()
            return
        except Exception as e:  # noqa: BLE001 - the next host may answer
            errors.append(e)
        finally:
            conn.release()
    if errors:
        raise errors[-1]


def _ssl_options() -> bool | dict:
    """TLS to the broker as oslo.messaging's rabbit driver sets it up."""
    rabbit = CONF.oslo_messaging_rabbit
    if not rabbit.ssl:
        return False
    import ssl
    options: dict = {}
    if rabbit.ssl_ca_file:
        options["ca_certs"] = rabbit.ssl_ca_file
        options["cert_reqs"] = ssl.CERT_REQUIRED
    if rabbit.ssl_cert_file:
        options["certfile"] = rabbit.ssl_cert_file
    if rabbit.ssl_key_file:
        options["keyfile"] = rabbit.ssl_key_file
    return options or True


def for_conductor() -> list[Dependency]:
    """The database always; the message bus with the rabbit driver (the
    other drivers, and the in-process transport, have no broker to
    check)."""
    deps = [Dependency("database", check_database,
                       lambda: CONF.database.max_retries,
                       lambda: CONF.database.retry_interval)]
    if CONF.rpc_transport == "oslo" and _rabbit():
        rabbit = CONF.oslo_messaging_rabbit
        deps.append(Dependency(
            "message bus",
            lambda: check_message_bus(max(1.0, rabbit.rabbit_retry_interval)),
            lambda: CONF.conductor.message_bus_max_retries,
            lambda: rabbit.rabbit_retry_interval))
    return deps


def _rabbit() -> bool:
    url: Any = CONF.transport_url or ""
    return url.split(":", 1)[0] in ("rabbit", "amqp", "kombu")
