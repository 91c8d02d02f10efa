"""The built-in threaded WSGI server used by ironic and ironic-api."""

from __future__ import annotations

import logging
import signal
import threading

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
    """An operator's ironic.conf may ask for several API processes; say
    plainly that this server will not fork them."""
    if (CONF.api.api_workers or 1) <= 1:
        return False
    LOG.warning("[api]api_workers = %d is not supported: this server runs "
                "one process; run ironic.api.wsgi under mod_wsgi or uWSGI "
                "for more", CONF.api.api_workers)
    return True


def serve_forever(application=None) -> None:
    warn_unsupported_workers()
    server = make_server(application)

    def _stop(signum, _frame):
        LOG.info("Signal %d received, stopping the API", signum)
        # The handler runs on the thread that is inside server.serve();
        # server.stop() waits for that very loop to end, so calling it here
        # would hang forever. Stop from another thread instead.
        threading.Thread(target=server.stop, name="api-stop").start()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    server.prepare()
    service.freeze_startup_objects()
    LOG.info("Bare Metal API listening on http://%s:%d/", *server.bind_addr[:2])
    try:
        server.serve()
    finally:
        server.stop()
