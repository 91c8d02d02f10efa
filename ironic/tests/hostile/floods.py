"""Resource attacks: slow and idle connections, slow bodies, big heads.

Each flood opens its attack from ``Target.attack_addresses`` in a thread
of its own, then a normal client on 127.0.0.1 sends ``NORMAL_GETS`` GETs
on new connections. The flood passes when every one of them is answered
(below 500) within ``NORMAL_DEADLINE`` seconds and, when the target's
process is known, its memory grew by less than the flood's bound.
Everything is bounded in time: an attack ramps for at most
``RAMP_LIMIT`` seconds and stops when the normal client is done.
"""

from __future__ import annotations

import itertools
import resource
import socket
import threading
import time
from dataclasses import dataclass
from typing import Callable

from ironic.tests.hostile.protocol import Result
from ironic.tests.hostile.target import Target, simple_get

NORMAL_GETS = 8
NORMAL_INTERVAL = 0.3
NORMAL_DEADLINE = 1.0
#: A normal GET slower than this counts as not answered; after
#: ``GIVE_UP`` such misses the flood is judged without waiting longer.
NORMAL_TIMEOUT = 2.0
GIVE_UP = 3
#: Seconds a server may take to serve again after an attack, before the
#: next one starts (it is judged on the attack, not on the recovery).
RECOVERY_LIMIT = 30.0
RAMP_LIMIT = 8.0
TRICKLE_EVERY = 2.0


def raise_fd_limit() -> None:
    """1,100 attack sockets need more than the usual soft limit of 1,024."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, 8192) if hard != resource.RLIM_INFINITY else 8192
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


class Attack:
    """A set of hostile connections kept alive by one thread."""

    def __init__(self, target: Target):
        self.target = target
        self.socks: list[socket.socket] = []
        self.stop = threading.Event()
        self.ready = threading.Event()
        self.opened = 0
        self.failed = 0
        self._sources = itertools.cycle(target.attack_addresses)

    def open(self, first: bytes) -> socket.socket | None:
        """Connect from the next attack address and send ``first``."""
        try:
            sock = self.target.connect(
                None if self.target.is_unix else next(self._sources),
                timeout=1.0)
            if first:
                sock.sendall(first)
            sock.setblocking(False)
        except OSError:
            self.failed += 1
            return None
        self.opened += 1
        self.socks.append(sock)
        return sock

    def trickle(self, data: Callable[[int], bytes]) -> None:
        """Send a little on every open connection; drop the closed ones."""
        alive = []
        for n, sock in enumerate(self.socks):
            try:
                sock.send(data(n))
                alive.append(sock)
            except BlockingIOError:
                alive.append(sock)
            except OSError:
                sock.close()
        self.socks = alive

    def close(self) -> None:
        for sock in self.socks:
            sock.close()
        self.socks = []


def _head_start(target: Target, method: str = "GET", path: str = "/v1"
                ) -> bytes:
    return f"{method} {path} HTTP/1.1\r\nHost: {target.host_header}\r\n" \
        .encode()


def slowloris(count: int) -> Callable[[Attack], None]:
    """``count`` connections each sending its head a line at a time."""
    def run(attack: Attack) -> None:
        ramp_end = time.monotonic() + RAMP_LIMIT
        for _ in range(count):
            if attack.stop.is_set() or time.monotonic() > ramp_end:
                break
            attack.open(_head_start(attack.target))
        attack.ready.set()
        while not attack.stop.wait(TRICKLE_EVERY):
            attack.trickle(lambda n: f"X-Slow-{n}: a\r\n".encode())
    return run


def idle(count: int) -> Callable[[Attack], None]:
    """``count`` connections that never send a byte."""
    def run(attack: Attack) -> None:
        ramp_end = time.monotonic() + RAMP_LIMIT
        for _ in range(count):
            if attack.stop.is_set() or time.monotonic() > ramp_end:
                break
            attack.open(b"")
        attack.ready.set()
        attack.stop.wait()
    return run


def slow_rate(per_second: int) -> Callable[[Attack], None]:
    """``per_second`` new slowloris connections every second, forever."""
    def run(attack: Attack) -> None:
        attack.ready.set()
        last_trickle = time.monotonic()
        while not attack.stop.wait(1.0 / per_second):
            attack.open(_head_start(attack.target))
            if time.monotonic() - last_trickle > TRICKLE_EVERY:
                last_trickle = time.monotonic()
                attack.trickle(lambda n: f"X-Slow-{n}: a\r\n".encode())
    return run


def slow_body(count: int, path: str, chunked: bool
              ) -> Callable[[Attack], None]:
    """``count`` requests whose body arrives a byte every few seconds:
    1 of 1,000 declared bytes, or a chunk of 100,000 with 3 bytes sent."""
    def run(attack: Attack) -> None:
        head = _head_start(attack.target, "POST", path)
        if chunked:
            head += (b"Content-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n186a0\r\n{\"a")
        else:
            head += (b"Content-Type: application/json\r\n"
                     b"Content-Length: 1000\r\n\r\n{")
        for _ in range(count):
            attack.open(head)
        attack.ready.set()
        while not attack.stop.wait(TRICKLE_EVERY):
            attack.trickle(lambda n: b" ")
    return run


def incomplete_heads(count: int, size: int) -> Callable[[Attack], None]:
    """``count`` connections each sending ``size`` bytes of header lines
    and never ending the head."""
    def run(attack: Attack) -> None:
        line = b"X-Fill: " + b"a" * 4000 + b"\r\n"
        for _ in range(count):
            attack.open(_head_start(attack.target))
        attack.ready.set()
        for _ in range(size // len(line)):
            if attack.stop.is_set():
                break
            attack.trickle(lambda n: line)
        attack.stop.wait()
    return run


def big_posts(count: int, path: str, size: int) -> Callable[[Attack], None]:
    """``count`` requests at once, each sending a ``size`` byte body of
    tiny JSON values (the costliest kind to parse)."""
    def one(attack: Attack) -> None:
        try:
            sock = attack.target.connect(next(attack._sources)
                                         if not attack.target.is_unix
                                         else None, timeout=10)
            sock.sendall(_head_start(attack.target, "POST", path) +
                         b"Content-Type: application/json\r\n" +
                         f"Content-Length: {size}\r\n\r\n".encode())
            attack.opened += 1
            chunk = b"[" + b"1," * 32767 + b"1"
            sent = 0
            while sent < size and not attack.stop.is_set():
                part = chunk[:size - sent]
                sock.sendall(part)
                sent += len(part)
            sock.recv(1024)
            sock.close()
        except OSError:
            pass

    def run(attack: Attack) -> None:
        threads = [threading.Thread(target=one, args=(attack,), daemon=True)
                   for _ in range(count)]
        for t in threads:
            t.start()
        attack.ready.set()
        attack.stop.wait()
        for t in threads:
            t.join(5)
    return run


@dataclass
class Flood:
    name: str
    attack: Callable[[Attack], None]
    #: Largest growth of the server's resident memory, in MiB.
    memory_bound_mib: int = 200

    def run(self, target: Target) -> Result:
        raise_fd_limit()
        rss_before = target.rss_kib()
        attack = Attack(target)
        thread = threading.Thread(target=self.attack, args=(attack,),
                                  daemon=True)
        thread.start()
        try:
            attack.ready.wait(RAMP_LIMIT + 2)
            timings = []
            rss_peak = rss_before
            misses = 0
            for _ in range(NORMAL_GETS):
                time.sleep(NORMAL_INTERVAL)
                status, seconds = simple_get(target, timeout=NORMAL_TIMEOUT)
                timings.append((status, seconds))
                misses += status is None or seconds > NORMAL_DEADLINE
                rss = target.rss_kib()
                if rss is not None:
                    rss_peak = max(rss_peak, rss)
                if misses >= GIVE_UP:
                    break
        finally:
            attack.stop.set()
            thread.join(10)
            attack.close()
        result = self._judge(attack, timings, rss_before, rss_peak)
        _wait_for_recovery(target)
        return result

    def _judge(self, attack: Attack, timings, rss_before, rss_peak
               ) -> Result:
        slow = [(s, round(t, 2)) for s, t in timings
                if s is None or s >= 500 or t > NORMAL_DEADLINE]
        worst = max(t for _, t in timings)
        detail = (f"attack opened {attack.opened} (failed {attack.failed}); "
                  f"normal GETs {len(timings) - len(slow)}/{len(timings)} "
                  f"under {NORMAL_DEADLINE}s, worst {worst:.2f}s")
        passed = not slow
        if rss_before is not None:
            grown = (rss_peak - rss_before) / 1024
            detail += f"; RSS +{grown:.0f} MiB (bound {self.memory_bound_mib})"
            passed = passed and grown < self.memory_bound_mib
        return Result(self.name, passed, detail)


def _wait_for_recovery(target: Target) -> None:
    deadline = time.monotonic() + RECOVERY_LIMIT
    while time.monotonic() < deadline:
        status, _ = simple_get(target, timeout=2.0)
        if status is not None and status < 500:
            return
        time.sleep(0.5)


def floods(heartbeat_path: str = "/v1/heartbeat/anything") -> list[Flood]:
    return [
        Flood("slowloris-300", slowloris(300)),
        Flood("slowloris-900", slowloris(900)),
        Flood("slowloris-1100", slowloris(1100)),
        Flood("idle-1100", idle(1100)),
        Flood("slow-new-30-per-s", slow_rate(30)),
        Flood("slow-body-cl-16", slow_body(16, "/v1/nodes", False)),
        Flood("slow-body-chunked-16", slow_body(16, "/v1/nodes", True)),
        Flood("slow-body-heartbeat-16", slow_body(16, heartbeat_path, False)),
        Flood("incomplete-heads-300", incomplete_heads(300, 256 * 1024),
              memory_bound_mib=100),
        Flood("inspection-16MiB-x10", big_posts(
            10, "/v1/continue_inspection", 16 * 1024 * 1024),
              memory_bound_mib=150),
        Flood("inspection-1900KiB-x10", big_posts(
            10, "/v1/continue_inspection", 1900 * 1024),
              memory_bound_mib=150),
    ]


def run_all(target: Target, only: str | None = None) -> list[Result]:
    return [f.run(target) for f in floods()
            if only is None or only in f.name]
