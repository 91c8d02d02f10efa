"""Heartbeats nothing waits for: recorded without the node's lock.

The conductor records such a heartbeat with one UPDATE conditional on the
node being unlocked and unchanged since it was read; in every other case
(locked, changed meanwhile, a failed check, an interface that acts) it takes
the locked path, whose answers are the ones of before.
"""

from __future__ import annotations

import datetime
import os

import pytest

from ironic.common import agent_token, exception, states
from ironic.conductor import manager, ramdisk, task_manager, workers
from ironic.db import api as db_api
from ironic.drivers import base
from ironic.drivers.modules import agent, agent_rescue, agent_steps, fake
from ironic.objects.node import Node
from ironic.tests import builders
from ironic.tests import fixtures as ifx

URL = "https://192.0.2.10:9999"


@pytest.fixture
def mgr(database, config):
    config(host="me")
    config("conductor", node_locked_retry_attempts=0)
    ifx.configure_test_drivers(config, deploy=["fake", "direct"],
                               rescue=["fake", "no-rescue", "agent"])
    pool = workers.WorkerPool(3)
    yield manager.ConductorManager("me", pool)
    assert pool.wait_idle(10)
    pool.shutdown(wait=True)


@pytest.fixture
def locks(monkeypatch):
    """Every lock taken (node ids) and every worker handed a task."""
    seen: dict[str, list] = {"reserved": [], "spawned": []}
    dbapi = db_api.get_instance()
    reserve = dbapi.reserve_node
    spawn = task_manager.TaskManager.spawn_after

    def reserve_node(tag, node_id):
        seen["reserved"].append(node_id)
        return reserve(tag, node_id)

    def spawn_after(self, callback, *args, **kwargs):
        seen["spawned"].append(callback.__name__)
        return spawn(self, callback, *args, **kwargs)

    monkeypatch.setattr(dbapi, "reserve_node", reserve_node)
    monkeypatch.setattr(task_manager.TaskManager, "spawn_after", spawn_after)
    return seen


def _with_token(mgr, **values) -> tuple[Node, str]:
    """A node whose agent has its token (issued as a lookup would, but
    without a lock the tests would count)."""
    values.setdefault("provision_state", states.MANAGEABLE)
    node = builders.make_node(**values)
    token = agent_token.issue(node)
    node.save()
    return Node.get(node.uuid), token


def _beat(mgr, node, token, **kwargs):
    mgr.heartbeat({}, node.uuid, kwargs.pop("url", URL),
                  kwargs.pop("version", "11.0.0"), token, **kwargs)
    assert mgr.pool.wait_idle(10)


# -- the idle path --------------------------------------------------------


@pytest.mark.parametrize("state", [states.MANAGEABLE, states.DEPLOYWAIT,
                                   states.CLEANWAIT, states.RESCUEWAIT,
                                   states.INSPECTWAIT, states.ENROLL])
def test_fake_interfaces_record_without_lock_or_worker(mgr, locks, state):
    node, token = _with_token(mgr, provision_state=state,
                              driver_internal_info={"keep": [1, "x"]})
    agent_token.wipe(Node.get(node.uuid))  # forgotten by this process
    before = Node.get(node.uuid)
    _beat(mgr, node, token)
    after = Node.get(node.uuid)
    assert locks == {"reserved": [], "spawned": []}
    info = after.driver_internal_info
    assert info["keep"] == [1, "x"]
    assert info["agent_url"] == URL
    assert info["agent_version"] == "11.0.0"
    assert datetime.datetime.fromisoformat(info["agent_last_heartbeat"])
    assert info[agent_token.KEY] == \
        before.driver_internal_info[agent_token.KEY]
    assert after.reservation is None
    assert after.updated_at >= before.updated_at
    # Everything else is as it was.
    assert {k: v for k, v in after.as_dict().items()
            if k not in ("driver_internal_info", "updated_at")} == \
        {k: v for k, v in before.as_dict().items()
         if k not in ("driver_internal_info", "updated_at")}
    # The token is known again for commands, as after a locked heartbeat.
    assert agent_token.for_agent(after) == token


def test_idle_and_locked_paths_record_the_same(mgr, monkeypatch):
    """The same heartbeat, once each way: the same keys and values."""
    recorded = []
    for idle in (True, False):
        if not idle:
            monkeypatch.setattr(ramdisk, "record_idle_heartbeat",
                                lambda *a, **k: False)
        node, token = _with_token(mgr, driver_internal_info={"a": 1})
        _beat(mgr, node, token, version=None)
        info = dict(Node.get(node.uuid).driver_internal_info)
        info.pop(agent_token.KEY)
        info.pop("agent_last_heartbeat")
        recorded.append(info)
    assert recorded[0] == recorded[1] == {"a": 1, "agent_url": URL}


def test_maintenance_and_disabled_interfaces_are_idle(mgr, locks):
    node, token = _with_token(mgr, maintenance=True,
                              deploy_interface="direct",
                              provision_state=states.DEPLOYWAIT)
    _beat(mgr, node, token)
    other, token2 = _with_token(mgr, rescue_interface="no-rescue",
                                provision_state=states.RESCUEWAIT)
    _beat(mgr, other, token2)
    assert locks["reserved"] == []
    assert Node.get(node.uuid).driver_internal_info["agent_url"] == URL
    assert Node.get(other.uuid).driver_internal_info["agent_url"] == URL


def test_known_certificate_is_idle_a_new_one_is_not(mgr, locks, config,
                                                   tmp_path):
    config("agent", certificates_path=str(tmp_path / "certs"))
    node, token = _with_token(mgr)
    _beat(mgr, node, token, agent_verify_ca="CERT")
    assert locks["reserved"] == [node.uuid]  # written under the lock
    path = Node.get(node.uuid).driver_internal_info["agent_verify_ca"]
    assert os.path.exists(path)
    _beat(mgr, node, token, agent_verify_ca="CERT")
    assert locks["reserved"] == [node.uuid]  # the same one: idle
    assert Node.get(node.uuid).driver_internal_info["agent_verify_ca"] \
        == path
    with pytest.raises(exception.InvalidParameterValue,
                       match="agent_verify_ca"):
        _beat(mgr, node, token, agent_verify_ca="OTHER")
    assert locks["reserved"] == [node.uuid, node.uuid]


# -- interfaces that act take the lock ------------------------------------


@pytest.mark.parametrize("state", [states.DEPLOYWAIT, states.CLEANWAIT,
                                   states.SERVICEWAIT])
def test_agent_deploy_waiting_for_the_agent_takes_the_lock(
        mgr, locks, monkeypatch, state):
    handled = []
    monkeypatch.setattr(agent_steps.AgentStepsMixin, "_continue",
                        lambda self, task, kind: handled.append(
                            (kind, Node.get(task.node.id).reservation)))
    node, token = _with_token(mgr, deploy_interface="direct",
                              provision_state=state)
    _beat(mgr, node, token)
    assert locks["reserved"] == [node.uuid]
    assert handled == [(agent_steps.KIND_OF_WAIT[state], "me")]
    after = Node.get(node.uuid)
    assert after.reservation is None
    assert after.driver_internal_info["agent_url"] == URL


def test_agent_rescue_waiting_takes_the_lock(mgr, locks, monkeypatch):
    handled = []
    monkeypatch.setattr(agent_rescue.AgentRescue, "_finalize",
                        lambda self, task: handled.append(task.node.uuid))
    node, token = _with_token(mgr, rescue_interface="agent",
                              provision_state=states.RESCUEWAIT)
    _beat(mgr, node, token)
    assert locks["reserved"] == [node.uuid]
    assert handled == [node.uuid]


def test_agent_deploy_of_a_node_at_rest_is_idle(mgr, locks):
    node, token = _with_token(mgr, deploy_interface="direct",
                              provision_state=states.MANAGEABLE)
    _beat(mgr, node, token)
    assert locks == {"reserved": [], "spawned": []}


def test_which_interfaces_ignore_heartbeats():
    class Node_:
        provision_state = states.AVAILABLE

    at_rest, waiting = Node_(), Node_()
    waiting.provision_state = states.CLEANWAIT
    deploy = agent.AgentDeploy()
    assert deploy.ignores_heartbeat(at_rest)
    assert not deploy.ignores_heartbeat(waiting)
    rescue = agent_rescue.AgentRescue()
    waiting.provision_state = states.RESCUEWAIT
    assert rescue.ignores_heartbeat(at_rest)
    assert not rescue.ignores_heartbeat(waiting)
    for iface in (fake.FakeDeploy(), fake.FakeRescue(), fake.FakeInspect()):
        assert iface.ignores_heartbeat(waiting)

    # An interface with its own heartbeat is never taken for idle unless
    # it says so itself.
    class Acting(fake.FakeDeploy):
        def heartbeat(self, task, callback_url, agent_version, **kwargs):
            pass

    class ActingAgent(agent.AgentDeploy):
        def heartbeat(self, task, callback_url, agent_version, **kwargs):
            pass

    class ActingRescue(agent_rescue.AgentRescue):
        def heartbeat(self, task, callback_url, agent_version, **kwargs):
            pass

    for iface in (Acting(), ActingAgent(), ActingRescue()):
        assert not iface.ignores_heartbeat(at_rest)
    for cls in (base.DeployInterface, base.RescueInterface,
                base.InspectInterface):
        assert cls.ignores_heartbeat(fake.FakeDeploy(), waiting)


# -- the fallback: today's answers -------------------------------------------


def test_reserved_node_falls_back_and_answers_409(mgr, locks):
    node, token = _with_token(mgr)
    db_api.get_instance().reserve_node("other", node.id)
    with pytest.raises(exception.NodeLocked):
        _beat(mgr, node, token)
    # Even with a wrong token: the lock is what answers first, as before.
    with pytest.raises(exception.NodeLocked):
        _beat(mgr, node, token + "x")
    after = Node.get(node.uuid)
    assert after.reservation == "other"
    assert "agent_url" not in after.driver_internal_info
    assert locks["reserved"][1:] == [node.uuid, node.uuid]


def test_wrong_or_missing_token_falls_back_and_is_refused(mgr, locks):
    node, token = _with_token(mgr)
    for wrong in (token + "x", None, ""):
        with pytest.raises(exception.InvalidParameterValue,
                           match="agent token"):
            _beat(mgr, node, wrong)
    assert "agent_url" not in Node.get(node.uuid).driver_internal_info
    assert locks["reserved"] == [node.uuid] * 3
    assert Node.get(node.uuid).reservation is None


def test_changed_callback_url_falls_back_and_is_refused(mgr, locks):
    node, token = _with_token(mgr)
    _beat(mgr, node, token)
    with pytest.raises(exception.InvalidParameterValue,
                       match="callback_url"):
        _beat(mgr, node, token, url="https://192.0.2.99:9999")
    assert Node.get(node.uuid).driver_internal_info["agent_url"] == URL
    assert locks["reserved"] == [node.uuid]


def test_tls_required_refuses_plain_http_either_way(mgr, config):
    config("agent", require_tls=True)
    node, token = _with_token(mgr)
    with pytest.raises(exception.InvalidParameterValue, match="TLS"):
        _beat(mgr, node, token, url="http://192.0.2.10:9999")


def test_unknown_node_is_the_locked_paths_404(mgr):
    with pytest.raises(exception.NodeNotFound):
        mgr.heartbeat({}, "1be26c0b-03f2-4d2e-ae87-c02d7f33c123", URL,
                      "1", "token")


def test_node_changed_between_read_and_write_takes_the_lock(
        mgr, locks, monkeypatch):
    """A lock holder came and went after the read: its writes are not
    overwritten with what was read; the heartbeat goes the locked way."""
    node, token = _with_token(mgr)
    decide = ramdisk._ignored_by_interface

    def meanwhile(read):
        # Another conductor forgets the agent (e.g. the node came to rest).
        with task_manager.acquire(None, read.uuid, host="other") as task:
            agent_token.wipe(task.node)
            task.node.driver_internal_info = dict(
                task.node.driver_internal_info, other="written")
            task.node.save()
        return decide(read)

    monkeypatch.setattr(ramdisk, "_ignored_by_interface", meanwhile)
    with pytest.raises(exception.InvalidParameterValue, match="agent token"):
        _beat(mgr, node, token)
    info = Node.get(node.uuid).driver_internal_info
    assert info == {"other": "written"}
    assert locks["reserved"] == [node.uuid, node.uuid]


def test_node_locked_between_read_and_write_answers_409(mgr, monkeypatch):
    node, token = _with_token(mgr)
    decide = ramdisk._ignored_by_interface

    def meanwhile(read):
        db_api.get_instance().reserve_node("other", read.id)
        return decide(read)

    monkeypatch.setattr(ramdisk, "_ignored_by_interface", meanwhile)
    with pytest.raises(exception.NodeLocked):
        _beat(mgr, node, token)
    assert "agent_url" not in Node.get(node.uuid).driver_internal_info


def test_node_state_changed_between_read_and_write_takes_the_lock(
        mgr, locks, monkeypatch):
    """The decision rests on the state read: a node that moved to a wait
    state meanwhile gets its heartbeat to the interface, under the lock."""
    handled = []
    monkeypatch.setattr(agent_steps.AgentStepsMixin, "_continue",
                        lambda self, task, kind: handled.append(kind))
    node, token = _with_token(mgr, deploy_interface="direct",
                              provision_state=states.CLEANING)
    decide = ramdisk._ignored_by_interface

    def meanwhile(read):
        db_api.get_instance().update_node(
            read.id, {"provision_state": states.CLEANWAIT})
        return decide(read)

    monkeypatch.setattr(ramdisk, "_ignored_by_interface", meanwhile)
    _beat(mgr, node, token)
    assert handled == ["clean"]
    assert locks["reserved"] == [node.uuid]


def test_driver_that_cannot_be_built_takes_the_locked_path(
        mgr, locks, monkeypatch):
    from ironic import driver_registry

    def gone(self, node):
        raise exception.DriverNotFound(driver_name=node.driver)

    node, token = _with_token(mgr)
    monkeypatch.setattr(driver_registry.Registry, "build_driver", gone)
    # As before: accepted, and the failure is the worker's (logged).
    _beat(mgr, node, token)
    assert locks["reserved"] == [node.uuid]
    assert Node.get(node.uuid).reservation is None


# -- RPC 1.11: the node as the API read it ------------------------------------


@pytest.fixture
def reads(monkeypatch):
    """UUIDs of the nodes read by UUID from the database."""
    seen: list[str] = []
    dbapi = db_api.get_instance()
    get = dbapi.get_node_by_uuid

    def get_node_by_uuid(node_uuid):
        seen.append(node_uuid)
        return get(node_uuid)

    monkeypatch.setattr(dbapi, "get_node_by_uuid", get_node_by_uuid)
    return seen


def _beat_as_read(mgr, node, token, **kwargs):
    """A 1.11 heartbeat: ``node`` as the API read it travels along."""
    _beat(mgr, node, token, node_fields=ramdisk.idle_fields(node), **kwargs)


def test_fields_the_api_read_spare_the_conductors_read(mgr, locks, reads):
    node, token = _with_token(mgr, driver_internal_info={"keep": 1})
    reads.clear()
    _beat_as_read(mgr, node, token)
    assert reads == []
    assert locks == {"reserved": [], "spawned": []}
    after = Node.get(node.uuid)
    assert after.driver_internal_info["agent_url"] == URL
    assert after.driver_internal_info["keep"] == 1
    assert agent_token.for_agent(after) == token


def test_the_previous_call_form_reads_the_node(mgr, locks, reads):
    """A 1.7 call (an API not upgraded yet) sends no fields: the
    conductor reads the node itself and records the same."""
    node, token = _with_token(mgr)
    reads.clear()
    _beat(mgr, node, token)
    assert reads == [node.uuid]
    assert locks == {"reserved": [], "spawned": []}
    assert Node.get(node.uuid).driver_internal_info["agent_url"] == URL


def test_the_fields_travel_as_plain_json(mgr, reads):
    """Through the in-process transport, as through a message bus."""
    from ironic.common import rpc
    rpc.register_local("me", mgr)
    try:
        node, token = _with_token(mgr)
        reads.clear()
        rpc.LocalTransport().call(
            "me", "heartbeat", {},
            {"node_id": node.uuid, "callback_url": URL,
             "agent_token": token,
             "node_fields": ramdisk.idle_fields(node)}, "1.11")
        assert mgr.pool.wait_idle(10)
        # And the previous version's call, without them.
        rpc.LocalTransport().call(
            "me", "heartbeat", {},
            {"node_id": node.uuid, "callback_url": URL,
             "agent_token": token}, "1.7")
        assert mgr.pool.wait_idle(10)
    finally:
        rpc.unregister_local("me")
    assert reads == [node.uuid]
    assert Node.get(node.uuid).driver_internal_info["agent_url"] == URL


def test_fields_of_a_node_changed_since_take_the_lock(mgr, locks):
    """What a lock holder wrote after the API's read is kept: the
    conditional UPDATE misses and the locked path records the heartbeat
    on the node as it is."""
    node, token = _with_token(mgr)
    with task_manager.acquire(None, node.uuid, host="other") as task:
        task.node.driver_internal_info = dict(
            task.node.driver_internal_info, other="written")
        task.node.save()
    _beat_as_read(mgr, node, token)
    info = Node.get(node.uuid).driver_internal_info
    assert info["other"] == "written"
    assert info["agent_url"] == URL
    assert locks["reserved"] == [node.uuid, node.uuid]


def test_fields_of_a_node_locked_since_answer_409(mgr):
    node, token = _with_token(mgr)
    db_api.get_instance().reserve_node("other", node.id)
    with pytest.raises(exception.NodeLocked):
        _beat_as_read(mgr, node, token)
    assert "agent_url" not in Node.get(node.uuid).driver_internal_info


def test_fields_read_before_the_token_was_issued_take_the_lock(mgr, locks):
    node = builders.make_node(provision_state=states.MANAGEABLE)
    read = Node.get(node.uuid)
    token = agent_token.issue(node)
    node.save()
    _beat_as_read(mgr, read, token)
    assert locks["reserved"] == [node.uuid]
    assert Node.get(node.uuid).driver_internal_info["agent_url"] == URL


def test_fields_of_a_node_in_a_wait_state_go_to_the_interface(
        mgr, locks, monkeypatch):
    handled = []
    monkeypatch.setattr(agent_steps.AgentStepsMixin, "_continue",
                        lambda self, task, kind: handled.append(kind))
    node, token = _with_token(mgr, deploy_interface="direct",
                              provision_state=states.CLEANWAIT)
    _beat_as_read(mgr, node, token)
    assert handled == ["clean"]
    assert locks["reserved"] == [node.uuid]


def test_fields_of_another_node_are_not_used(mgr, locks, reads):
    """Fields naming another node than the call are ignored: the node the
    call names is read and written, the other one is left alone."""
    node, token = _with_token(mgr)
    other, _ = _with_token(mgr)
    reads.clear()
    mgr.heartbeat({}, node.uuid, URL, "1", token,
                  node_fields=ramdisk.idle_fields(other))
    assert mgr.pool.wait_idle(10)
    assert reads == [node.uuid]
    assert Node.get(node.uuid).driver_internal_info["agent_url"] == URL
    assert "agent_url" not in Node.get(other.uuid).driver_internal_info


def test_incomplete_fields_are_not_used(mgr, reads):
    node, token = _with_token(mgr)
    fields = ramdisk.idle_fields(node)
    del fields["driver_internal_info"]
    reads.clear()
    mgr.heartbeat({}, node.uuid, URL, "1", token, node_fields=fields)
    assert mgr.pool.wait_idle(10)
    assert reads == [node.uuid]
    assert Node.get(node.uuid).driver_internal_info["agent_url"] == URL


def test_the_update_is_bound_to_the_row_read(mgr):
    """An id that is not the UUID's row (a confused caller) writes
    nothing: the UUID is part of what the write expects."""
    node, token = _with_token(mgr)
    other, _ = _with_token(mgr)
    fields = dict(ramdisk.idle_fields(node), id=other.id)
    assert not ramdisk.record_idle_heartbeat(node.uuid, URL, "1", token,
                                             None, fields)
    assert "agent_url" not in Node.get(other.uuid).driver_internal_info


def test_idle_fields_are_plain_json(mgr):
    import json
    node, _ = _with_token(mgr)
    fields = ramdisk.idle_fields(node)
    assert json.loads(json.dumps(fields)) == fields
    assert set(fields) == set(ramdisk.IDLE_FIELDS)
    assert ramdisk.idle_fields({"uuid": node.uuid}) is None


def test_a_node_read_elsewhere_has_only_those_fields(mgr):
    node, _ = _with_token(mgr)
    seen = Node.as_read_elsewhere(ramdisk.idle_fields(node))
    assert seen.id == node.id and seen.uuid == node.uuid
    with pytest.raises(AttributeError):
        seen.instance_info  # noqa: B018 - never read, so not there
    with pytest.raises(ValueError):
        Node.as_read_elsewhere({"uuid": node.uuid, "bogus": 1})


def test_fields_beyond_the_idle_ones_are_left_out(mgr, locks, reads):
    node, token = _with_token(mgr)
    fields = dict(ramdisk.idle_fields(node), from_a_newer_api="x",
                  instance_info={"not": "needed"})
    reads.clear()
    mgr.heartbeat({}, node.uuid, URL, "1", token, node_fields=fields)
    assert mgr.pool.wait_idle(10)
    assert reads == []
    assert locks == {"reserved": [], "spawned": []}
    assert Node.get(node.uuid).driver_internal_info["agent_url"] == URL
