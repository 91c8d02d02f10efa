"""The hash ring: balance, stability when membership changes, the cache."""

import collections
import uuid

import pytest

from ironic import hash_ring
from ironic.common import exception
from ironic.objects.conductor import Conductor

KEYS = [str(uuid.UUID(int=i * 7919 + 13)) for i in range(3000)]


def _owners(ring):
    return {k: ring.get_hosts(k)[0] for k in KEYS}


def test_every_host_gets_a_fair_share():
    ring = hash_ring.HashRing(["c1", "c2", "c3"], partition_exponent=7)
    counts = collections.Counter(_owners(ring).values())
    assert set(counts) == {"c1", "c2", "c3"}
    for host, n in counts.items():
        assert 600 < n < 1400, (host, counts)


def test_a_joining_host_takes_only_from_others_and_about_its_share():
    before = _owners(hash_ring.HashRing(["c1", "c2", "c3"], 7))
    after = _owners(hash_ring.HashRing(["c1", "c2", "c3", "c4"], 7))
    moved = [k for k in KEYS if before[k] != after[k]]
    assert all(after[k] == "c4" for k in moved)
    assert 0.1 < len(moved) / len(KEYS) < 0.45


def test_a_leaving_host_moves_only_its_own_keys():
    before = _owners(hash_ring.HashRing(["c1", "c2", "c3"], 5))
    after = _owners(hash_ring.HashRing(["c1", "c3"], 5))
    for k in KEYS:
        if before[k] != "c2":
            assert after[k] == before[k]


def test_replicas_are_distinct_and_ignore_skips_hosts():
    ring = hash_ring.HashRing(["a", "b", "c"], 5, replicas=2)
    hosts = ring.get_hosts(KEYS[0])
    assert len(hosts) == 2 and len(set(hosts)) == 2
    assert ring.get_hosts(KEYS[0], ignore=[hosts[0]])[0] == hosts[1]
    assert hash_ring.HashRing(["a"], 5, replicas=3).get_hosts("x") == ["a"]
    assert hash_ring.HashRing([], 5).get_hosts("x") == []


def test_same_input_same_ring():
    r1 = hash_ring.HashRing(["b", "a"], 5)
    r2 = hash_ring.HashRing(["a", "b"], 5)
    assert _owners(r1) == _owners(r2)


@pytest.fixture
def conductors(database, config):
    hash_ring.reset()
    config(hash_ring_reset_interval=3600)
    Conductor.register("c1", "", ["fake-hardware", "ipmi"])
    Conductor.register("c2", "", ["fake-hardware"])
    Conductor.register("g1", "rack1", ["fake-hardware"])
    yield
    hash_ring.reset()


def test_manager_rings_per_group_and_type(conductors):
    mgr = hash_ring.manager()
    assert mgr.get_ring("fake-hardware").hosts == ["c1", "c2"]
    assert mgr.get_ring("ipmi").hosts == ["c1"]
    assert mgr.get_ring("fake-hardware", "RACK1").hosts == ["g1"]
    with pytest.raises(exception.NoValidHost):
        mgr.get_ring("redfish")
    node = {"uuid": KEYS[1], "driver": "fake-hardware",
            "conductor_group": "rack1"}
    assert hash_ring.conductor_for(node) == "g1"
    assert hash_ring.conductor_for(dict(node, driver="redfish")) is None


def test_manager_caches_until_reset(conductors):
    mgr = hash_ring.manager()
    assert mgr.get_ring("ipmi").hosts == ["c1"]
    Conductor.register("c3", "", ["ipmi"])
    assert mgr.get_ring("ipmi").hosts == ["c1"]
    mgr.reset()
    assert mgr.get_ring("ipmi").hosts == ["c1", "c3"]
    Conductor.get_by_hostname("c3").unregister()
    mgr.reset()
    assert mgr.get_ring("ipmi").hosts == ["c1"]


def test_manager_drops_conductors_with_stale_heartbeat(conductors, config):
    import datetime

    import sqlalchemy as sa

    from ironic.db.sqlalchemy import api as sqla_api
    from ironic.db.sqlalchemy import models
    old = datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None) - datetime.timedelta(seconds=600)
    with sqla_api._writer() as s:
        s.execute(sa.update(models.Conductor).where(
            models.Conductor.hostname == "c2").values(updated_at=old))
    hash_ring.manager().reset()
    assert hash_ring.manager().get_ring("fake-hardware").hosts == ["c1"]


def test_interface_catalog_is_cached_with_the_rings(conductors):
    from ironic import driver_registry
    from ironic.db import api as db_api
    registry = driver_registry.load()
    conductor = Conductor.get_by_hostname("c1")
    driver_registry.register_hardware(conductor.id, "c1", registry)
    hash_ring.manager().reset()
    assert "fake-hardware" in hash_ring.live_catalog().types
    # Read once per ring build, not once per node created.
    calls = []
    dbapi = db_api.get_instance()
    original = dbapi.list_live_hardware

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    dbapi.list_live_hardware = counting
    try:
        for _ in range(5):
            hash_ring.live_catalog().check_driver("fake-hardware")
        assert calls == []
        hash_ring.manager().reset()
        hash_ring.live_catalog()
        assert len(calls) == 1
    finally:
        del dbapi.list_live_hardware


def test_the_owner_alone_is_the_first_of_the_general_walk():
    ring = hash_ring.HashRing(["a", "b", "c"], 5)
    replicated = hash_ring.HashRing(["a", "b", "c"], 5, replicas=2)
    for key in KEYS:
        # Ignoring a host that is not there takes the general walk.
        assert ring.get_hosts(key) == ring.get_hosts(key, ignore=["x"])
        assert ring.get_hosts(key) == replicated.get_hosts(key)[:1]


def test_the_ring_lifetime_is_read_when_the_rings_are_built(conductors,
                                                            config):
    mgr = hash_ring.manager()
    first = mgr.get_ring("fake-hardware")
    config(hash_ring_reset_interval=0)
    # Still the rings built under the old lifetime...
    assert mgr.get_ring("fake-hardware") is first
    mgr.reset()
    # ...until they are built again, under the new one: rebuilt every time.
    second = mgr.get_ring("fake-hardware")
    assert second is not first
    assert mgr.get_ring("fake-hardware") is not second


def test_a_suspect_is_out_of_the_rings_until_it_heartbeats(conductors):
    mgr = hash_ring.manager()
    assert mgr.get_ring("fake-hardware").hosts == ["c1", "c2"]
    mgr.suspect("c2")
    # Left out at once, though its heartbeat has not timed out.
    assert mgr.get_ring("fake-hardware").hosts == ["c1"]
    assert ("c2", "") not in mgr.members
    mgr.reset()
    assert mgr.get_ring("fake-hardware").hosts == ["c1"]
    # Its next heartbeat brings it back.
    import datetime

    import sqlalchemy as sa

    from ironic.db.sqlalchemy import api as sqla_api
    from ironic.db.sqlalchemy import models
    later = datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None) + datetime.timedelta(seconds=1)
    with sqla_api._writer() as s:
        s.execute(sa.update(models.Conductor).where(
            models.Conductor.hostname == "c2").values(updated_at=later))
    mgr.reset()
    assert mgr.get_ring("fake-hardware").hosts == ["c1", "c2"]


def test_owner_is_the_first_host_of_any_ring():
    for ring in (hash_ring.HashRing(["a", "b", "c"], 5),
                 hash_ring.HashRing(["a", "b"], 5, replicas=2)):
        for key in KEYS:
            assert ring.owner(key) == ring.get_hosts(key)[0]
    assert hash_ring.HashRing([]).owner(KEYS[0]) is None


def test_a_page_finder_names_the_conductor_conductor_for_names(conductors):
    class _Obj:
        def __init__(self, **kw):
            self.__dict__.update(kw)

    find = hash_ring.conductor_finder()
    for key in KEYS:
        for driver in ("fake-hardware", "ipmi", "redfish", None):
            for group in ("", None, "rack1", "RACK1", "nowhere"):
                node = {"uuid": key, "driver": driver,
                        "conductor_group": group}
                expected = hash_ring.conductor_for(node)
                assert find(node) == expected, node
                assert find(_Obj(**node)) == expected, node


def test_a_ring_of_one_host_owns_every_key():
    ring = hash_ring.HashRing(["only"], 5)
    assert {ring.owner(key) for key in KEYS} == {"only"}
    assert all(ring.get_hosts(key) == ["only"] for key in KEYS)
