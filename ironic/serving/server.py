"""Serve the API with uvicorn: in this process, or from worker processes.

The all-in-one ``ironic`` runs its conductor in its own process and calls
it in-process (``rpc_transport = none``), so the API is served from that
process: ``serve()``. ``ironic-api`` with ``[api]api_workers`` above 1
has uvicorn's supervisor bind the socket and keep that many spawned
worker processes, each building the application from the same command
line: ``serve_workers()``. Both listen where ``[api]`` says (host and
port, or ``unix_socket``), over TLS when ``enable_ssl_api`` is set.
"""

from __future__ import annotations

import logging
import os
import resource
import signal
import socket
import threading
from typing import Any

import uvicorn
from uvicorn.supervisors import Multiprocess

from ironic import service
from ironic.api import app as api_app
from ironic.conf import CONF
from ironic.serving import bridge, guard, tls
from ironic.serving.worker import WorkerApp

LOG = logging.getLogger(__name__)

#: Seconds requests in progress get to finish once a stop is asked for
#: (the conductor's own drain follows in the all-in-one).
GRACEFUL_STOP = 10
#: Seconds uvicorn's supervisor waits for a worker to answer a health
#: check. A worker answers once it has imported ``ironic.serving.worker``
#: (a fraction of a second); uvicorn's 5 s is too tight on a loaded
#: machine, and a worker that dies before it answers stalls the
#: supervisor for all of this.
WORKER_HEALTH_CHECK = 15
#: Open files the process needs besides client connections (database
#: pools, logs, the listening socket, BMC clients).
SPARE_FILES = 512


def make_bridge(application=None) -> bridge.WSGIBridge:
    """The ASGI application serving ``application`` (default: the API)."""
    app: Any = application or api_app.setup_app()
    return bridge.WSGIBridge(
        app, CONF.api.server_threads,
        CONF.api.request_timeout,
        lambda scope: guard.process_guard().head_started(scope))


def make_config(app, workers: int = 1, **overrides) -> uvicorn.Config:
    """uvicorn's configuration of ``app`` from the [api] options."""
    options = dict(
        interface="asgi3", http=guard.GuardedProtocol, lifespan="on",
        host=CONF.api.host_ip, port=CONF.api.port,
        timeout_keep_alive=CONF.api.request_timeout,
        timeout_graceful_shutdown=GRACEFUL_STOP,
        backlog=2048,
        log_config=None, access_log=False, server_header=False,
        workers=workers)
    if CONF.api.enable_ssl_api:
        tls.check_tls_files()
        options["ssl_context_factory"] = tls.TLSContextFactory()
    options.update(overrides)
    return uvicorn.Config(app, **options)


def raise_open_files_limit() -> None:
    """Make room for ``[api]max_connections`` sockets (the usual soft
    limit of 1,024 would refuse connections long before)."""
    wanted = CONF.api.max_connections + SPARE_FILES
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        LOG.info("Raised the open files limit from %d to %d", soft, wanted)


def _where() -> str:
    if CONF.api.unix_socket:
        return f"unix:{CONF.api.unix_socket}"
    scheme = "https" if CONF.api.enable_ssl_api else "http"
    return f"{scheme}://{CONF.api.host_ip}:{CONF.api.port}"


def serve(application=None) -> None:
    """Serve from this process until SIGTERM or SIGINT; requests in
    progress finish first. Returns (instead of ending the process) so
    that the caller can stop what else runs here."""
    config = make_config(make_bridge(application))
    raise_open_files_limit()
    sockets = [bind_unix_socket()] if CONF.api.unix_socket else None
    service.freeze_startup_objects()
    LOG.info("Bare Metal API listening on %s", _where())
    _quiet_after_stop()
    uvicorn.Server(config).run(sockets=sockets)
    _remove_unix_socket()


def bind_unix_socket() -> socket.socket:
    """``[api]unix_socket``, bound with ``unix_socket_mode`` (a stale
    socket file from an earlier run is replaced)."""
    path = CONF.api.unix_socket
    _remove_unix_socket()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    if CONF.api.unix_socket_mode is not None:
        os.chmod(path, CONF.api.unix_socket_mode)
    sock.listen(2048)
    return sock


def _quiet_after_stop() -> None:
    # uvicorn catches SIGTERM/SIGINT while it serves, then raises the
    # signal again under the handler it found: make that one a no-op so
    # the caller's clean-up (the conductor's drain) runs.
    def _noted(signum, _frame):
        LOG.info("Signal %d received, stopping the API", signum)

    signal.signal(signal.SIGTERM, _noted)
    signal.signal(signal.SIGINT, _noted)


def _remove_unix_socket() -> None:
    if CONF.api.unix_socket:
        try:
            os.unlink(CONF.api.unix_socket)
        except OSError:
            pass


def serve_workers(prog: str, argv: list[str], workers: int) -> None:
    """Serve from ``workers`` processes until SIGTERM or SIGINT; a worker
    that dies is replaced."""
    config = make_config(WorkerApp(prog, argv), workers=workers,
                         factory=True,
                         timeout_worker_healthcheck=WORKER_HEALTH_CHECK)
    raise_open_files_limit()
    sockets = [bind_unix_socket() if CONF.api.unix_socket
               else config.bind_socket()]
    LOG.info("Bare Metal API listening on %s with %d worker processes",
             _where(), workers)
    Multiprocess(config, sockets=sockets).run()
    _remove_unix_socket()


class ServerThread:
    """A server of ``application`` on a thread of this process (tests and
    tools that drive a conductor of their own)."""

    def __init__(self, application, host: str = "127.0.0.1", port: int = 0,
                 **overrides):
        overrides.setdefault("lifespan", "off")
        self.config = make_config(make_bridge(application), host=host,
                                  port=port, **overrides)
        self.server = uvicorn.Server(self.config)
        self.thread = threading.Thread(target=self.server.run,
                                       name="api-server", daemon=True)

    def start(self, timeout: float = 30) -> ServerThread:
        self.thread.start()
        deadline = threading.Event()
        for _ in range(int(timeout / 0.05)):
            if self.server.started:
                return self
            deadline.wait(0.05)
        raise RuntimeError("the API server did not start")

    @property
    def port(self) -> int:
        return self.server.servers[0].sockets[0].getsockname()[1]

    @property
    def endpoint(self) -> str:
        scheme = "https" if self.config.is_ssl else "http"
        return f"{scheme}://{self.config.host}:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(GRACEFUL_STOP + 5)
