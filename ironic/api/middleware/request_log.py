"""One log line per API request, as operators read them from every
OpenStack service::

    127.0.0.1 "GET /v1/nodes?limit=10" status: 200 len: 1234
    microversion: 1.115 time: 0.004123 request_id: req-...

It sits outermost in the application (``ironic.api.app``), so the line is
written under every WSGI server. It never logs a body, and a query
parameter whose name suggests a secret (``agent_token``, ``password``...)
keeps its name but loses its value.

Observers (the metrics) receive every finished request as ``(environ,
status, seconds)``, so the request is timed once for both.
"""

from __future__ import annotations

import logging
import time
from typing import Callable, Iterable
from urllib.parse import quote, unquote_plus

from ironic.api.middleware import request_id
from ironic.api.middleware import version as version_mw

LOG = logging.getLogger("ironic.api.request_log")

# Parts of a query parameter's name that mark its value as a secret.
_SECRET_WORDS = ("token", "pass", "secret", "key", "credential", "auth",
                 "signature")
# Parameters of the API whose names contain such a word but whose values
# are not secrets: kept, so the line still tells what was asked.
_NOT_SECRET = frozenset({"sort_key"})
MASK = "***"
# Characters a logged path keeps as they are; others are percent-encoded,
# so no client can write a line break or a control character into a log.
_PATH_SAFE = "/:@!$&'()*+,;=-._~"

Observer = Callable[[dict, int, float], None]


def _is_secret(name: str) -> bool:
    if "%" in name or "+" in name:
        name = unquote_plus(name)
    name = name.lower()
    return name not in _NOT_SECRET and any(w in name for w in _SECRET_WORDS)


def scrub_query(query: str) -> str:
    """``query`` with the value of every secret-looking parameter masked."""
    lowered = query.lower()
    if "%" not in query and not any(w in lowered for w in _SECRET_WORDS):
        return query
    items = []
    for item in query.split("&"):
        name, sep, _value = item.partition("=")
        items.append(f"{name}={MASK}" if sep and _is_secret(name) else item)
    return "&".join(items)


def _printable(text: str) -> str:
    if text.isascii() and text.isprintable():
        return text
    # WSGI strings carry the raw bytes as latin-1 characters.
    return quote(text.encode("latin-1", "replace"), safe=_PATH_SAFE + "%?")


def logged_target(environ: dict) -> str:
    """The request's path and (scrubbed) query string as a log shows it."""
    path = environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
    query = environ.get("QUERY_STRING")
    if query:
        path = f"{path}?{scrub_query(query)}"
    return _printable(path)


def _microversion(environ: dict) -> str:
    minor = environ.get(version_mw.ENV_KEY)
    return "-" if minor is None else f"1.{minor}"


_FORMAT = ('%s "%s %s" status: %d len: %s microversion: %s time: %.6f '
           'request_id: %s')


def log_request(environ: dict, status: int, length: int | None,
                seconds: float) -> None:
    if not LOG.isEnabledFor(logging.INFO):
        return
    args = (environ.get("REMOTE_ADDR", "-"),
            _printable(environ.get("REQUEST_METHOD", "-")),
            logged_target(environ), status, "-" if length is None else length,
            _microversion(environ), seconds,
            environ.get(request_id.ENV_KEY, "-"))
    LOG.info(_FORMAT, *args)


class RequestLogMiddleware:
    def __init__(self, app, observers: Iterable[Observer] = ()):
        self.app = app
        self.observers = tuple(observers)

    def __call__(self, environ, start_response):
        started = time.perf_counter()
        seen = [500]

        def _start(status, headers, exc_info=None):
            seen[0] = int(status[:3])
            return start_response(status, headers, exc_info)

        try:
            body = self.app(environ, _start)
        except BaseException:
            self._finish(environ, 500, None, started)
            raise
        if isinstance(body, list):
            # The usual case: the whole answer is ready, nothing to wrap.
            self._finish(environ, seen[0], sum(map(len, body)), started)
            return body
        return _CountingBody(self, environ, body, seen, started)

    def _finish(self, environ: dict, status: int, length: int | None,
                started: float) -> None:
        seconds = time.perf_counter() - started
        log_request(environ, status, length, seconds)
        for observe in self.observers:
            observe(environ, status, seconds)


class _CountingBody:
    """A streamed answer: counted as it is sent, logged when closed."""

    def __init__(self, mw: RequestLogMiddleware, environ: dict,
                 body: Iterable[bytes], seen: list, started: float):
        self._mw, self._environ, self._body = mw, environ, body
        self._seen, self._started = seen, started
        self._length = 0

    def __iter__(self):
        for chunk in self._body:
            self._length += len(chunk)
            yield chunk

    def close(self) -> None:
        try:
            close = getattr(self._body, "close", None)
            if close is not None:
                close()
        finally:
            self._mw._finish(self._environ, self._seen[0], self._length,
                             self._started)
