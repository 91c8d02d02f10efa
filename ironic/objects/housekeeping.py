"""Cluster-wide reads and writes that belong to no single record: the
leader's pruning, the deploy/clean limits' counts, the power sync's
batched failure records and the database's liveness probe (the node locks
are in ``node_lock``)."""

from __future__ import annotations

from typing import Iterable

from ironic.db import api as db_api
from ironic.db.sqlalchemy import engine


def delete_stale_conductors(offline_for: int, batch_size: int) -> list[str]:
    """Delete the rows of conductors offline for more than ``offline_for``
    seconds (at most ``batch_size``); their host names."""
    return db_api.get_instance().delete_stale_conductors(offline_for,
                                                         batch_size)


def prune_node_history(max_entries: int, minimum_days: int,
                       batch_count: int) -> int:
    """Drop the oldest history events beyond ``max_entries`` per node;
    how many were dropped."""
    return db_api.get_instance().prune_node_history(max_entries,
                                                    minimum_days,
                                                    batch_count)


def prune_inspection_data() -> int:
    """Drop inspection data of nodes that no longer exist; how many."""
    return db_api.get_instance().prune_node_inventory()


def count_in_provision_states(provision_states: Iterable[str]) -> int:
    return db_api.get_instance().count_nodes_in_provision_state(
        provision_states)


def write_idle_nodes(changes: Iterable[tuple[int, dict]],
                     history: dict[int, dict] | None = None,
                     **kwargs) -> list[int]:
    """Write each node's values where no conductor holds its lock (one
    transaction; see the db API for ``in_maintenance_for``); the ids
    written."""
    return db_api.get_instance().write_idle_nodes(changes, history,
                                                  **kwargs)


def database_round_trip() -> None:
    """One ``SELECT 1`` on a connection of the pool (a new one if the
    pooled one died); raises what the driver raises."""
    import sqlalchemy as sa

    with engine.reading() as conn:
        conn.execute(sa.text("SELECT 1")).all()
