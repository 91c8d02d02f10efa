"""Request limits enforced before pecan sees the request.

pecan reads and parses a JSON body on its own while routing, before any
handler can check it. This middleware runs first:

* a declared ``Content-Length`` over ``[api]max_json_body_size`` (KiB;
  ``max_json_body_size_provision`` and ``_inspection`` on those two
  endpoints) is answered 413 without reading the body;
* a body without a length (chunked) is read at most one byte past the limit,
  so a client can never make the service buffer more than the limit;
* a body nesting arrays/objects deeper than ``[api]max_json_body_depth`` is
  answered 400, measured without recursion;
* inspection data (``POST /v1/continue_inspection``, unauthenticated) must
  be a JSON object of at most ``MAX_INSPECTION_VALUES`` values, counted
  with one C-speed scan, before anything parses it;
* a NUL character (``%00``) in the path or query string is answered 400:
  no identifier or filter value can hold one, and PostgreSQL refuses them
  in text, so the request would otherwise fail in the database.

The body read here is handed on in memory with its exact length.
"""

from __future__ import annotations

import io
import logging

from ironic.api import body as body_mod
from ironic.api.middleware.errors import error_app_response
from ironic.common import exception
from ironic.conf import CONF

LOG = logging.getLogger(__name__)


#: Where the body read here is kept in the environ.
RAW_BODY_KEY = "ironic.request_body"


class BodyTooLarge(Exception):
    """The body is over the limit (raised while reading it)."""


#: Most values in inspection data, counted by their separators (commas
#: and colons, two per value at most). The real agent's data from the
#: lab machine has 251 separators in 3.3 KiB; a server with a hundred
#: disks and NICs would have tens of thousands. A body of a million tiny
#: values is what costs seconds of CPU and hundreds of MiB to parse.
MAX_INSPECTION_VALUES = 200_000


def inspection_shape_error(raw: bytes) -> str | None:
    """Why ``raw`` cannot be inspection data, judged without parsing."""
    if not raw.lstrip()[:1] == b"{":
        return "Inspection data must be a JSON object."
    if raw.count(b",") + raw.count(b":") > 2 * MAX_INSPECTION_VALUES:
        return (f"Inspection data has more than {MAX_INSPECTION_VALUES} "
                f"values.")
    return None


def body_limit(path: str) -> int:
    """The largest body, in bytes, accepted on ``path``: config drives
    (provision) and inspection data have limits of their own."""
    path = path.rstrip("/")
    if path.endswith("/states/provision"):
        kib = CONF.api.max_json_body_size_provision
    elif path.endswith("/continue_inspection"):
        kib = CONF.api.max_json_body_size_inspection
    else:
        kib = CONF.api.max_json_body_size
    return kib * 1024


def _declared_length(environ) -> int | None:
    value = environ.get("CONTENT_LENGTH")
    if not value:
        return None
    try:
        length = int(value)
    except ValueError:
        return None
    return length if length >= 0 else None


def _is_chunked(environ) -> bool:
    return "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()


def read_bounded(stream, length: int | None, limit: int) -> bytes:
    """At most ``length`` bytes of ``stream`` (all of it when ``None``);
    BodyTooLarge as soon as more than ``limit`` bytes arrive."""
    want = limit + 1 if length is None else min(length, limit + 1)
    chunks = []
    got = 0
    while got < want:
        chunk = stream.read(min(65536, want - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    if got > limit:
        raise BodyTooLarge()
    return b"".join(chunks)


def _has_nul(environ) -> bool:
    return ("\x00" in environ.get("PATH_INFO", "")
            or "%00" in environ.get("QUERY_STRING", ""))


class RequestLimitMiddleware:
    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if _has_nul(environ):
            return error_app_response(
                start_response, 400,
                "The URL must not contain NUL (%00) characters.")
        length = _declared_length(environ)
        if not length and not _is_chunked(environ):
            return self.app(environ, start_response)
        limit = body_limit(environ.get("PATH_INFO", ""))
        try:
            if length is not None and length > limit:
                raise BodyTooLarge()
            raw = read_bounded(environ["wsgi.input"],
                               None if _is_chunked(environ) else length,
                               limit)
        except BodyTooLarge:
            return error_app_response(
                start_response, 413,
                exception.RequestTooLarge(limit=limit).message)
        except Exception as e:  # noqa: BLE001 - the server's own error
            # The WSGI server's input stream raises its own errors on a
            # malformed or cut body (gunicorn's InvalidChunkSize and
            # NoMoreData, mod_wsgi's OSError): the client's fault, 400.
            LOG.info("Request body of %s %s could not be read: %s",
                     environ.get("REQUEST_METHOD"),
                     environ.get("PATH_INFO"), e)
            return error_app_response(
                start_response, 400,
                "The request body could not be read: it is malformed or "
                "incomplete.")
        path = environ.get("PATH_INFO", "").rstrip("/")
        shape = (inspection_shape_error(raw)
                 if path.endswith("/continue_inspection") else None)
        if shape:
            return error_app_response(start_response, 400, shape)
        depth = CONF.api.max_json_body_depth
        if body_mod.nesting_depth_exceeds(raw, depth):
            return error_app_response(
                start_response, 400, body_mod.too_deep_error(depth).message)
        environ["wsgi.input"] = io.BytesIO(raw)
        environ["CONTENT_LENGTH"] = str(len(raw))
        # The same bytes for method.json_body, without reading them again
        # through pecan's request proxies.
        environ[RAW_BODY_KEY] = raw
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        return self.app(environ, start_response)
