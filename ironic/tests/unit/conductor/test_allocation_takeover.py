"""Allocations left ``allocating`` by a conductor that died are searched
again by the conductor that starts (or takes over) next."""

from __future__ import annotations

from ironic import hash_ring
from ironic.common import rpc, states
from ironic.conductor import allocations, base_manager
from ironic.db import api as db_api


def _available_node(dbapi, name):
    node = dbapi.create_node({"driver": "fake-hardware", "name": name,
                              "resource_class": "gold",
                              "provision_state": states.AVAILABLE})
    return node


def test_start_resumes_orphaned_allocation(database, config):
    config(rpc_transport="none", host="test-conductor")
    rpc.reset()
    hash_ring.reset()
    dbapi = db_api.get_instance()
    node = _available_node(dbapi, "n1")
    dead = dbapi.register_conductor({"hostname": "dead", "drivers": [],
                                     "conductor_group": ""})
    alloc = dbapi.create_allocation({
        "resource_class": "gold", "state": "allocating",
        "conductor_affinity": dead.id, "traits": [], "candidate_nodes": [],
        "extra": {}})
    dbapi.unregister_conductor("dead")
    svc = base_manager.ConductorService()
    svc.start()
    try:
        assert svc.pool.wait_idle(10)
        got = dbapi.get_allocation(alloc.uuid)
        assert got.state == "active"
        assert got.node_id == node.id
        assert got.conductor_affinity == svc.conductor_id
        assert dbapi.get_node_by_id(node.id).instance_uuid == alloc.uuid
        # Nothing left to resume; a second run claims nothing.
        assert allocations.resume_orphans(svc) == 0
    finally:
        svc.stop(timeout=5)
        rpc.reset()


def test_allocation_of_live_conductor_is_left_alone(database, config):
    config(rpc_transport="none", host="test-conductor")
    rpc.reset()
    hash_ring.reset()
    dbapi = db_api.get_instance()
    _available_node(dbapi, "n1")
    svc = base_manager.ConductorService()
    svc.start()
    try:
        peer = dbapi.register_conductor({"hostname": "peer", "drivers": [],
                                         "conductor_group": ""})
        alloc = dbapi.create_allocation({
            "resource_class": "gold", "state": "allocating",
            "conductor_affinity": peer.id, "traits": [],
            "candidate_nodes": [], "extra": {}})
        assert allocations.resume_orphans(svc) == 0
        assert dbapi.get_allocation(alloc.uuid).state == "allocating"
    finally:
        svc.stop(timeout=5)
        rpc.reset()
