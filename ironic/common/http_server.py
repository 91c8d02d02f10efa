"""The built-in HTTP/1.1 server that runs the WSGI application.

The API's clients (openstacksdk, Nova, the agent) keep their connections
alive and send one request at a time on each. Between requests a
connection is parked: one selector watches every parked connection, and the
thread waiting on it (the leader) answers the next request that arrives
itself, then goes back to the selector. No thread is woken to hand the
request to, and no two threads take turns on the interpreter lock for it.
Measured against a thread per connection with eight clients on a 2-core
machine: half the context switches and a tenth less CPU per node GET.
(cheroot, used before that, handed each request from a selector thread to a
worker and back: about 0.25 ms of CPU per request more.)

A request that runs long (a BMC call, a slow client, a large page) must
not hold up the others: a monitor checks the leader every ``STALL_CHECK``
seconds, and when it finds it on the same request twice, a new leader takes
over the selector. The old one finishes its request and ends.

At most ``threads`` requests run the application at once: the others wait
for a slot with their request read, so the database pool and the
interpreter lock see no more callers than that, however many connections
are open.

Deliberately small: no TLS (the all-in-one never served it), no HTTP/2, no
pipelining beyond reading requests one after the other, and only the
``chunked`` transfer coding for request bodies.
"""

from __future__ import annotations

import email.utils
import logging
import queue
import re
import select
import selectors
import socket
import sys
import threading
import time
from typing import Callable, Iterable, Iterator
from urllib.parse import unquote_to_bytes, urlsplit

LOG = logging.getLogger(__name__)

#: Longest request line or header line, in bytes.
MAX_LINE = 16384
#: Most header lines in one request.
MAX_HEADERS = 100
#: Open connections (each a thread) at most: beyond, accepting waits.
MAX_CONNECTIONS = 1000
#: Open connections beyond which responses close their connection instead
#: of keeping it alive, so that idle clients cannot fill MAX_CONNECTIONS.
MAX_KEEPALIVE_CONNECTIONS = 750
#: Seconds between the monitor's looks at the leader: a request it finds
#: in progress twice (so running between one and two of these) gets the
#: selector handed to a new leader.
STALL_CHECK = 0.02
#: Looks at an idle leader before the monitor sleeps until work comes.
IDLE_CHECKS = 50
#: An unread request body up to this size is read and dropped so that the
#: connection can carry the next request; a longer one closes it.
DRAIN_LIMIT = 65536

_TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_VERSION = re.compile(rb"HTTP/(\d)\.(\d)")
_STATUS = re.compile(r"[1-5]\d\d [^\r\n]*")
_ENCODED_SLASH = re.compile(rb"%2[fF]")
_REASONS = {400: "Bad Request", 408: "Request Timeout",
            414: "URI Too Long", 431: "Request Header Fields Too Large",
            500: "Internal Server Error", 501: "Not Implemented",
            505: "HTTP Version Not Supported"}
# Responses that never have a body (RFC 9110 6.4.1).
_NO_BODY_STATUS = ("1", "204", "304")

WSGIApp = Callable[[dict, Callable], Iterable[bytes]]


class _Reject(Exception):
    """A request the server answers itself, then closes the connection."""

    def __init__(self, code: int, text: str):
        super().__init__(text)
        self.code = code
        self.text = text


class _LengthBody:
    """``wsgi.input`` for a body of a declared length.

    Never raises: a client that stops sending or goes away gives a short
    body (which the application answers as malformed) and a connection
    that is closed after the response.
    """

    def __init__(self, rfile, length: int):
        self._rfile = rfile
        self.left = length
        self.broken = False

    def read(self, size: int | None = -1) -> bytes:
        return self._bounded(self._rfile.read, size, whole=True)

    def readline(self, size: int | None = -1) -> bytes:
        return self._bounded(self._rfile.readline, size, whole=False)

    def _bounded(self, reader: Callable[[int], bytes], size: int | None,
                 whole: bool) -> bytes:
        if self.left <= 0:
            return b""
        if size is None or size < 0 or size > self.left:
            size = self.left
        try:
            data = reader(size)
        except OSError:
            data = b""
        if not data or (whole and len(data) < size):
            # The client went away, or stopped sending, within its body.
            self.broken = True
            self.left = 0
        else:
            self.left -= len(data)
        return data

    def readlines(self, hint: int = -1) -> list[bytes]:
        return list(self)

    def __iter__(self):
        while line := self.readline():
            yield line

    def unread(self) -> int | None:
        """Bytes of the body nobody read; None once the stream broke."""
        return None if self.broken else self.left


class _ChunkedBody(_LengthBody):
    """``wsgi.input`` for a body sent with ``Transfer-Encoding: chunked``.

    A malformed chunk ends the body early, as a lost connection does.
    """

    def __init__(self, rfile):
        super().__init__(rfile, 0)
        self._chunk_left = 0
        self._finished = False

    def _next_chunk(self) -> bool:
        """Read a chunk's size line; False at the end of the body."""
        try:
            line = self._rfile.readline(MAX_LINE + 1)
            size_text = line.split(b";", 1)[0].strip()
            if not line.endswith(b"\n") or not size_text or \
                    size_text.strip(b"0123456789abcdefABCDEF"):
                raise ValueError(line[:40])
            self._chunk_left = int(size_text, 16)
            if self._chunk_left == 0:
                # Trailer fields are read and ignored.
                for _ in range(MAX_HEADERS + 1):
                    if self._rfile.readline(MAX_LINE + 1) in (b"\r\n", b"\n"):
                        self._finished = True
                        return False
                raise ValueError("trailer too long")
            return True
        except (OSError, ValueError):
            self.broken = self._finished = True
            return False

    def read(self, size: int | None = -1) -> bytes:
        out = []
        want = -1 if size is None or size < 0 else size
        while want != 0 and not self._finished:
            if self._chunk_left == 0 and not self._next_chunk():
                break
            n = self._chunk_left if want < 0 else min(want, self._chunk_left)
            try:
                data = self._rfile.read(n)
                self._chunk_left -= len(data)
                if len(data) < n or (self._chunk_left == 0 and
                                     self._rfile.read(2) != b"\r\n"):
                    raise ValueError("short chunk")
            except (OSError, ValueError):
                self.broken = self._finished = True
                break
            out.append(data)
            if want > 0:
                want -= n
        return b"".join(out)

    def readline(self, size: int | None = -1) -> bytes:
        line = bytearray()
        while size is None or size < 0 or len(line) < size:
            byte = self.read(1)
            if not byte:
                break
            line += byte
            if byte == b"\n":
                break
        return bytes(line)

    def unread(self) -> int | None:
        if self.broken:
            return None
        return 0 if self._finished else DRAIN_LIMIT + 1


_DATE = [0, ""]


def _http_date() -> str:
    # One formatting per second is enough for a header with that precision.
    now = int(time.time())
    if _DATE[0] != now:
        _DATE[1] = email.utils.formatdate(now, usegmt=True)
        _DATE[0] = now
    return _DATE[1]


class _Stream:
    """A connection's input, buffered: ``readline`` and ``read`` as a
    buffered socket file has them (an ``OSError`` when the socket times
    out), and ``pending()``, which a socket file cannot tell: whether bytes
    of a next request already arrived (pipelining) and so no selector would
    report them."""

    __slots__ = ("_sock", "_buf", "_pos")

    def __init__(self, sock: socket.socket):
        self._sock = sock
        self._buf = b""
        self._pos = 0

    def pending(self) -> bool:
        return self._pos < len(self._buf)

    def _fill(self) -> bool:
        data = self._sock.recv(65536)
        if not data:
            return False
        if self._pos < len(self._buf):
            self._buf = self._buf[self._pos:] + data
        else:
            self._buf = data
        self._pos = 0
        return True

    def _take(self, size: int) -> bytes:
        start = self._pos
        self._pos = start + size
        return self._buf[start:self._pos]

    def readline(self, limit: int = -1) -> bytes:
        while True:
            have = len(self._buf) - self._pos
            end = self._buf.find(b"\n", self._pos)
            if end >= 0:
                size = end + 1 - self._pos
                return self._take(size if limit < 0 else min(size, limit))
            if 0 <= limit <= have or not self._fill():
                return self._take(have if limit < 0 else min(have, limit))

    def read(self, size: int) -> bytes:
        have = len(self._buf) - self._pos
        if have >= size:
            return self._take(size)
        # A body longer than what arrived with the head: the rest straight
        # from the socket, no more than it needs, joined once (appending to
        # the buffer would copy a large body over and over).
        parts = [self._take(have)]
        needed = size - have
        while needed > 0:
            data = self._sock.recv(min(needed, 1 << 20))
            if not data:
                break
            parts.append(data)
            needed -= len(data)
        return b"".join(parts)

    def head_lines(self) -> list[bytes] | None:
        """The header lines of a head that arrived whole, each with its
        CRLF, and the blank line after them taken too; None when the head
        is not all here, or has a bare CR or LF (read it line by line)."""
        buf, pos = self._buf, self._pos
        if buf.startswith(b"\r\n", pos):
            self._pos = pos + 2
            return []
        end = buf.find(b"\r\n\r\n", pos)
        if end < 0:
            return None
        head = buf[pos:end + 2]
        crlf = head.count(b"\r\n")
        if head.count(b"\n") != crlf or head.count(b"\r") != crlf:
            return None
        self._pos = end + 4
        return head.splitlines(keepends=True)


class _Connection:
    __slots__ = ("sock", "addr", "busy", "stream", "idle_since")

    def __init__(self, sock: socket.socket, addr):
        self.sock = sock
        self.addr = addr
        # True while a request is being answered: stop() lets it finish.
        # A connection that is not busy is parked in the selector.
        self.busy = False
        self.stream = _Stream(sock)
        self.idle_since = time.monotonic()


class _Watcher:
    """The parked connections. Each is reported once when bytes arrive for
    it, then not again until it is parked anew: epoll's one-shot mode
    re-arms it with one call, where there is epoll; elsewhere it is
    registered and unregistered with a selector."""

    def __init__(self):
        self._conns: dict[int, _Connection] = {}
        self._epoll = select.epoll() if hasattr(select, "epoll") else None
        self._selector = (selectors.DefaultSelector() if self._epoll is None
                          else None)

    def park(self, conn: _Connection) -> None:
        fd = conn.sock.fileno()
        known = fd in self._conns
        # Known before it is armed: a leader already waiting is told at
        # once, and an event for a number it does not know is dropped.
        self._conns[fd] = conn
        try:
            if self._epoll is None:
                self._selector.register(fd, selectors.EVENT_READ)
            elif not known:
                self._epoll.register(fd, _ONE_READ)
            else:
                try:
                    self._epoll.modify(fd, _ONE_READ)
                except FileNotFoundError:
                    # The number was left by a socket closed unannounced
                    # (its registration went with it): a new one.
                    self._epoll.register(fd, _ONE_READ)
        except BaseException:
            del self._conns[fd]
            raise

    def taken(self, conn: _Connection) -> None:
        """``conn`` was reported and is being answered."""
        if self._epoll is None:
            self._selector.unregister(conn.sock.fileno())

    def forget(self, conn: _Connection, parked: bool) -> None:
        """Before ``conn`` is closed."""
        fd = conn.sock.fileno()
        if self._conns.pop(fd, None) is None:
            return
        try:
            if self._epoll is not None:
                self._epoll.unregister(fd)
            elif parked:
                self._selector.unregister(fd)
        except (OSError, KeyError, ValueError):
            # Not registered any more: closing the socket is all that is
            # left to do, and the caller does it.
            pass

    def wait(self, timeout: float) -> list[_Connection]:
        if self._epoll is not None:
            # One at a time: a connection reported is disarmed, and one
            # left in a leader's batch while it answers a request that
            # stalls would wait for that request.
            events = self._epoll.poll(timeout, 1)
        else:
            events = [(key.fd, mask) for key, mask
                      in self._selector.select(timeout)]
        conns = self._conns
        return [conns[fd] for fd, _ in events if fd in conns]


_ONE_READ = getattr(select, "EPOLLIN", 0) | getattr(select, "EPOLLONESHOT", 0)


class _Leader:
    """What the monitor sees of a leader: the request it is on."""

    __slots__ = ("busy", "requests")

    def __init__(self):
        self.busy = False
        self.requests = 0


class _Response:
    """What the application said of the response, and what was sent."""

    def __init__(self, sock: socket.socket, head_only: bool,
                 http11: bool, keep_alive: bool,
                 stopping: threading.Event):
        self.sock = sock
        self.stopping = stopping
        self.head_only = head_only
        self.http11 = http11
        self.keep_alive = keep_alive
        self.status: str | None = None
        self.headers: list[tuple[str, str]] = []
        self.sent = False
        self.chunked = False
        self.no_body = False
        self.length: int | None = None

    def start_response(self, status: str, headers: list[tuple[str, str]],
                       exc_info=None) -> Callable[[bytes], None]:
        if exc_info:
            try:
                if self.sent:
                    raise exc_info[1].with_traceback(exc_info[2])
            finally:
                exc_info = None
        elif self.status is not None:
            raise AssertionError("start_response called twice")
        if not isinstance(status, str) or not _STATUS.fullmatch(status):
            raise ValueError(f"invalid status {status!r}")
        length = None
        for name, value in headers:
            if "\r" in name or "\n" in name or ":" in name or \
                    "\r" in value or "\n" in value:
                raise ValueError(f"invalid header {name!r}")
            lower = name.lower()
            if lower == "content-length":
                length = int(value)
            elif lower == "connection" and "close" in value.lower():
                self.keep_alive = False
        self.status = status
        self.headers = headers
        self.length = length
        return self.write

    def _head(self, body_length: int | None) -> bytes:
        status = self.status
        lines = [f"HTTP/1.1 {status}\r\n"]
        lines.extend(f"{name}: {value}\r\n" for name, value in self.headers
                     if name.lower() != "connection")
        lines.append(f"Date: {_http_date()}\r\n")
        self.no_body = status.startswith(_NO_BODY_STATUS)
        if self.length is None and not self.no_body:
            if body_length is not None:
                self.length = body_length
                lines.append(f"Content-Length: {body_length}\r\n")
            elif self.http11:
                self.chunked = True
                lines.append("Transfer-Encoding: chunked\r\n")
            else:
                # An HTTP/1.0 client reads the body to the connection's end.
                self.keep_alive = False
        if self.stopping.is_set():
            # A server shutting down takes no further request here.
            self.keep_alive = False
        if not self.keep_alive:
            lines.append("Connection: close\r\n")
        elif not self.http11:
            lines.append("Connection: keep-alive\r\n")
        lines.append("\r\n")
        return "".join(lines).encode("latin-1")

    def send(self, data: bytes, body_length: int | None = None) -> None:
        if self.status is None:
            raise AssertionError("write() before start_response()")
        out = b""
        if not self.sent:
            out = self._head(body_length)
            self.sent = True
        if data and not (self.head_only or self.no_body):
            out += (b"%x\r\n%s\r\n" % (len(data), data) if self.chunked
                    else data)
        if out:
            self.sock.sendall(out)

    def write(self, data: bytes) -> None:
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("a WSGI body must be bytes")
        self.send(bytes(data))

    def finish(self) -> None:
        if not self.sent:
            self.send(b"", 0)
        elif self.chunked and not (self.head_only or self.no_body):
            self.sock.sendall(b"0\r\n\r\n")


class Server:
    """A threaded WSGI server: ``prepare()``, then ``serve()`` (blocking)
    until ``stop()`` is called from another thread."""

    def __init__(self, bind_addr: tuple[str, int], app: WSGIApp,
                 threads: int = 8, timeout: float = 60):
        self.bind_addr = bind_addr
        self.app = app
        self.threads = threads
        self.timeout = timeout
        #: Seconds stop() waits for requests in progress.
        self.shutdown_timeout = 5.0
        #: False in processes that share the listening socket: shutting it
        #: down to wake accept() at once would stop it for all of them.
        self.owns_socket = True
        # Slots for requests in the application, as tokens: a SimpleQueue
        # waits and wakes in C, where threading.Semaphore runs a Condition
        # in Python on every request.
        self._slots: queue.SimpleQueue = queue.SimpleQueue()
        for slot in range(threads):
            self._slots.put(slot)
        self._socket: socket.socket | None = None
        self._connections: set[_Connection] = set()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._serving = threading.Event()
        self._watcher: _Watcher | None = None
        self._leader = _Leader()
        #: Set when work comes to a monitor that went to sleep.
        self._wake_monitor = threading.Event()
        self._monitor_asleep = False
        self._next_expiry = 0.0

    # -- life cycle --------------------------------------------------------

    def prepare(self) -> None:
        """Bind and listen (port 0 picks a free port: see ``bind_addr``)."""
        host, port = self.bind_addr[:2]
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
            sock.listen(socket.SOMAXCONN)
        except OSError:
            sock.close()
            raise
        # A timeout lets the accept loop see stop() even where shutting a
        # listening socket down does not wake a blocked accept().
        sock.settimeout(1.0)
        self._socket = sock
        self.bind_addr = sock.getsockname()[:2]

    def serve(self) -> None:
        if self._socket is None:
            self.prepare()
        self._watcher = _Watcher()
        self._serving.set()
        threading.Thread(target=self._monitor, name="api-monitor",
                         daemon=True).start()
        self._start_leader(self._leader)
        try:
            self._accept_loop()
        finally:
            self._serving.clear()

    def _accept_loop(self) -> None:
        sock = self._socket
        while not self._stopping.is_set():
            if len(self._connections) >= MAX_CONNECTIONS:
                self._stopping.wait(0.01)
                continue
            try:
                client, addr = sock.accept()
            except TimeoutError:
                continue
            except OSError as e:
                if self._stopping.is_set():
                    return
                # Out of file descriptors, say: wait for some to close.
                LOG.warning("The API server could not accept a connection: "
                            "%s", e)
                self._stopping.wait(0.1)
                continue
            try:
                client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                client.settimeout(self.timeout)
            except OSError:
                client.close()
                continue
            conn = _Connection(client, addr)
            with self._lock:
                if self._stopping.is_set():
                    client.close()
                    return
                self._connections.add(conn)
                try:
                    self._park(conn)
                except OSError as e:
                    self._connections.discard(conn)
                    refusal = e
                else:
                    refusal = None
            if refusal is not None:
                # The watcher refused it (out of memory, say): this client
                # only is turned away.
                LOG.warning("The API server could not watch a connection: "
                            "%s", refusal)
                client.close()

    def stop(self) -> None:
        """Stop accepting, close idle connections, give the requests in
        progress ``shutdown_timeout`` seconds to finish, then close the
        rest. Safe to call more than once, from any thread but the one in
        ``serve()``."""
        with self._lock:
            if self._stopping.is_set():
                first = False
            else:
                first = True
                self._stopping.set()
                idle = [c for c in self._connections if not c.busy]
                for conn in idle:
                    self._drop(conn)
        self._wake_monitor.set()
        if not first:
            self._stopped.wait(self.shutdown_timeout + 2)
            return
        if self._socket is not None and self.owns_socket:
            try:
                # Wakes an accept() blocked in another thread on Linux.
                self._socket.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for conn in idle:
            _close(conn)
        deadline = time.monotonic() + self.shutdown_timeout
        while time.monotonic() < deadline:
            with self._lock:
                if not self._connections:
                    break
            time.sleep(0.01)
        with self._lock:
            left = list(self._connections)
        for conn in left:
            _shutdown(conn.sock)
        while self._serving.is_set() and time.monotonic() < deadline + 1:
            time.sleep(0.01)
        if self._socket is not None:
            self._socket.close()
        # The watcher is not closed here: a leader may be about to wait on
        # it, and a closed epoll's number, taken by the next one opened,
        # would have that leader take (and lose) another server's events.
        # It closes with its last reference, once the leaders are gone.
        self._stopped.set()

    def close(self) -> None:
        """Close the listening socket of a server that never served (the
        parent of worker processes)."""
        if self._socket is not None:
            self._socket.close()

    # -- leaders -----------------------------------------------------------

    def _park(self, conn: _Connection) -> None:
        """Watch ``conn`` for its next request (``_lock`` held)."""
        conn.busy = False
        conn.idle_since = time.monotonic()
        self._watcher.park(conn)

    def _drop(self, conn: _Connection) -> None:
        """Forget ``conn`` (``_lock`` held); the caller closes it."""
        self._watcher.forget(conn, parked=not conn.busy)
        self._connections.discard(conn)

    def _claim(self, conn: _Connection) -> bool:
        """Take a parked connection the watcher reported; False when
        another leader took it first or it was closed meanwhile."""
        with self._lock:
            if conn.busy or conn not in self._connections:
                return False
            self._watcher.taken(conn)
            conn.busy = True
        return True

    def _start_leader(self, leader: _Leader) -> None:
        threading.Thread(target=self._lead, args=(leader,),
                         name="api-leader", daemon=True).start()

    def _lead(self, me: _Leader) -> None:
        """Wait for requests on the parked connections and answer each
        one here, until another leader takes over or the server stops."""
        watcher = self._watcher
        timeout = min(0.5, self.timeout / 2)
        try:
            while self._leader is me and not self._stopping.is_set():
                ready = watcher.wait(timeout)
                for conn in ready:
                    if self._claim(conn):
                        self._answer(me, conn)
                        if self._leader is not me:
                            # The rest of this batch is reported to the
                            # new leader: they are still parked.
                            return
                self._expire_idle()
        except Exception:
            LOG.exception("The API server's leader thread failed")
            self._promote(me)

    def _answer(self, me: _Leader, conn: _Connection) -> None:
        me.busy = True
        if self._monitor_asleep:
            self._monitor_asleep = False
            self._wake_monitor.set()
        keep_alive = False
        try:
            keep_alive = self._serve_requests(me, conn)
        except Exception:
            LOG.exception("Unexpected error on an API connection from %s",
                          conn.addr)
        finally:
            me.busy = False
            with self._lock:
                parked = keep_alive and not self._stopping.is_set()
                if parked:
                    self._park(conn)
                else:
                    self._drop(conn)
            if not parked:
                _close(conn)

    def _serve_requests(self, me: _Leader, conn: _Connection) -> bool:
        """Answer the requests that arrived on ``conn``; True when it
        stays open, to be parked."""
        stream = conn.stream
        blank_lines = 0
        while not self._stopping.is_set():
            try:
                line = stream.readline(MAX_LINE + 1)
            except OSError:
                # Idle too long, reset by the client, or stop().
                return False
            if not line:
                return False
            if line in (b"\r\n", b"\n") and blank_lines < 10:
                # Tolerated before a request line (RFC 9112 2.2).
                blank_lines += 1
                if not stream.pending():
                    return True
                continue
            blank_lines = 0
            me.requests += 1
            if not self._handle(conn, stream, line):
                return False
            if not stream.pending():
                return True
        return False

    def _expire_idle(self) -> None:
        """Close connections parked for longer than ``timeout``."""
        now = time.monotonic()
        if now < self._next_expiry:
            return
        self._next_expiry = now + min(1.0, self.timeout / 4)
        with self._lock:
            expired = [c for c in self._connections
                       if not c.busy and now - c.idle_since >= self.timeout]
            for conn in expired:
                self._drop(conn)
        for conn in expired:
            _close(conn)

    def _promote(self, old: _Leader) -> None:
        """A new leader for the selector, if ``old`` still is the leader."""
        with self._lock:
            if self._leader is not old or self._stopping.is_set():
                return
            new = self._leader = _Leader()
        self._start_leader(new)

    def _monitor(self) -> None:
        """Find a leader stuck on one request, and replace it."""
        seen = None
        idle_checks = 0
        while not self._stopping.is_set():
            if idle_checks >= IDLE_CHECKS:
                # Nothing to watch: sleep until a leader takes a request.
                self._wake_monitor.clear()
                self._monitor_asleep = True
                if not self._leader.busy:
                    self._wake_monitor.wait()
                self._monitor_asleep = False
                idle_checks = 0
            if self._stopping.wait(STALL_CHECK):
                return
            leader = self._leader
            if not leader.busy:
                idle_checks += 1
                seen = None
                continue
            idle_checks = 0
            if seen == (leader, leader.requests):
                self._promote(leader)
                seen = None
            else:
                seen = (leader, leader.requests)

    def _handle(self, conn: _Connection, rfile, line: bytes) -> bool:
        """Answer one request; True when the connection stays open."""
        try:
            environ, http11, keep_alive = self._read_request(conn, rfile,
                                                              line)
        except _Reject as e:
            _send_plain(conn.sock, e.code, e.text)
            return False
        except OSError:
            # The client went quiet or away in the middle of its head.
            _send_plain(conn.sock, 408, "The request was not received in "
                                        "time.")
            return False
        body = environ["wsgi.input"]
        if http11 and environ.get("HTTP_EXPECT", "").lower() == \
                "100-continue":
            try:
                conn.sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            except OSError:
                return False
        # (A server that is stopping is handled where the head is sent.)
        if len(self._connections) > MAX_KEEPALIVE_CONNECTIONS:
            keep_alive = False
        response = _Response(conn.sock, environ["REQUEST_METHOD"] == "HEAD",
                             http11, keep_alive, self._stopping)
        slot = self._slots.get()
        try:
            if not self._run_app(environ, response):
                return False
        finally:
            self._slots.put(slot)
        unread = body.unread()
        if unread is None or unread > DRAIN_LIMIT:
            return False
        if unread:
            body.read(unread)
        return response.keep_alive and not body.broken

    def _run_app(self, environ: dict, response: _Response) -> bool:
        """Run the application; False when the connection must close."""
        try:
            result = self.app(environ, response.start_response)
            try:
                if isinstance(result, (list, tuple)) and len(result) == 1 \
                        and not response.sent:
                    # The usual case: one body, sent with the head in one
                    # write.
                    body = result[0]
                    if not isinstance(body, (bytes, bytearray)):
                        raise TypeError("a WSGI body must be bytes")
                    response.send(bytes(body), len(body))
                else:
                    for chunk in result:
                        if chunk:
                            response.write(chunk)
                response.finish()
            finally:
                close = getattr(result, "close", None)
                if close is not None:
                    close()
        except OSError:
            # The client went away while the response was being sent.
            return False
        except Exception:
            LOG.exception("The API application failed on %s %s",
                          environ.get("REQUEST_METHOD"),
                          environ.get("PATH_INFO"))
            if not response.sent:
                _send_plain(response.sock, 500, "The server failed to "
                                                "answer the request.")
            return False
        return True

    def _read_request(self, conn: _Connection, rfile, line: bytes
                      ) -> tuple[dict, bool, bool]:
        if not line.endswith(b"\n"):
            if len(line) > MAX_LINE:
                raise _Reject(414, "The request line is too long.")
            raise ConnectionError("the connection closed inside the "
                                  "request line")
        parts = line.rstrip(b"\r\n").split(b" ")
        if len(parts) != 3 or not _TOKEN.fullmatch(parts[0]):
            raise _Reject(400, "Malformed request line.")
        method, target, version = parts
        match = _VERSION.fullmatch(version)
        if not match:
            raise _Reject(400, "Malformed HTTP version.")
        if match.group(1) != b"1":
            raise _Reject(505, "Only HTTP/1.0 and HTTP/1.1 are served.")
        http11 = match.group(2) != b"0"
        if target.startswith(b"/"):
            path, _, query = target.partition(b"?")
        elif target.startswith((b"http://", b"https://")):
            # The absolute form, as a proxy may send.
            split = urlsplit(target)
            path, query = split.path or b"/", split.query
        elif target == b"*" and method == b"OPTIONS":
            path, query = b"*", b""
        else:
            raise _Reject(400, "Malformed request target.")
        environ = {
            "REQUEST_METHOD": method.decode("ascii"),
            "SCRIPT_NAME": "",
            "PATH_INFO": _path_info(path),
            "QUERY_STRING": query.decode("latin-1"),
            "REQUEST_URI": target.decode("latin-1"),
            "SERVER_NAME": self.bind_addr[0],
            "SERVER_PORT": str(self.bind_addr[1]),
            "SERVER_PROTOCOL": version.decode("ascii"),
            "REMOTE_ADDR": conn.addr[0],
            "REMOTE_PORT": str(conn.addr[1]),
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": "http",
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
            "wsgi.input_terminated": True,
        }
        _read_headers(rfile, environ)
        connection = environ.get("HTTP_CONNECTION", "").lower()
        keep_alive = ("close" not in connection if http11
                      else "keep-alive" in connection)
        environ["wsgi.input"] = _body(rfile, environ, http11)
        return environ, http11, keep_alive


def _path_info(path: bytes) -> str:
    """The decoded path, except an encoded slash, which stays ``%2F``:
    ``/v1/nodes/a%2Fports`` names a node, not node ``a``'s ports."""
    if b"%" not in path:
        return path.decode("latin-1")
    return b"%2F".join(unquote_to_bytes(part) for part in
                       _ENCODED_SLASH.split(path)).decode("latin-1")


# Header name -> environ key, for the names seen so far (bounded): the same
# few names arrive with every request of every client.
_ENVIRON_KEYS: dict[bytes, str] = {}


def _environ_key(name: bytes) -> str:
    """The environ key of a valid header name; "" for a dropped one."""
    if b"_" in name:
        # X-Auth_Token and X-Auth-Token would meet under one environ key;
        # a header a proxy would not recognise is dropped.
        key = ""
    else:
        key = name.decode("ascii").upper().replace("-", "_")
        if key not in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            key = "HTTP_" + key
    if len(_ENVIRON_KEYS) < 512:
        _ENVIRON_KEYS[name] = key
    return key


def _read_headers(stream: _Stream, environ: dict) -> None:
    for line in _header_lines(stream):
        if len(line) > MAX_LINE:
            raise _Reject(431, "A header line is too long.")
        name, sep, value = line.partition(b":")
        key = _ENVIRON_KEYS.get(name)
        if key is None:
            if not sep or not _TOKEN.fullmatch(name):
                # Also refuses obsolete line folding and a space before the
                # colon (RFC 9112 5.1, 5.2).
                raise _Reject(400, "Malformed header line.")
            key = _environ_key(name)
        if not key:
            continue
        text = value.strip(b" \t\r\n").decode("latin-1")
        if key in environ:
            if key == "CONTENT_LENGTH":
                if environ[key] != text:
                    raise _Reject(400, "Conflicting Content-Length headers.")
                continue
            # Repeated fields are one comma-separated list (RFC 9110 5.3).
            separator = "; " if key == "HTTP_COOKIE" else ", "
            text = environ[key] + separator + text
        environ[key] = text


def _header_lines(stream: _Stream) -> Iterable[bytes]:
    """The head's header lines, up to the blank line that ends it."""
    # Usually the whole head came in one segment: split it at once rather
    # than a line at a time.
    lines = stream.head_lines()
    if lines is None:
        return _read_header_lines(stream)
    if len(lines) > MAX_HEADERS:
        raise _Reject(431, "Too many header lines.")
    return lines


def _read_header_lines(stream: _Stream) -> Iterator[bytes]:
    for _ in range(MAX_HEADERS + 1):
        line = stream.readline(MAX_LINE + 1)
        if len(line) > MAX_LINE:
            raise _Reject(431, "A header line is too long.")
        if not line.endswith(b"\n"):
            raise OSError("the connection closed inside the request head")
        if line in (b"\r\n", b"\n"):
            return
        yield line
    raise _Reject(431, "Too many header lines.")


def _body(rfile, environ: dict, http11: bool) -> _LengthBody:
    coding = environ.get("HTTP_TRANSFER_ENCODING")
    length = environ.get("CONTENT_LENGTH")
    if coding is not None:
        if length is not None:
            # Both framings at once is how requests are smuggled past a
            # proxy (RFC 9112 6.3).
            raise _Reject(400, "Both Content-Length and Transfer-Encoding.")
        if not http11:
            raise _Reject(400, "Transfer-Encoding needs HTTP/1.1.")
        if coding.strip().lower() != "chunked":
            raise _Reject(501, "Only the chunked transfer coding is "
                               "served.")
        return _ChunkedBody(rfile)
    if length is None:
        return _LengthBody(rfile, 0)
    if not (length.isascii() and length.isdigit()):
        raise _Reject(400, "Malformed Content-Length.")
    return _LengthBody(rfile, int(length))


def _send_plain(sock: socket.socket, code: int, text: str) -> None:
    body = text.encode()
    head = (f"HTTP/1.1 {code} {_REASONS[code]}\r\n"
            f"Date: {_http_date()}\r\nContent-Type: text/plain\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")
    try:
        sock.sendall(head.encode("latin-1") + body)
    except OSError:
        pass


def _close(conn: _Connection) -> None:
    _shutdown(conn.sock)
    conn.sock.close()


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass

