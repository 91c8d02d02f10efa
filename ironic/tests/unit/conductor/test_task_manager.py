"""Tasks: locks, the state machine through process_event, worker hand-off."""

import threading

import pytest

from ironic.common import exception, states
from ironic.conductor import lock_book, task_manager, workers
from ironic.db import api as db_api
from ironic.objects.node import Node
from ironic.tests import builders


@pytest.fixture
def env(database, config):
    config(host="me")
    config("conductor", node_locked_retry_attempts=2,
           node_locked_retry_interval=0)
    pool = workers.WorkerPool(3)
    yield pool
    pool.shutdown(wait=True)


def _reload(node):
    return Node.get(node.id)


def test_exclusive_lock_is_taken_and_released(env):
    node = builders.make_node()
    with task_manager.acquire(None, node.uuid, purpose="test") as task:
        assert task.node.reservation == "me"
        assert _reload(node).reservation == "me"
    assert _reload(node).reservation is None


def test_locked_node_fails_after_bounded_retries(env):
    node = builders.make_node()
    db_api.get_instance().reserve_node("other", node.id)
    with pytest.raises(exception.NodeLocked) as err:
        task_manager.acquire(None, node.id)
    assert "other" in str(err.value) and err.value.code == 409
    assert _reload(node).reservation == "other"


def test_shared_lock_writes_nothing_and_can_be_upgraded(env):
    node = builders.make_node()
    db_api.get_instance().reserve_node("other", node.id)
    with task_manager.acquire(None, node.id, shared=True) as task:
        assert task.node.uuid == node.uuid
        with pytest.raises(exception.NodeLocked):
            task.upgrade_lock()
    db_api.get_instance().release_node("other", node.id)
    with task_manager.acquire(None, node.id, shared=True) as task:
        task.upgrade_lock("now exclusive")
        assert not task.shared
        assert _reload(node).reservation == "me"
    assert _reload(node).reservation is None


def test_process_event_writes_state_target_and_time(env):
    node = builders.make_node(last_error="old")
    with task_manager.acquire(None, node.id, pool=env) as task:
        task.process_event("manage")
    fresh = _reload(node)
    assert fresh.provision_state == states.VERIFYING
    assert fresh.target_provision_state == states.MANAGEABLE
    assert fresh.provision_updated_at is not None
    assert fresh.last_error is None


def test_failure_keeps_target_and_records_error(env):
    node = builders.make_node(provision_state=states.CLEANING,
                              target_provision_state=states.MANAGEABLE)
    with task_manager.acquire(None, node.id, pool=env) as task:
        task.process_event("fail", last_error="boom")
    fresh = _reload(node)
    assert (fresh.provision_state, fresh.target_provision_state,
            fresh.last_error) == (states.CLEANFAIL, states.MANAGEABLE,
                                  "boom")


def test_invalid_event_changes_nothing(env):
    node = builders.make_node()
    with pytest.raises(exception.InvalidStateRequested) as err:
        with task_manager.acquire(None, node.id, pool=env) as task:
            task.process_event("deploy")
    assert "enroll" in str(err.value) and err.value.code == 400
    fresh = _reload(node)
    assert fresh.provision_state == states.ENROLL
    assert fresh.reservation is None


def test_callback_runs_in_a_worker_holding_the_lock(env):
    node = builders.make_node()
    seen = {}
    go = threading.Event()

    def work(task):
        go.wait(5)
        seen["reservation"] = _reload(node).reservation
        task.process_event("done")

    with task_manager.acquire(None, node.id, pool=env) as task:
        task.process_event("manage", callback=work, call_args=(task,))
    assert _reload(node).reservation == "me"
    go.set()
    assert env.wait_idle(5)
    assert seen["reservation"] == "me"
    fresh = _reload(node)
    assert fresh.provision_state == states.MANAGEABLE
    assert fresh.target_provision_state is None
    assert fresh.reservation is None


def test_full_pool_answers_busy_without_side_effects(env):
    nodes = [builders.make_node() for _ in range(4)]
    gate = threading.Event()
    for n in nodes[:3]:
        with task_manager.acquire(None, n.id, pool=env) as task:
            task.process_event("manage", callback=gate.wait,
                               call_args=(5,))
    with pytest.raises(exception.NoFreeConductorWorker) as err:
        with task_manager.acquire(None, nodes[3].id, pool=env) as task:
            task.process_event("manage", callback=gate.wait)
    assert err.value.code == 503
    fresh = _reload(nodes[3])
    assert fresh.provision_state == states.ENROLL
    assert fresh.reservation is None
    gate.set()
    assert env.wait_idle(5)
    assert env.reserve() is not None


def test_a_broken_lease_refuses_late_writes(env):
    node = builders.make_node()
    dbapi = db_api.get_instance()
    with pytest.raises(exception.NodeLocked):
        with task_manager.acquire(None, node.id, pool=env) as task:
            dbapi.clear_node_reservations_for_conductor("me")
            dbapi.reserve_node("survivor", node.id)
            task.process_event("manage")
    fresh = _reload(node)
    assert fresh.provision_state == states.ENROLL
    assert fresh.reservation == "survivor"


def test_concurrent_tasks_serialize_on_the_lock(env, config):
    config("conductor", node_locked_retry_attempts=0)
    node = builders.make_node()
    results = []
    barrier = threading.Barrier(8)

    def try_manage():
        barrier.wait()
        try:
            with task_manager.acquire(None, node.id, pool=env) as task:
                task.process_event("manage")
            results.append("ok")
        except (exception.NodeLocked, exception.InvalidStateRequested):
            results.append("refused")

    threads = [threading.Thread(target=try_manage) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count("ok") == 1
    assert _reload(node).provision_state == states.VERIFYING


def _commit_then_lose_the_answer(monkeypatch):
    """reserve_node as a connection cut mid-commit leaves it: the lock is
    written, the caller gets a database error."""
    from oslo_db import exception as db_exc

    dbapi = db_api.get_instance()
    real = dbapi.reserve_node

    def reserve(tag, node_id):
        real(tag, node_id)
        raise db_exc.DBConnectionError("connection reset mid-commit")

    monkeypatch.setattr(dbapi, "reserve_node", reserve)
    return lambda: monkeypatch.setattr(dbapi, "reserve_node", real)


def test_a_lock_whose_answer_was_lost_is_released_by_the_sweep(
        env, monkeypatch):
    node = builders.make_node()
    held = builders.make_node()
    restore = _commit_then_lose_the_answer(monkeypatch)
    with pytest.raises(Exception, match="mid-commit"):
        task_manager.acquire(None, node.id)
    restore()
    assert _reload(node).reservation == "me"
    with task_manager.acquire(None, held.id):
        # A lock a task holds is not a stray; the lost one is.
        assert lock_book.release_stray_locks("me") == [node.uuid]
        assert _reload(held).reservation == "me"
    assert _reload(node).reservation is None
    assert _reload(held).reservation is None
    assert lock_book.release_stray_locks("me") == []


def test_the_sweep_leaves_locks_being_taken_and_upgraded(env):
    node = builders.make_node()
    book = lock_book.LOCKS
    # A task between its UPDATE and its bookkeeping: not a stray.
    token = book.taking("me", node.uuid)
    db_api.get_instance().reserve_node("me", node.id)
    assert lock_book.release_stray_locks("me") == []
    book.taken(token, node.id)
    assert lock_book.release_stray_locks("me") == []
    book.released("me", node.id)
    assert lock_book.release_stray_locks("me") == [node.uuid]
    with task_manager.acquire(None, node.id, shared=True) as task:
        task.upgrade_lock()
        assert lock_book.release_stray_locks("me") == []
    assert _reload(node).reservation is None


def test_a_node_being_swept_answers_locked_until_it_is_free(env):
    node = builders.make_node()
    db_api.get_instance().reserve_node("me", node.id)
    book = lock_book.LOCKS
    assert book.strays("me", [(node.id, node.uuid)]) == [(node.id, node.uuid)]
    with pytest.raises(exception.NodeLocked):
        task_manager.acquire(None, node.uuid, retry=False)
    db_api.get_instance().release_node("me", node.id)
    book.swept("me", node.id, node.uuid)
    with task_manager.acquire(None, node.uuid) as task:
        assert task.node.reservation == "me"
