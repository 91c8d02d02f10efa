"""RPC over oslo.messaging and a real RabbitMQ: the API's client reaches
the conductor owning a node, results and errors come back intact."""

from __future__ import annotations

import logging
import time
import uuid

import pytest

from ironic import hash_ring
from ironic.common import exception, rpc, states
from ironic.conductor import manager, rpcapi, workers
from ironic.db import api as db_api
from ironic.objects.conductor import Conductor
from ironic.objects.node import Node
from ironic.tests import builders
from ironic.tests.integration.conftest import require_service


@pytest.fixture
def oslo_conductor(database, config):
    # oslo.messaging names its RabbitMQ driver "rabbit".
    url = require_service("rabbitmq").replace("amqp://", "rabbit://", 1)
    host = f"it-{uuid.uuid4().hex[:8]}"
    # What prepare_service does for the oslo transport.
    rpc.register_opts()
    config(transport_url=url, rpc_transport="oslo", host=host)
    config("conductor", node_locked_retry_attempts=0)
    rpc.reset()
    hash_ring.reset()
    Conductor.register(host, "", ["fake-hardware"])
    pool = workers.WorkerPool(4)
    server = rpc.rpc_server(host, manager.ConductorManager(host, pool))
    server.start()
    yield host
    server.stop()
    server.wait()
    pool.shutdown(wait=True)
    rpc.reset()


def test_call_round_trip_and_remote_errors(oslo_conductor, caplog):
    caplog.set_level(logging.DEBUG, logger="oslo_messaging")
    node = builders.make_node(provision_state=states.AVAILABLE)
    api = rpcapi.ConductorAPI()
    assert api.host_for(node) == oslo_conductor
    api.do_provisioning_action(None, node, "manage")
    assert db_api.get_instance().get_node_by_id(node.id).provision_state \
        == states.MANAGEABLE
    with pytest.raises(exception.InvalidStateRequested) as err:
        api.do_provisioning_action(None, node, "abort")
    assert err.value.code == 400 and "manageable" in str(err.value)
    db_api.get_instance().reserve_node("someone-else", node.id)
    with pytest.raises(exception.NodeLocked) as err:
        api.do_provisioning_action(None, node, "provide")
    assert err.value.code == 409 and "someone-else" in str(err.value)
    # Answers to the caller, not faults of the conductor: no ERROR (with a
    # traceback) from oslo.messaging's server for them.
    assert [r.getMessage() for r in caplog.records
            if r.name.startswith("oslo_messaging")
            and r.levelno >= logging.ERROR] == []
    assert any("Expected exception" in r.getMessage()
               for r in caplog.records)


AGENT_URL = "https://192.0.2.20:9999"


def _after_heartbeat(uuid_: str, timeout: float = 30) -> Node:
    """The node once the heartbeat's worker released its lock."""
    deadline = time.monotonic() + timeout
    while True:
        node = Node.get(uuid_)
        if node.reservation is None:
            return node
        assert time.monotonic() < deadline, "the heartbeat never finished"
        time.sleep(0.05)


def test_token_and_heartbeat_over_rabbitmq(oslo_conductor):
    node = builders.make_node(provision_state=states.CLEANWAIT,
                              properties={"cpus": 4})
    api = rpcapi.ConductorAPI()
    first = api.get_node_with_token(None, node)
    token = first["agent_token"]
    assert token and first["node"]["properties"] == {"cpus": 4}
    assert api.get_node_with_token(None, node)["agent_token"] is None

    api.heartbeat(None, node, AGENT_URL, agent_version="13.0.0",
                  agent_token=token, agent_status="start")
    # Accepted once the token is checked; a conductor worker records the
    # rest and then releases the node's lock.
    info = _after_heartbeat(node.uuid).driver_internal_info
    assert info["agent_url"] == AGENT_URL
    assert info["agent_version"] == "13.0.0"

    with pytest.raises(exception.InvalidParameterValue) as err:
        api.heartbeat(None, node, AGENT_URL, agent_token="not-it")
    assert err.value.code == 400 and "token" in str(err.value)
    db_api.get_instance().reserve_node("someone-else", node.id)
    with pytest.raises(exception.NodeLocked) as err:
        api.heartbeat(None, node, AGENT_URL, agent_token=token)
    assert err.value.code == 409
