"""Work that runs once per cluster, on the elected leader of the
conductors' party (``ironic.coordination.party``), not once per hash-ring
slice:

* breaking the node locks of dead conductors (at once whenever the
  leadership changes or a member leaves, then every takeover period);
* deleting the rows of conductors offline for
  ``[conductor]conductor_cleanup_timeout``;
* pruning node history past ``[conductor]node_history_max_entries``;
* pruning inspection data no node owns (or that a newer one replaced).

A job that raises makes its leader step down; the next leader runs it.
"""

from __future__ import annotations

import logging
from typing import Any

from ironic.conductor import takeover
from ironic.conf import CONF
from ironic.coordination import party
from ironic.objects import housekeeping

LOG = logging.getLogger(__name__)

GROUP = "ironic.conductors"


def takeover_interval() -> float:
    cond = CONF.conductor
    if cond.sync_local_state_interval <= 0:
        return 0
    return min(cond.heartbeat_timeout, cond.sync_local_state_interval)


def delete_stale_conductors() -> list[str]:
    cond = CONF.conductor
    gone = housekeeping.delete_stale_conductors(
        cond.conductor_cleanup_timeout, cond.conductor_cleanup_batch_size)
    if gone:
        LOG.info("Deleted the rows of conductors offline for more than %d "
                 "s: %s", cond.conductor_cleanup_timeout, ", ".join(gone))
    return gone


def prune_node_history() -> int:
    cond = CONF.conductor
    if not cond.node_history_cleanup_batch_count:
        return 0
    deleted = housekeeping.prune_node_history(
        cond.node_history_max_entries, cond.node_history_minimum_days,
        cond.node_history_cleanup_batch_count)
    if deleted:
        LOG.info("Pruned %d node history events (more than %d per node)",
                 deleted, cond.node_history_max_entries)
    return deleted


def prune_inspection_data() -> int:
    deleted = housekeeping.prune_inspection_data()
    if deleted:
        LOG.info("Pruned %d stale inspection data records", deleted)
    return deleted


def jobs(svc: Any) -> list[party.Job]:
    cond = CONF.conductor
    return [
        party.Job("release_dead_locks",
                  lambda: takeover.release_dead_locks(svc),
                  takeover_interval, at_reset=True),
        party.Job("conductor_cleanup", delete_stale_conductors,
                  lambda: cond.conductor_cleanup_interval),
        party.Job("node_history_cleanup", prune_node_history,
                  lambda: cond.node_history_cleanup_interval),
        party.Job("inspection_data_cleanup", prune_inspection_data,
                  lambda: cond.node_history_cleanup_interval),
    ]
