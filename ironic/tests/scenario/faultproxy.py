"""A TCP proxy on the loopback that a test can cut and restore.

It stands between one process and one service (the database, RabbitMQ):
``cut()`` resets every connection it carries and refuses new ones, as a
network partition or a restarting server does to a client; ``restore()``
lets connections through again. Only loopback addresses are used.
"""

from __future__ import annotations

import socket
import struct
import threading
import time

BUFFER = 65536


def _reset(sock: socket.socket) -> None:
    """Break a connection: the peer sees it end at once.

    The shutdown wakes the pump thread blocked in ``recv`` on it (a close
    alone would not, and the connection would live on as a black hole);
    the close then sends a RST (no lingering)."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                        struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


class FaultProxy:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1",
                 name: str = ""):
        self.name = name
        self.target = (target_host, target_port)
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(256)
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._cut = False
        self._closed = False
        #: (cut, restore) monotonic times, for the test's report.
        self.cuts: list[list[float | None]] = []
        self.refused = 0
        threading.Thread(target=self._accept, name=f"proxy-{name}",
                         daemon=True).start()

    @property
    def is_cut(self) -> bool:
        return self._cut

    def cut(self) -> None:
        with self._lock:
            self._cut = True
            self.cuts.append([time.monotonic(), None])
            sockets, self._sockets = self._sockets, set()
        for sock in sockets:
            _reset(sock)

    def restore(self) -> None:
        with self._lock:
            self._cut = False
            if self.cuts and self.cuts[-1][1] is None:
                self.cuts[-1][1] = time.monotonic()

    def close(self) -> None:
        self._closed = True
        self.cut()
        try:
            self._listener.close()
        except OSError:
            pass

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._cut:
                self.refused += 1
                _reset(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                _reset(client)
                continue
            with self._lock:
                if self._cut:
                    _reset(client)
                    _reset(upstream)
                    continue
                self._sockets.update((client, upstream))
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst),
                                 daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(BUFFER)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            # One side ended: end both (a cut resets them itself).
            with self._lock:
                mine = src in self._sockets
                self._sockets.discard(src)
                self._sockets.discard(dst)
            if mine:
                for sock in (src, dst):
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    sock.close()


def through(url: str, proxy: FaultProxy) -> str:
    """``url`` (a database or transport URL) with its host and port
    replaced by the proxy's."""
    scheme, rest = url.split("://", 1)
    auth, _, tail = rest.rpartition("@")
    hostport, slash, path = tail.partition("/")
    if "?" in hostport:
        hostport, q, query = hostport.partition("?")
        path = q + query + path
    auth = f"{auth}@" if auth else ""
    return f"{scheme}://{auth}127.0.0.1:{proxy.port}{slash}{path}"


def port_of(url: str, default: int) -> int:
    tail = url.split("://", 1)[1].rpartition("@")[2]
    hostport = tail.split("/", 1)[0].split("?", 1)[0]
    host, _, port = hostport.rpartition(":")
    return int(port) if host and port.isdigit() else default
