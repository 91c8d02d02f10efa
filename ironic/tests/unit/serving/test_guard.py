"""The connection guard: per-address limit, shedding the longest waiting
connection at the cap, and the head deadline."""

from __future__ import annotations

import asyncio

from ironic.serving import guard


class _Transport:
    def __init__(self):
        self.aborted = False

    def abort(self):
        self.aborted = True


class _Conn:
    """Just what the guard looks at on a protocol."""

    def __init__(self, address, port, waiting=True, since=0.0):
        self.client = (address, port)
        self.transport = _Transport()
        self.waiting = waiting
        self.waiting_since = since
        self.first_byte_at = None
        self.loop = asyncio.new_event_loop()

    def waiting_for_head(self):
        return self.waiting


def _guard(cap=4, per_client=2, timeout=30):
    g = guard.ConnectionGuard(cap, per_client, timeout)
    g._sweeping = True      # no timer: these tests sweep by hand
    return g


def test_one_address_gets_its_limit_and_no_more():
    g = _guard(per_client=2)
    conns = [_Conn("127.0.0.2", p) for p in range(3)]
    assert [g.admit(c) for c in conns] == [True, True, False]
    assert g.admit(_Conn("127.0.0.1", 1))
    g.forget(conns[0])
    assert g.admit(_Conn("127.0.0.2", 9))


def test_at_the_cap_the_longest_waiting_connection_makes_room():
    g = _guard(cap=3, per_client=10)
    busy = _Conn("127.0.0.2", 1, waiting=False)
    old = _Conn("127.0.0.2", 2, since=1.0)
    young = _Conn("127.0.0.2", 3, since=None)   # not swept yet
    for c in (busy, old, young):
        assert g.admit(c)
    newcomer = _Conn("127.0.0.1", 4)
    assert g.admit(newcomer)
    assert old.transport.aborted and not young.transport.aborted
    assert not busy.transport.aborted
    assert set(g.connections) == {busy, young, newcomer}


def test_at_the_cap_with_every_connection_busy_the_newcomer_is_refused():
    g = _guard(cap=2, per_client=10)
    for port in (1, 2):
        assert g.admit(_Conn("127.0.0.2", port, waiting=False))
    assert not g.admit(_Conn("127.0.0.1", 3))


def test_the_sweep_closes_heads_past_their_deadline():
    g = _guard(cap=10, per_client=10, timeout=30)
    slow = _Conn("127.0.0.2", 1, since=None)
    busy = _Conn("127.0.0.2", 2, waiting=False, since=None)
    for c in (slow, busy):
        g.admit(c)
    loop = asyncio.new_event_loop()
    clock = iter([100.0, 120.0, 131.0])
    g.clock = lambda: next(clock)
    g._sweep(loop)           # starts the clocks: slow waits from 100
    g._sweep(loop)           # 20 s: within the deadline
    assert not slow.transport.aborted
    g._sweep(loop)           # 31 s: past it
    assert slow.transport.aborted and not busy.transport.aborted
    assert busy.waiting_since is None
    loop.close()


def test_head_started_is_taken_once():
    g = _guard()
    conn = _Conn("127.0.0.1", 7)
    g.admit(conn)
    conn.first_byte_at = 42.0
    scope = {"client": ("127.0.0.1", 7)}
    assert g.head_started(scope) == 42.0
    assert g.head_started(scope) is None
    assert g.head_started({"client": None}) is None
