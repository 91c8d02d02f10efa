"""The leader's singleton jobs on a real (sqlite) database: stale
conductor rows, node history past its limit, stale inspection data."""

from __future__ import annotations

import datetime

import sqlalchemy as sa

from ironic.conductor import leader_jobs
from ironic.db import api as db_api
from ironic.db.sqlalchemy import engine, models


def _age(model, column_filter, days: float) -> None:
    when = datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None) - datetime.timedelta(days=days)
    with engine.writer() as session:
        session.execute(sa.update(model).where(column_filter).values(
            updated_at=when, created_at=when))


def test_stale_conductor_rows_go_with_their_affinity(database, config):
    config("conductor", conductor_cleanup_timeout=3600,
           conductor_cleanup_batch_size=10)
    db = db_api.get_instance()
    old = db.register_conductor({"hostname": "old", "drivers": []})
    db.register_conductor({"hostname": "live", "drivers": []})
    node = db.create_node({"driver": "fake-hardware",
                           "conductor_affinity": old.id})
    _age(models.Conductor, models.Conductor.hostname == "old", 1)
    assert leader_jobs.delete_stale_conductors() == ["old"]
    assert sorted(c.hostname for c in db.list_conductors()) == ["live"]
    assert db.get_node_by_id(node.id).conductor_affinity is None
    assert leader_jobs.delete_stale_conductors() == []


def test_node_history_keeps_the_newest(database, config):
    config("conductor", node_history_max_entries=3,
           node_history_cleanup_batch_count=1000)
    db = db_api.get_instance()
    busy = db.create_node({"driver": "fake-hardware"})
    quiet = db.create_node({"driver": "fake-hardware"})
    for i in range(6):
        db.add_node_history(busy.id, {"event": f"e{i}", "severity": "ERROR",
                                      "event_type": "x", "conductor": "c"})
    db.add_node_history(quiet.id, {"event": "q", "severity": "ERROR",
                                   "event_type": "x", "conductor": "c"})
    assert leader_jobs.prune_node_history() == 3
    events = db.get_node_history_list(busy.id, limit=None)
    assert sorted(e.event for e in events) == ["e3", "e4", "e5"]
    assert len(db.get_node_history_list(quiet.id, limit=None)) == 1
    assert leader_jobs.prune_node_history() == 0


def test_node_history_minimum_days_are_kept(database, config):
    config("conductor", node_history_max_entries=1,
           node_history_minimum_days=2)
    db = db_api.get_instance()
    node = db.create_node({"driver": "fake-hardware"})
    for i in range(3):
        db.add_node_history(node.id, {"event": f"e{i}", "severity": "ERROR",
                                      "event_type": "x", "conductor": "c"})
    _age(models.NodeHistory, models.NodeHistory.event == "e0", 5)
    assert leader_jobs.prune_node_history() == 1
    assert len(db.get_node_history_list(node.id, limit=None)) == 2


def test_replaced_inspection_data_is_pruned(database):
    db = db_api.get_instance()
    node = db.create_node({"driver": "fake-hardware"})
    db.set_node_inventory(node.id, {"cpu": 1}, {})
    with engine.writer() as session:
        # What two inspections racing leave behind.
        session.add(models.NodeInventory(node_id=node.id,
                                         inventory_data={"cpu": 2},
                                         plugin_data={}))
    assert leader_jobs.prune_inspection_data() == 1
    assert db.get_node_inventory(node.id).inventory_data == {"cpu": 2}
    assert leader_jobs.prune_inspection_data() == 0

