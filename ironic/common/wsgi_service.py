"""The built-in threaded WSGI server used by ironic and ironic-api."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time

from ironic.api import app as api_app
from ironic.common import http_server, service
from ironic.conf import CONF

LOG = logging.getLogger(__name__)


def make_server(application=None, host: str | None = None,
                port: int | None = None, threads: int | None = None
                ) -> http_server.Server:
    application = application or api_app.setup_app()
    return http_server.Server((host or CONF.api.host_ip,
                               CONF.api.port if port is None else port),
                              application,
                              threads=threads or CONF.api.server_threads,
                              timeout=CONF.api.request_timeout)


def warn_unsupported_workers() -> bool:
    """The all-in-one's ironic.conf may ask for several API processes; say
    plainly that it will not fork them."""
    if (CONF.api.api_workers or 1) <= 1:
        return False
    LOG.warning("[api]api_workers = %d is not supported by the all-in-one "
                "ironic: its conductor runs in this process, so the API is "
                "served from this process alone; run ironic-api beside "
                "conductors for more API processes", CONF.api.api_workers)
    return True


def serve_forever(application=None, workers: int = 1) -> None:
    """Serve until SIGTERM or SIGINT: from this process, or from
    ``workers`` forked processes sharing its listening socket."""
    server = make_server(application)
    if workers <= 1:
        _stop_on_signals(server)
    server.prepare()
    service.freeze_startup_objects()
    LOG.info("Bare Metal API listening on http://%s:%d/%s",
             *server.bind_addr[:2],
             f" with {workers} worker processes" if workers > 1 else "")
    if workers > 1:
        _Workers(server, workers).run()
        return
    try:
        server.serve()
    finally:
        server.stop()


def _stop_on_signals(server: http_server.Server) -> None:
    """SIGTERM and SIGINT stop ``server`` after its requests in progress."""
    def _stop(signum, _frame):
        LOG.info("Signal %d received, stopping the API (process %d)",
                 signum, os.getpid())
        # The handler runs on the thread that is inside server.serve();
        # server.stop() waits for that very loop to end, so calling it here
        # would hang forever. Stop from another thread instead.
        threading.Thread(target=server.stop, name="api-stop").start()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)


class _Workers:
    """The parent of the API's worker processes.

    It binds the port, forks ``count`` workers that accept on the shared
    socket, starts a new one whenever one dies, and on SIGTERM or SIGINT
    stops them all (each finishes its requests in progress) before it
    exits. Nothing that holds a connection (database, message bus) exists
    before the fork: each worker opens its own on first use.
    """

    #: Seconds the parent waits for stopping workers before killing them.
    STOP_DEADLINE = 20.0

    def __init__(self, server: http_server.Server, count: int):
        self.server = server
        self.count = count
        self.children: dict[int, float] = {}
        self.stopping = False

    def run(self) -> None:
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)
        for _ in range(self.count):
            self._spawn()
        kill_at = None
        while self.children:
            if self.stopping:
                kill_at = kill_at or time.monotonic() + self.STOP_DEADLINE
                if time.monotonic() > kill_at:
                    self._signal_children(signal.SIGKILL)
                pid, status = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    time.sleep(0.1)
                    continue
            else:
                pid, status = os.wait()
            started = self.children.pop(pid, None)
            if started is None or self.stopping:
                continue
            LOG.warning("API worker %d ended (wait status %d); starting "
                        "another", pid, status)
            if time.monotonic() - started < 1:
                # A worker that dies at once must not make this a busy loop.
                time.sleep(1)
            self._spawn()
        self.server.close()

    def _on_signal(self, signum, _frame) -> None:
        if self.stopping:
            return
        self.stopping = True
        LOG.info("Signal %d received, stopping %d API workers", signum,
                 len(self.children))
        self._signal_children(signal.SIGTERM)

    def _signal_children(self, signum: int) -> None:
        for pid in list(self.children):
            try:
                os.kill(pid, signum)
            except ProcessLookupError:
                pass

    def _spawn(self) -> None:
        # A signal between fork() and the child's own handlers would run
        # the parent's handler in the child: hold signals across the fork.
        held = {signal.SIGTERM, signal.SIGINT}
        signal.pthread_sigmask(signal.SIG_BLOCK, held)
        try:
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    self._worker(held)
                    code = 0
                except BaseException:
                    LOG.exception("API worker %d failed", os.getpid())
                finally:
                    os._exit(code)
            self.children[pid] = time.monotonic()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, held)

    def _worker(self, held: set) -> None:
        server = self.server
        server.owns_socket = False
        _stop_on_signals(server)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, held)
        try:
            server.serve()
        finally:
            server.stop()
