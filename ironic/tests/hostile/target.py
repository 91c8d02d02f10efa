"""Where the hostile client sends its bytes, and how it reads the answers.

A target is a URL (``http://host:port``, ``https://host:port`` or
``unix:///path``): the suite talks to any HTTP/1.1 server through raw
sockets, so it runs the same against the built-in server, Apache mod_wsgi
or a candidate under comparison.
"""

from __future__ import annotations

import os
import re
import socket
import ssl
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

_STATUS_LINE = re.compile(rb"HTTP/1\.[01] (\d{3})[^\r\n]*")


@dataclass
class Target:
    """One server under test."""

    url: str
    #: CA bundle for https targets; None trusts nothing and checks nothing.
    cacert: str | None = None
    #: Process whose memory the memory probes watch (optional).
    pid: int | None = None
    #: Path the normal client GETs during attacks.
    path: str = "/v1"
    #: Loopback addresses the attackers bind to (per-address limits let
    #: the normal client on 127.0.0.1 through).
    attack_addresses: tuple[str, ...] = ("127.0.0.2", "127.0.0.3",
                                         "127.0.0.4", "127.0.0.5")
    _parts: object = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._parts = urlsplit(self.url)
        if self._parts.scheme not in ("http", "https", "unix"):
            raise ValueError(f"unsupported target {self.url}")

    @property
    def host_header(self) -> str:
        if self._parts.scheme == "unix":
            return "localhost"
        return self._parts.netloc

    @property
    def is_unix(self) -> bool:
        return self._parts.scheme == "unix"

    def connect(self, source: str | None = None,
                timeout: float = 5.0) -> socket.socket:
        """A connected (and for https, handshaken) blocking socket."""
        if self.is_unix:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(timeout)
            sock.connect(self._parts.path)
            return sock
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        if source:
            sock.bind((source, 0))
        sock.connect((self._parts.hostname, self._parts.port or 80))
        if self._parts.scheme == "https":
            sock = self.tls_context().wrap_socket(
                sock, server_hostname=self._parts.hostname)
        return sock

    def tls_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(cafile=self.cacert)
        if not self.cacert:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        return ctx

    def rss_kib(self) -> int | None:
        """Resident memory of the server process and its children."""
        if self.pid is None:
            return None
        return sum(_rss_kib(pid) for pid in _process_tree(self.pid))


def _process_tree(pid: int) -> list[int]:
    pids = [pid]
    for child_pid in _children(pid):
        pids.extend(_process_tree(child_pid))
    return pids


def _children(pid: int) -> list[int]:
    found = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                found.extend(int(p) for p in f.read().split())
    except OSError:
        pass
    return found


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


@dataclass
class Exchange:
    """What came back on one connection."""

    data: bytes
    #: The server closed the connection (EOF or reset) before we gave up.
    closed: bool
    #: Seconds from the last byte sent to the end of reading.
    seconds: float

    @property
    def statuses(self) -> list[int]:
        return parse_statuses(self.data)

    @property
    def first(self) -> int | None:
        return self.statuses[0] if self.statuses else None

    def head(self) -> str:
        return self.data[:160].decode("latin-1").replace("\r\n", " | ")


def parse_statuses(data: bytes) -> list[int]:
    """Status codes of the responses in ``data``, framed by their
    Content-Length or chunked coding (a response without either runs to
    the end)."""
    statuses = []
    pos = 0
    while True:
        found = _STATUS_LINE.search(data, pos)
        if not found:
            return statuses
        statuses.append(int(found.group(1)))
        end = data.find(b"\r\n\r\n", found.end())
        if end < 0:
            return statuses
        head = data[found.end():end].lower()
        pos = end + 4
        length = re.search(rb"\ncontent-length:[ \t]*(\d+)", head)
        if length:
            pos += int(length.group(1))
        elif b"chunked" in head:
            pos = _skip_chunks(data, pos)
        elif statuses[-1] >= 200 and statuses[-1] not in (204, 304):
            return statuses


def _skip_chunks(data: bytes, pos: int) -> int:
    while True:
        eol = data.find(b"\r\n", pos)
        if eol < 0:
            return len(data)
        try:
            size = int(data[pos:eol].split(b";")[0], 16)
        except ValueError:
            return len(data)
        pos = eol + 2 + size + 2
        if size == 0:
            return pos


def read_all(sock: socket.socket, idle: float = 1.0,
             limit: float = 4.0) -> tuple[bytes, bool]:
    """Read until EOF, ``idle`` seconds of silence or ``limit`` seconds."""
    chunks = []
    deadline = time.monotonic() + limit
    sock.settimeout(idle)
    closed = False
    while time.monotonic() < deadline:
        try:
            data = sock.recv(65536)
        except (TimeoutError, socket.timeout):
            break
        except (ConnectionError, ssl.SSLError, OSError):
            closed = True
            break
        if not data:
            closed = True
            break
        chunks.append(data)
    return b"".join(chunks), closed


def exchange(target: Target, payloads: list[bytes], pause: float = 0.0,
             idle: float = 1.0, limit: float = 4.0,
             source: str | None = None) -> Exchange:
    """Send ``payloads`` (``pause`` seconds apart) on one connection and
    read every answer."""
    sock = target.connect(None if target.is_unix else source)
    try:
        for i, payload in enumerate(payloads):
            if i and pause:
                time.sleep(pause)
            try:
                sock.sendall(payload)
            except OSError:
                break
        started = time.monotonic()
        data, closed = read_all(sock, idle, limit)
        return Exchange(data, closed, time.monotonic() - started)
    finally:
        sock.close()


def simple_get(target: Target, path: str | None = None,
               source: str | None = "127.0.0.1",
               timeout: float = 5.0) -> tuple[int | None, float]:
    """A well-behaved client's GET on a new connection: (status, seconds)."""
    started = time.monotonic()
    if target.is_unix:
        source = None
    try:
        sock = target.connect(source, timeout)
    except OSError:
        return None, time.monotonic() - started
    try:
        request = (f"GET {path or target.path} HTTP/1.1\r\n"
                   f"Host: {target.host_header}\r\n"
                   "Connection: close\r\n\r\n").encode()
        sock.sendall(request)
        data, _closed = read_all(sock, idle=timeout, limit=timeout)
    except OSError:
        data = b""
    finally:
        sock.close()
    found = _STATUS_LINE.search(data)
    return (int(found.group(1)) if found else None,
            time.monotonic() - started)
