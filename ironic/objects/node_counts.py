"""How many nodes are in each state: the read the metrics export."""

from __future__ import annotations

import dataclasses

from ironic.db import api as db_api


@dataclasses.dataclass(frozen=True)
class StateCount:
    provision_state: str | None
    power_state: str | None
    maintenance: bool
    nodes: int


def by_shard() -> list[tuple[str | None, int]]:
    """(shard, number of nodes) for every shard in use; None for the nodes
    in no shard."""
    return [(name, count) for name, count in
            db_api.get_instance().get_shard_counts()]


def by_state() -> list[StateCount]:
    """One entry per (provision, power, maintenance) combination present."""
    return [StateCount(prov, power, bool(maint), count) for
            prov, power, maint, count in
            db_api.get_instance().get_node_state_counts()]
