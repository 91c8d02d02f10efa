"""record_history: who caused an event and where the node was (API 1.113,
1.115), with only the database mocked away."""

from __future__ import annotations

import datetime
import types
from unittest import mock

from ironic.common import context as ctx_mod
from ironic.conductor import utils


def _task(context, **node):
    fields = dict(id=7, uuid="n1", provision_state="deploying",
                  target_provision_state="active",
                  provision_updated_at=None)
    fields.update(node)
    return types.SimpleNamespace(node=types.SimpleNamespace(**fields),
                                 context=context, host="cond-1")


def _recorded(task, **kwargs) -> dict:
    with mock.patch("ironic.db.api.get_instance") as dbapi:
        utils.record_history(task, "boom", **kwargs)
    node_id, values = dbapi.return_value.add_node_history.call_args[0]
    assert node_id == 7
    return values


def _ago(seconds: int) -> datetime.datetime:
    return (datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
            - datetime.timedelta(seconds=seconds))


def test_user_project_state_and_time_in_state():
    ctx = ctx_mod.RequestContext(user_id="u" * 40, project_id="p-1")
    got = _recorded(_task(ctx, provision_updated_at=_ago(90)))
    assert got["user"] == "u" * 32  # the column's size
    assert got["project"] == "p-1"
    assert (got["state"], got["target_provision_state"]) == ("deploying",
                                                             "active")
    assert 89 <= got["duration_seconds"] <= 95


def test_a_snapshot_taken_before_a_move_wins():
    task = _task(None, provision_state="deploy failed",
                 provision_updated_at=_ago(0))
    got = _recorded(task, snapshot=("deploying", "active", _ago(30)))
    assert got["state"] == "deploying"
    assert 29 <= got["duration_seconds"] <= 35
    assert (got["user"], got["project"]) == (None, None)


def test_no_state_time_known():
    got = _recorded(_task(ctx_mod.RequestContext()))
    assert got["duration_seconds"] is None and got["project"] is None


def test_a_database_error_does_not_escape():
    with mock.patch("ironic.db.api.get_instance") as dbapi:
        dbapi.return_value.add_node_history.side_effect = RuntimeError("db")
        utils.record_history(_task(None), "boom")
