"""The conductor's side of the ramdisk endpoints: tokens and heartbeats."""

from __future__ import annotations

import pytest

from ironic.common import agent_token, exception, states
from ironic.conductor import manager, workers
from ironic.db import api as db_api
from ironic.drivers.modules import fake
from ironic.objects.node import Node
from ironic.tests import builders

URL = "https://192.0.2.10:9999"


@pytest.fixture
def mgr(database, config):
    config(host="me")
    config("conductor", node_locked_retry_attempts=0)
    pool = workers.WorkerPool(3)
    yield _Settling("me", pool)
    pool.shutdown(wait=True)


class _Settling(manager.ConductorManager):
    """Waits for the worker a heartbeat hands its processing to."""

    def heartbeat(self, *args, **kwargs):
        super().heartbeat(*args, **kwargs)
        assert self.pool.wait_idle(10)


@pytest.fixture
def calls(monkeypatch):
    """Heartbeats the fake deploy, rescue and inspect interfaces got."""
    seen: list[tuple] = []

    def recorder(kind):
        def heartbeat(self, task, callback_url, agent_version, **kwargs):
            assert not task.shared
            assert Node.get(task.node.id).reservation == "me"
            seen.append((kind, callback_url, agent_version, kwargs))
        return heartbeat

    for cls, kind in ((fake.FakeDeploy, "deploy"),
                      (fake.FakeRescue, "rescue"),
                      (fake.FakeInspect, "inspect")):
        monkeypatch.setattr(cls, "heartbeat", recorder(kind))
    return seen


def _with_token(mgr, **values) -> tuple[Node, str]:
    values.setdefault("provision_state", states.DEPLOYWAIT)
    node = builders.make_node(**values)
    found = mgr.get_node_with_token({}, node.uuid)
    return Node.get(node.uuid), found["agent_token"]


def test_token_is_issued_once(mgr):
    node = builders.make_node(provision_state=states.CLEANWAIT,
                              properties={"cpus": 2})
    first = mgr.get_node_with_token({}, node.uuid)
    assert first["agent_token"]
    assert first["node"]["uuid"] == node.uuid
    assert first["node"]["properties"] == {"cpus": 2}
    assert set(first["node"]) == {"uuid", "properties", "instance_info",
                                  "driver_internal_info",
                                  "management_interface"}
    second = mgr.get_node_with_token({}, node.uuid)
    assert second["agent_token"] is None
    assert Node.get(node.uuid).reservation is None


def test_heartbeat_records_and_calls_the_deploy_interface(mgr, calls):
    node, token = _with_token(mgr)
    mgr.heartbeat({}, node.uuid, URL, "11.0.0", token, None, "end", "ok")
    info = Node.get(node.uuid).driver_internal_info
    assert info["agent_url"] == URL
    assert info["agent_version"] == "11.0.0"
    assert "T" in info["agent_last_heartbeat"]
    assert calls == [("deploy", URL, "11.0.0",
                      {"agent_verify_ca": None, "agent_status": "end",
                       "agent_status_message": "ok"})]
    assert Node.get(node.uuid).reservation is None


@pytest.mark.parametrize("state,kind", [
    (states.RESCUEWAIT, "rescue"), (states.INSPECTWAIT, "inspect"),
    (states.CLEANWAIT, "deploy"), (states.SERVICEWAIT, "deploy"),
])
def test_heartbeat_goes_to_the_waiting_interface(mgr, calls, state, kind):
    node, token = _with_token(mgr, provision_state=state)
    mgr.heartbeat({}, node.uuid, URL, None, token)
    assert [c[0] for c in calls] == [kind]


def test_heartbeat_in_maintenance_is_only_recorded(mgr, calls):
    node, token = _with_token(mgr, maintenance=True)
    mgr.heartbeat({}, node.uuid, URL, "1", token)
    assert calls == []
    assert Node.get(node.uuid).driver_internal_info["agent_url"] == URL


def test_heartbeat_without_interface_is_recorded(mgr, calls, config):
    node, token = _with_token(mgr, rescue_interface="no-rescue",
                              provision_state=states.RESCUEWAIT)
    mgr.heartbeat({}, node.uuid, URL, "1", token)
    assert Node.get(node.uuid).driver_internal_info["agent_url"] == URL


def test_wrong_token_changes_nothing(mgr, calls):
    node, token = _with_token(mgr)
    with pytest.raises(exception.InvalidParameterValue):
        mgr.heartbeat({}, node.uuid, URL, "1", token + "x")
    assert "agent_url" not in Node.get(node.uuid).driver_internal_info
    assert calls == []


def test_heartbeat_of_a_locked_node_does_not_wait(mgr, calls, config):
    config("conductor", node_locked_retry_attempts=5,
           node_locked_retry_interval=60)
    node, token = _with_token(mgr)
    db_api.get_instance().reserve_node("other", node.id)
    with pytest.raises(exception.NodeLocked):
        mgr.heartbeat({}, node.uuid, URL, "1", token)
    assert calls == []


def test_default_hooks_do_nothing():
    from ironic.drivers import base
    for cls in (base.DeployInterface, base.RescueInterface,
                base.InspectInterface):
        assert cls.heartbeat(None, None, URL, "1", agent_status=None) is None


# -- the token store ---------------------------------------------------


def test_token_store_keeps_only_a_digest(database):
    node = builders.make_node()
    token = agent_token.issue(node)
    stored = node.driver_internal_info["agent_secret_token"]
    assert token not in stored and stored.startswith("sha256:")
    assert agent_token.matches(node, token)
    assert not agent_token.matches(node, stored)
    assert not agent_token.matches(node, None)
    assert agent_token.for_agent(node) == token


def test_token_is_learned_from_a_valid_heartbeat(database):
    node = builders.make_node()
    token = agent_token.issue(node)
    agent_token.wipe(node)
    assert agent_token.for_agent(node) is None
    node.driver_internal_info = {"agent_secret_token":
                                 agent_token._digest(token)}
    assert agent_token.for_agent(node) is None  # e.g. after a restart
    assert not agent_token.accept(node, "guess")
    assert agent_token.accept(node, token)
    assert agent_token.for_agent(node) == token


def test_wipe_forgets_the_agent(database):
    node = builders.make_node(driver_internal_info={"keep": 1})
    agent_token.issue(node, pregenerated=True)
    node.driver_internal_info = dict(node.driver_internal_info,
                                     agent_url=URL, agent_version="1")
    assert agent_token.wipe(node)
    assert node.driver_internal_info == {"keep": 1}
    assert agent_token.for_agent(node) is None
    assert not agent_token.wipe(node)


# -- the agent is forgotten when it is gone ------------------------------


def test_power_off_and_reboot_forget_the_agent(mgr):
    from ironic.conductor import power, task_manager
    for action in (states.POWER_OFF, states.REBOOT):
        node, token = _with_token(mgr, power_state=states.POWER_ON)
        with task_manager.acquire(None, node.uuid, host="me") as task:
            power.node_power_action(task, action)
        after = Node.get(node.uuid)
        assert not agent_token.has_token(after), action
        assert agent_token.for_agent(after) is None


def test_power_on_of_a_running_node_and_pregenerated_tokens_are_kept(mgr):
    from ironic.conductor import power, task_manager
    node, token = _with_token(mgr, power_state=states.POWER_ON)
    with task_manager.acquire(None, node.uuid, host="me") as task:
        power.node_power_action(task, states.POWER_ON)
    assert agent_token.has_token(Node.get(node.uuid))
    with task_manager.acquire(None, node.uuid, host="me") as task:
        agent_token.wipe(task.node)
        agent_token.issue(task.node, pregenerated=True)
        power.node_power_action(task, states.REBOOT)
    assert agent_token.has_token(Node.get(node.uuid))


@pytest.mark.parametrize("before", [states.POWER_OFF, None])
def test_power_on_of_a_stopped_node_starts_without_a_token(mgr, monkeypatch,
                                                          before):
    """The stale token case: a token issued by a lookup while the node sat
    in manageable (``[api]restrict_lookup = false``) must be gone before
    a plain power on boots the ramdisk, and gone in the database before
    the machine starts."""
    from ironic.conductor import power, task_manager
    node, token = _with_token(mgr, provision_state=states.MANAGEABLE,
                              power_state=before)
    node.driver_internal_info = dict(node.driver_internal_info,
                                     agent_url=URL)
    node.save()
    seen = []

    def power_on(self, task, state, timeout=None):
        seen.append(Node.get(task.node.uuid).driver_internal_info)

    monkeypatch.setattr(fake.FakePower, "set_power_state", power_on)
    with task_manager.acquire(None, node.uuid, host="me") as task:
        power.node_power_action(task, states.POWER_ON)
    assert seen and agent_token.KEY not in seen[0]
    assert "agent_url" not in seen[0]
    after = Node.get(node.uuid)
    assert not agent_token.has_token(after)
    assert agent_token.for_agent(after) is None
    # The agent of the new boot gets a fresh token on its lookup.
    with task_manager.acquire(None, node.uuid, host="me") as task:
        task.node.provision_state = states.CLEANWAIT
        task.node.save()
    assert mgr.get_node_with_token({}, node.uuid)["agent_token"] not in \
        (None, token)


def test_ramdisk_boot_discards_an_earlier_token_even_a_pregenerated_one(
        mgr, monkeypatch):
    """Whatever the power path (here none: the node is on and the boot
    interface is asked first), prepare_ramdisk sees no earlier token."""
    from ironic.conductor import task_manager
    from ironic.drivers.modules import agent_steps
    node, token = _with_token(mgr, provision_state=states.CLEANING,
                              power_state=states.POWER_ON)
    seen = []

    def prepare_ramdisk(self, task, params):
        seen.append(dict(task.node.driver_internal_info))
        agent_token.issue(task.node, pregenerated=True)

    monkeypatch.setattr(fake.FakeBoot, "prepare_ramdisk", prepare_ramdisk)
    with task_manager.acquire(None, node.uuid, host="me") as task:
        task.node.driver_internal_info = dict(
            task.node.driver_internal_info, agent_url=URL)
        agent_steps.AgentStepsMixin().boot_agent(task)
        assert agent_token.KEY not in seen[0]
        assert "agent_url" not in seen[0]
        # The token prepared for this boot survives its reboot.
        assert agent_token.has_token(task.node)


def test_stable_state_forgets_the_agent(mgr):
    from ironic.conductor import task_manager
    node, token = _with_token(mgr, provision_state=states.DEPLOYWAIT)
    with task_manager.acquire(None, node.uuid, host="me") as task:
        task.process_event("resume")
    assert agent_token.has_token(Node.get(node.uuid))  # still deploying
    with task_manager.acquire(None, node.uuid, host="me") as task:
        task.process_event("done")
    after = Node.get(node.uuid)
    assert after.provision_state == states.ACTIVE
    assert not agent_token.has_token(after)


def test_heartbeat_is_answered_before_it_is_processed(mgr, monkeypatch):
    """As in Ironic: the token is checked at once, the rest is a worker's,
    which keeps the node locked until it is done."""
    import threading
    release, entered = threading.Event(), threading.Event()

    def slow(self, task, *args, **kwargs):
        entered.set()
        assert release.wait(10)

    monkeypatch.setattr(fake.FakeDeploy, "heartbeat", slow)
    node, token = _with_token(mgr)
    plain = manager.ConductorManager("me", mgr.pool)
    plain.heartbeat({}, node.uuid, URL, "1", token)
    assert entered.wait(10)
    assert Node.get(node.uuid).reservation == "me"
    with pytest.raises(exception.NodeLocked):
        plain.heartbeat({}, node.uuid, URL, "1", token)
    release.set()
    assert mgr.pool.wait_idle(10)
    fresh = Node.get(node.uuid)
    assert fresh.reservation is None
    assert fresh.driver_internal_info["agent_url"] == URL


def test_steps_a_heartbeat_resumes_run_in_its_worker(mgr, monkeypatch):
    """A heartbeat's interface may hand the task on (resume steps); the
    worker that processes the heartbeat runs that too, under the lock."""
    ran = []

    def resume(self, task, *args, **kwargs):
        task.spawn_after(lambda: ran.append(
            Node.get(task.node.id).reservation))

    monkeypatch.setattr(fake.FakeDeploy, "heartbeat", resume)
    node, token = _with_token(mgr)
    mgr.heartbeat({}, node.uuid, URL, "1", token)
    assert ran == ["me"]
    assert Node.get(node.uuid).reservation is None
