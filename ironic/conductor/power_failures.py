"""Failed power state syncs: counted per node, written in batches, logged
once per cycle.

When a whole BMC network goes away every node of the conductor fails at
once, every cycle, until its ``[conductor]power_state_sync_max_retries``
are used up and it goes into maintenance (where ``recover_power_failures``
polls it until its BMC answers). What one failure costs therefore decides
what such an outage costs:

* the database: failures are written ``BATCH`` nodes per transaction
  without taking the node locks (``write_idle_nodes``: a node someone
  holds or that is in maintenance is left alone), and a single writer per
  process at a time, so the sync never queues writers of its own behind
  sqlite's lock nor contends with the API;
* the log: the first ``DETAILED`` failures of a cycle get a line each, the
  rest only at debug level, and the cycle ends with one summary line (how
  many failed, how many went into maintenance, the commonest errors);
* memory: a count per failing node and one batch of at most ``BATCH``
  messages; no exception or traceback outlives the question that raised
  it (``power_sync.ask_bmc`` keeps only its text).
"""

from __future__ import annotations

import collections
import logging
import threading
from typing import Any

from ironic.common import faults, scrub
from ironic.conductor import utils
from ironic.conf import CONF
from ironic.objects import housekeeping
from ironic.objects.node import Node

LOG = logging.getLogger(__name__)

# last_error written by the sync starts with this, so an answer that comes
# back clears only what the sync itself wrote.
SYNC_ERROR = "Power state sync failed"

BATCH = 500
DETAILED = 10
# Distinct error texts counted for the summary: a cycle of 50,000 nodes
# with 50,000 different messages must not keep them all.
_KINDS = 100

# One writer of failure records per process: sqlite has a single write
# lock, and writers of our own queuing for it only take turns with the
# API's.
_WRITER = threading.Lock()


class FailureBook:
    """The failures of one cycle (thread-safe)."""

    def __init__(self, svc: Any, what: str = "Power state sync"):
        self.svc = svc
        self.what = what
        self.limit = CONF.conductor.power_state_sync_max_retries
        self._lock = threading.Lock()
        self._pending: list[tuple[Node, int, str]] = []
        self._errors: collections.Counter = collections.Counter()
        self.failed = 0
        self.maintenance = 0

    def add(self, node: Node, error: str) -> int:
        """Count a failure of ``node``; returns 0 (what is written counts
        at ``flush``)."""
        counts = self.svc.power_failures
        with self._lock:
            count = counts[node.id] = counts.get(node.id, 0) + 1
            self.failed += 1
            detailed = self.failed <= DETAILED
            if error in self._errors or len(self._errors) < _KINDS:
                self._errors[error] += 1
            self._pending.append((node, count, error))
            full = len(self._pending) >= BATCH
        if detailed:
            LOG.warning("%s of node %s failed (%d in a row): %s", self.what,
                        node.uuid, count, error)
        else:
            LOG.debug("%s of node %s failed (%d in a row): %s", self.what,
                      node.uuid, count, error)
        if full:
            self.flush()
        return 0

    def flush(self) -> int:
        """Write what is pending; returns the nodes put in maintenance."""
        with self._lock:
            pending, self._pending = self._pending, []
        if not pending:
            return 0
        changes, history, giving_up = [], {}, {}
        for node, count, error in pending:
            if count > self.limit:
                values = self._maintenance(count, error)
                history[node.id] = _history(self.svc, node,
                                            values["maintenance_reason"])
                giving_up[node.id] = node
            else:
                values = {"last_error": (
                    f"{SYNC_ERROR} ({count} of {self.limit + 1} attempts "
                    f"before maintenance): {error}")}
            changes.append((node.id, values))
        with _WRITER:
            written = housekeeping.write_idle_nodes(changes, history)
        return self._gave_up([giving_up[i] for i in written
                              if i in giving_up])

    def _maintenance(self, count: int, error: str) -> dict:
        reason = (f"{SYNC_ERROR} {count} times in a row, the node is in "
                  f"maintenance until its BMC answers again; last error: "
                  f"{error}")
        return {"maintenance": True, "fault": faults.POWER_FAILURE,
                "maintenance_reason": reason, "last_error": reason}

    def _gave_up(self, nodes: list[Node]) -> int:
        with self._lock:
            before = self.maintenance
            self.maintenance += len(nodes)
        for i, node in enumerate(nodes):
            self.svc.power_failures.pop(node.id, None)
            log = LOG.error if before + i < DETAILED else LOG.debug
            log("Node %s put in maintenance after %d failed power state "
                "syncs", node.uuid, self.limit + 1)
        return len(nodes)

    def summarise(self, asked: int) -> None:
        """One line for the whole cycle, when anything failed."""
        if not self.failed:
            return
        common = "; ".join(f"{count} x {error}" for error, count
                           in self._errors.most_common(3))
        LOG.warning("%s: %d of %d nodes failed, %d put in maintenance "
                    "(the first %d logged one by one, the others at debug "
                    "level); commonest errors: %s", self.what, self.failed,
                    asked, self.maintenance, DETAILED, common)


def _history(svc: Any, node: Node, event: str) -> dict:
    state, target, since = utils.provision_snapshot(node)
    return {"conductor": svc.host, "event_type": "maintenance",
            "severity": "ERROR", "event": scrub.text(event), "user": None,
            "project": None, "state": state,
            "target_provision_state": target,
            "duration_seconds": utils.seconds_since(since)}


class RecoveryBook:
    """Nodes of one recovery run whose BMC answered again: taken out of
    maintenance ``BATCH`` at a time, without their locks (a node someone
    holds, or that left maintenance or changed fault meanwhile, is left
    alone), as failures are written. Thread-safe."""

    def __init__(self, svc: Any):
        self.svc = svc
        self._lock = threading.Lock()
        self._pending: list[tuple[Node, str, str | None]] = []
        self.recovered = 0

    def add(self, node: Node, power_state: str, health: str | None) -> int:
        with self._lock:
            self._pending.append((node, power_state, health))
            full = len(self._pending) >= BATCH
        return self.flush() if full else 0

    def flush(self) -> int:
        """Write what is pending; returns the nodes out of maintenance."""
        with self._lock:
            pending, self._pending = self._pending, []
        if not pending:
            return 0
        changes, history = [], {}
        for node, power_state, health in pending:
            values: dict[str, Any] = {
                "power_state": power_state, "maintenance": False,
                "maintenance_reason": None, "fault": None}
            if CONF.conductor.enable_health_monitoring:
                values["health"] = health
            if (node.last_error or "").startswith(SYNC_ERROR):
                values["last_error"] = None
            changes.append((node.id, values))
            history[node.id] = dict(
                _history(self.svc, node,
                         f"The BMC answers again (power {power_state}); "
                         f"maintenance set for the power failure is "
                         f"lifted"), severity="INFO")
        with _WRITER:
            written = housekeeping.write_idle_nodes(
                changes, history, in_maintenance_for=faults.POWER_FAILURE)
        nodes = {node.id: node for node, _, _ in pending}
        with self._lock:
            before = self.recovered
            self.recovered += len(written)
        for i, node_id in enumerate(written):
            self.svc.power_failures.pop(node_id, None)
            log = LOG.info if before + i < DETAILED else LOG.debug
            log("Node %s left maintenance: its BMC answers again",
                nodes[node_id].uuid)
        return len(written)
