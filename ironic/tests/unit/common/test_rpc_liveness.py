"""A caller never waits the whole RPC timeout for a dead conductor."""

import threading
import time

import pytest

from ironic import hash_ring
from ironic.common import exception, rpc
from ironic.conductor import rpcapi


class _Transport(rpc.OsloTransport):
    """OsloTransport without a broker: the call and the ping are given."""

    def __init__(self, answer_after: float, alive: bool):
        self.answer_after = answer_after
        self.alive = alive
        self.pings: list[str] = []
        self.release = threading.Event()

    def _call(self, host, method, context, kwargs, version, timeout):
        if self.release.wait(self.answer_after):
            raise exception.NoValidHost(reason="the real timeout")
        return {"host": host, "method": method}

    def ping(self, host, timeout):
        self.pings.append(host)
        return self.alive


@pytest.fixture
def bound(config):
    config("conductor", rpc_liveness_timeout=0.2)
    return 0.2


def test_a_quick_answer_needs_no_ping(bound):
    t = _Transport(answer_after=0, alive=False)
    assert t.call("c1", "m", {}, {}, "1.0") == {"host": "c1", "method": "m"}
    assert t.pings == []


def test_a_dead_conductor_fails_fast(bound):
    t = _Transport(answer_after=30, alive=False)
    started = time.monotonic()
    with pytest.raises(exception.ConductorUnreachable) as e:
        t.call("c1", "m", {}, {}, "1.0")
    assert time.monotonic() - started < 5
    assert e.value.code == 503
    assert "c1" in str(e.value)
    assert t.pings == ["c1"]
    t.release.set()


def test_a_busy_but_alive_conductor_is_waited_for(bound):
    t = _Transport(answer_after=0.6, alive=True)
    assert t.call("c1", "m", {}, {}, "1.0")["host"] == "c1"
    assert t.pings == ["c1"]


def test_errors_of_the_call_reach_the_caller(bound):
    t = _Transport(answer_after=0.5, alive=True)
    threading.Timer(0.3, t.release.set).start()
    with pytest.raises(exception.NoValidHost, match="real timeout"):
        t.call("c1", "m", {}, {}, "1.0")


def test_zero_disables_the_check(config):
    config("conductor", rpc_liveness_timeout=0)
    t = _Transport(answer_after=0.3, alive=False)
    assert t.call("c1", "m", {}, {}, "1.0")["host"] == "c1"
    assert t.pings == []


def test_the_api_routes_around_a_conductor_found_dead(database, bound):
    from ironic.objects.conductor import Conductor
    hash_ring.reset()
    Conductor.register("c1", "", ["fake-hardware"])
    Conductor.register("c2", "", ["fake-hardware"])
    transport = _Transport(answer_after=30, alive=False)
    api = rpcapi.ConductorAPI(transport)
    node = {"uuid": "1be26c0b-03f2-4d2e-ae87-c02d7f33c781",
            "driver": "fake-hardware", "conductor_group": ""}
    first = api.host_for(node)
    with pytest.raises(exception.ConductorUnreachable):
        api.get_boot_device(None, node)
    # The next request goes to the conductor the ring names next.
    second = api.host_for(node)
    assert second != first and {first, second} == {"c1", "c2"}
    transport.answer_after = 0
    assert api.get_boot_device(None, node)["host"] == second
    transport.release.set()
    hash_ring.reset()


def test_a_hung_call_never_holds_up_another():
    hung = threading.Event()
    first = rpc._Background(lambda: hung.wait(30))
    second = rpc._Background(lambda: "answered")
    assert second.wait(5) and second.result() == "answered"
    assert not first.wait(0)
    hung.set()
    assert first.result() is True


def test_call_threads_are_reused():
    before = sum(1 for t in threading.enumerate() if t.name == "rpc-call")
    for i in range(50):
        assert rpc._Background(lambda i=i: i).result() == i
    after = sum(1 for t in threading.enumerate() if t.name == "rpc-call")
    assert after - before <= 2
