"""statsd datagrams under the names Ironic gives its timers.

A name is ``[global_prefix.][host.]<module>.<Class.method>``, for example
``ironic.conductor.manager.ConductorManager.change_node_power_state``, and
a timer is sent as ``<name>:<milliseconds>|ms`` in one UDP datagram, as
statsd daemons expect. Sending never blocks and never fails a request: a
daemon that is down only loses the datagram.
"""

from __future__ import annotations

import logging
import socket
import threading
from typing import Any

LOG = logging.getLogger(__name__)


def name_prefix(global_prefix: str | None, host: str | None,
                reverse_host: bool) -> str:
    """What comes before every metric name, dot included (or '')."""
    parts = []
    if global_prefix:
        parts.append(global_prefix)
    if host:
        labels = host.split(".")
        parts.append(".".join(reversed(labels) if reverse_host else labels))
    return "".join(f"{p}." for p in parts)


class StatsdSender:
    """Sends timers and gauges to one statsd daemon."""

    def __init__(self, host: str, port: int, prefix: str = ""):
        self.prefix = prefix
        self._address = (host, port)
        self._target: tuple = ()  # set with _sock
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._warned = False

    @classmethod
    def from_conf(cls, conf: Any) -> StatsdSender:
        m = conf.metrics
        host = conf.host if m.prepend_host else None
        return cls(conf.metrics_statsd.statsd_host,
                   conf.metrics_statsd.statsd_port,
                   name_prefix(m.global_prefix, host, m.prepend_host_reverse))

    def timer(self, name: str, seconds: float) -> None:
        self._send(f"{self.prefix}{name}:{seconds * 1000:.3f}|ms")

    def gauge(self, name: str, value: float) -> None:
        self._send(f"{self.prefix}{name}:{value}|g")

    def counter(self, name: str, value: int = 1) -> None:
        self._send(f"{self.prefix}{name}:{value}|c")

    def _send(self, datagram: str) -> None:
        try:
            sock, target = self._socket()
            sock.sendto(datagram.encode(), target)
        except OSError as e:
            self._warn_once(e)

    def _socket(self) -> tuple[socket.socket, tuple]:
        if self._sock is None:
            with self._lock:
                if self._sock is None:
                    # Resolved once: a name lookup per datagram would cost
                    # more than everything else a timer does.
                    family, _, _, _, target = socket.getaddrinfo(
                        *self._address, type=socket.SOCK_DGRAM)[0]
                    sock = socket.socket(family, socket.SOCK_DGRAM)
                    sock.setblocking(False)
                    self._target, self._sock = target, sock
        return self._sock, self._target

    def _warn_once(self, error: OSError) -> None:
        if not self._warned:
            self._warned = True
            LOG.warning("Cannot send metrics to statsd at %s:%s: %s (said "
                        "once; later failures are not logged)",
                        *self._address, error)

    def close(self) -> None:
        with self._lock:
            if self._sock is not None:
                self._sock.close()
            self._sock = None
