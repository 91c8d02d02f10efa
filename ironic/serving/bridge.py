"""Run the WSGI application under uvicorn, one whole request at a time.

uvicorn parses HTTP on its event loop; this ASGI application is what it
calls with each request head. Before an application thread is taken the
head is checked (RFC 9110/9112 rules h11 leaves to the application) and
the whole body is read on the event loop, within the body size limit of
the path and a deadline for the whole body. Only then does the request
run the WSGI application in one of ``[api]server_threads`` threads, so a
slow or hostile client never holds one.
"""

from __future__ import annotations

import asyncio
import io
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable
from urllib.parse import unquote_to_bytes

from ironic.api.middleware import errors, request_limits
from ironic.common import exception
from ironic.serving import guard

WSGIApp = Callable[[dict, Callable], Iterable[bytes]]

# RFC 9110 7.2 / RFC 3986 3.2.2: a registered name, IPv4 or [IPv6], and an
# optional port.
_HOST = re.compile(rb"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]*)"
                   rb"(?::[0-9]*)?")
_ENCODED_SLASH = re.compile(rb"%2[fF]")


class Refusal(Exception):
    """A request the server answers itself, closing the connection."""

    def __init__(self, status: int, text: str):
        super().__init__(text)
        self.status = status
        self.text = text


#: Most header fields in one request.
MAX_HEADERS = 100


def check_head(scope: dict, max_head: int) -> int | None:
    """The declared body length of an acceptable head; Refusal otherwise."""
    if scope["http_version"] not in ("1.1", "1.0"):
        raise Refusal(505, "Only HTTP/1.0 and HTTP/1.1 are served.")
    headers = scope["headers"]
    size = len(scope["raw_path"]) + len(scope["query_string"]) + sum(
        len(k) + len(v) + 4 for k, v in headers)
    if len(headers) > MAX_HEADERS or size > max_head:
        raise Refusal(431, "The request head is too large.")
    hosts = [v for k, v in scope["headers"] if k == b"host"]
    if scope["http_version"] == "1.1" and len(hosts) != 1:
        raise Refusal(400, "An HTTP/1.1 request needs exactly one Host.")
    if hosts and not _HOST.fullmatch(hosts[0]):
        raise Refusal(400, "The Host header is not a valid host.")
    lengths = {v for k, v in scope["headers"] if k == b"content-length"}
    chunked = any(k == b"transfer-encoding" for k, _v in scope["headers"])
    if lengths and chunked:
        # RFC 9112 6.1: a request framed two ways is how requests are
        # smuggled past a front end; refuse it and close.
        raise Refusal(400, "Content-Length and Transfer-Encoding together.")
    return int(lengths.pop()) if lengths else None


def environ_for(scope: dict, body: bytes) -> dict:
    """The WSGI environ of an ASGI HTTP scope and its whole body."""
    server = scope.get("server") or ("localhost", None)
    client = scope.get("client") or ("", 0)
    environ = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": scope.get("root_path", ""),
        "PATH_INFO": _path_info(scope["raw_path"]),
        "QUERY_STRING": scope["query_string"].decode("latin-1"),
        "SERVER_NAME": server[0],
        "SERVER_PORT": str(server[1] or ""),
        "SERVER_PROTOCOL": f"HTTP/{scope['http_version']}",
        "REMOTE_ADDR": client[0],
        "REMOTE_PORT": str(client[1]),
        "CONTENT_LENGTH": str(len(body)) if body else "",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    for name, value in scope["headers"]:
        key = _environ_key(name)
        if not key:
            continue
        text = value.decode("latin-1")
        environ[key] = (f"{environ[key]},{text}" if key in environ
                        else text)
    environ.pop("HTTP_TRANSFER_ENCODING", None)
    environ.pop("HTTP_CONTENT_LENGTH", None)
    if "HTTP_CONTENT_TYPE" in environ:
        environ["CONTENT_TYPE"] = environ.pop("HTTP_CONTENT_TYPE")
    return environ


def _path_info(raw_path: bytes) -> str:
    """The decoded path, except an encoded slash, which stays ``%2F``:
    ``/v1/nodes/a%2Fports`` names a node, not node ``a``'s ports."""
    if b"%" not in raw_path:
        return raw_path.decode("latin-1")
    return b"%2F".join(unquote_to_bytes(part) for part in
                       _ENCODED_SLASH.split(raw_path)).decode("latin-1")


_ENVIRON_KEYS: dict[bytes, str] = {}


def _environ_key(name: bytes) -> str:
    """``HTTP_X_FOO`` for ``x-foo``; "" for a name with an underscore,
    which would meet a dashed name under one key (a proxy's check of
    ``X-Auth-Token`` would not see ``X-Auth_Token``)."""
    key = _ENVIRON_KEYS.get(name)
    if key is None:
        key = "" if b"_" in name else \
            "HTTP_" + name.decode("latin-1").upper().replace("-", "_")
        if len(_ENVIRON_KEYS) < 512:
            _ENVIRON_KEYS[name] = key
    return key


class Response:
    """What the WSGI application answered, gathered in its thread."""

    def __init__(self):
        self.status = 500
        self.headers: list[tuple[bytes, bytes]] = []
        self.body: list[bytes] = []

    def start_response(self, status: str, headers, exc_info=None):
        if exc_info and self.body:
            raise exc_info[1].with_traceback(exc_info[2])
        self.status = int(status[:3])
        self.headers = [(k.lower().encode("latin-1"), v.encode("latin-1"))
                        for k, v in headers]
        return self.body.append


def run_wsgi(app: WSGIApp, environ: dict) -> Response:
    response = Response()
    result = app(environ, response.start_response)
    try:
        for chunk in result:
            if chunk:
                response.body.append(chunk)
    finally:
        close = getattr(result, "close", None)
        if close is not None:
            close()
    return response


class WSGIBridge:
    """The ASGI application uvicorn serves: one WSGI app behind it."""

    def __init__(self, app: WSGIApp, threads: int, request_timeout: float,
                 head_started: Callable[[dict], float | None] | None = None):
        self.app = app
        self.pool = ThreadPoolExecutor(threads,
                                       thread_name_prefix="api-request")
        self.request_timeout = request_timeout
        self.head_started = head_started or (lambda scope: None)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        try:
            body = await self._read_request(scope, receive)
        except Refusal as refusal:
            await _send_refusal(send, refusal)
            return
        if body is None:
            return
        environ = environ_for(scope, body)
        response = await asyncio.get_running_loop().run_in_executor(
            self.pool, run_wsgi, self.app, environ)
        await send({"type": "http.response.start",
                    "status": response.status,
                    "headers": response.headers})
        await send({"type": "http.response.body",
                    "body": b"".join(response.body)})

    async def _read_request(self, scope: dict, receive) -> bytes | None:
        """The whole body, within its limit and deadline; None when the
        client went away."""
        declared = check_head(scope, guard.MAX_HEAD)
        limit = request_limits.body_limit(scope["path"])
        if declared is not None and declared > limit:
            # Decided by the declared length: no "100 Continue" invites a
            # body that would be refused anyway.
            raise _too_large(limit)
        if declared == 0:
            return b""
        deadline = (self.head_started(scope) or time.monotonic()) + \
            self.request_timeout
        try:
            return await asyncio.wait_for(
                _receive_body(receive, limit),
                max(0.0, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            raise Refusal(408, "The request body did not arrive in "
                          "time.") from None

    async def _lifespan(self, receive, send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.pool.shutdown(wait=True)
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _receive_body(receive, limit: int) -> bytes | None:
    chunks = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


def _too_large(limit: int) -> Refusal:
    return Refusal(413, exception.RequestTooLarge(limit=limit).message)


async def _send_refusal(send, refusal: Refusal) -> None:
    """The API's own error document, and the connection closed."""
    body = errors.error_body(refusal.status, refusal.text)
    await send({"type": "http.response.start", "status": refusal.status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
