"""Connection limits and the request-head deadline for uvicorn.

uvicorn keeps a connection for as long as its client trickles bytes into
a request head, lets the head grow without bound, and takes every
connection offered. The protocol class here (uvicorn's own, on the
httptools parser, passed to it as ``Config(http=...)``) answers 431 and
closes a connection whose head outgrows ``MAX_HEAD``, and reports each
connection to one ``ConnectionGuard`` per process, which

* closes a connection waiting for a request head for longer than
  ``[api]request_timeout`` (from when it became free: accepted, or its
  previous response sent), however the bytes trickle in;
* refuses a client address its ``[api]max_connections_per_client``-th
  connection and beyond;
* at ``[api]max_connections``, closes the connection that has waited
  longest for a request head to make room, and refuses the newcomer only
  when every connection is inside a request.

Everything runs on the event loop's thread: no locks.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from ironic.conf import CONF

LOG = logging.getLogger(__name__)

#: Seconds between two looks for connections past their head deadline.
SWEEP_EVERY = 0.5
#: Largest request head (request line and every header), in bytes.
MAX_HEAD = 65536
_HEAD_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
                   b"Content-Length: 0\r\nConnection: close\r\n\r\n")


class ConnectionGuard:
    """Every connection of this process, and the limits on them."""

    def __init__(self, max_connections: int, per_client: int,
                 head_timeout: float, clock=time.monotonic):
        self.clock = clock
        self.max_connections = max_connections
        self.per_client = per_client
        self.head_timeout = head_timeout
        self.connections: dict[GuardedProtocol, None] = {}
        self.by_client: dict[tuple, GuardedProtocol] = {}
        self.per_address: collections.Counter = collections.Counter()
        self.refused = 0
        self.shed = 0
        self._sweeping = False

    def admit(self, conn: GuardedProtocol) -> bool:
        """Register ``conn``; False when it must be closed at once."""
        address = conn.client[0] if conn.client else None
        if address is not None and \
                self.per_address[address] >= self.per_client:
            self.refused += 1
            return False
        if len(self.connections) >= self.max_connections:
            victim = self._longest_waiting()
            if victim is None:
                self.refused += 1
                return False
            self.shed += 1
            self.forget(victim)
            victim.transport.abort()
        self.connections[conn] = None
        if conn.client:
            self.by_client[tuple(conn.client)] = conn
        if address is not None:
            self.per_address[address] += 1
        self._start_sweeping(conn.loop)
        return True

    def forget(self, conn: GuardedProtocol) -> None:
        if self.connections.pop(conn, False) is False:
            return
        if conn.client:
            self.by_client.pop(tuple(conn.client), None)
            address = conn.client[0]
            self.per_address[address] -= 1
            if self.per_address[address] <= 0:
                del self.per_address[address]

    def head_started(self, scope: dict) -> float | None:
        """When the first byte of this request's head arrived (for the
        body's deadline), if known."""
        client = scope.get("client")
        conn = self.by_client.get(tuple(client)) if client else None
        if conn is None:
            return None
        started, conn.first_byte_at = conn.first_byte_at, None
        return started

    def _longest_waiting(self) -> GuardedProtocol | None:
        waiting = [c for c in self.connections if c.waiting_for_head()]
        # No start yet means it began waiting since the last sweep: the
        # youngest.
        return min(waiting, default=None, key=lambda c: (
            c.waiting_since if c.waiting_since is not None
            else float("inf")))

    def _start_sweeping(self, loop: asyncio.AbstractEventLoop) -> None:
        if not self._sweeping:
            self._sweeping = True
            loop.call_later(SWEEP_EVERY, self._sweep, loop)

    def _sweep(self, loop: asyncio.AbstractEventLoop) -> None:
        now = self.clock()
        for conn in list(self.connections):
            if not conn.waiting_for_head():
                conn.waiting_since = None
            elif conn.waiting_since is None:
                conn.waiting_since = now
            elif now - conn.waiting_since > self.head_timeout:
                self.forget(conn)
                conn.transport.abort()
        if self.connections:
            loop.call_later(SWEEP_EVERY, self._sweep, loop)
        else:
            self._sweeping = False


_GUARD: ConnectionGuard | None = None


def process_guard() -> ConnectionGuard:
    """The guard of this process, from the configuration (created on first
    use, so that a spawned worker builds its own from its own CONF)."""
    global _GUARD
    if _GUARD is None:
        _GUARD = ConnectionGuard(CONF.api.max_connections,
                                 CONF.api.max_connections_per_client,
                                 CONF.api.request_timeout)
    return _GUARD


def reset() -> None:
    """Forget the process's guard (tests that start several servers)."""
    global _GUARD
    _GUARD = None


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, reporting to the process's guard and
    bounding the size of a request head."""

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self.waiting_since: float | None = time.monotonic()
        self.first_byte_at: float | None = None
        self.head_bytes = 0
        if not process_guard().admit(self):
            transport.abort()

    def connection_lost(self, exc) -> None:
        process_guard().forget(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.first_byte_at is None and self.waiting_for_head():
            self.first_byte_at = time.monotonic()
        super().data_received(data)
        if not self.waiting_for_head():
            # A request began within these bytes: its head was whole.
            self.head_bytes = 0
            return
        self.head_bytes += len(data)
        if self.head_bytes > MAX_HEAD and not self.transport.is_closing():
            self.transport.write(_HEAD_TOO_LARGE)
            self.transport.close()

    def shutdown(self) -> None:
        # The server is stopping: a connection between requests is dropped
        # at once (a TLS close would wait on the client), one inside a
        # request finishes it first.
        if self.waiting_for_head():
            process_guard().forget(self)
            self.transport.abort()
        else:
            super().shutdown()

    def waiting_for_head(self) -> bool:
        """No request in progress: idle, or receiving a head."""
        return self.cycle is None or self.cycle.response_complete
