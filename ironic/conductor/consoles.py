"""Consoles across conductor restarts.

A console process belongs to the conductor that started it and does not
survive it reliably, so a starting conductor starts again the consoles of
the enabled nodes it owns. A console that cannot start is switched off,
with the reason in the node's last_error, rather than left claimed.
"""

from __future__ import annotations

import logging
from typing import Any

from ironic.common import exception
from ironic.conductor import periodics, task_manager
from ironic.db.sqlalchemy import models

LOG = logging.getLogger(__name__)


def restart_enabled_consoles(svc: Any) -> int:
    """Start the consoles of this conductor's nodes that have
    console_enabled; returns how many run now."""
    N = models.Node
    rows = periodics._rows([N.console_enabled.is_(True),
                            N.reservation.is_(None)])
    started = 0
    for row in periodics.owned(svc.host, rows):
        try:
            started += _restart(svc, row["id"])
        except (exception.NodeLocked, exception.NodeNotFound):
            continue
        except Exception:  # noqa: BLE001 - start-up goes on
            LOG.exception("Restarting the console of node %s failed",
                          row["uuid"])
    return started


def _restart(svc: Any, node_id: int) -> int:
    with task_manager.acquire(None, node_id, purpose="console restart",
                              host=svc.host, pool=svc.pool,
                              retry=False) as task:
        node = task.node
        if not node.console_enabled:
            return 0
        try:
            console = getattr(task.driver, "console", None)
            if console is None:
                raise exception.ConsoleError(
                    error="the node has no console interface")
            console.validate(task)
            console.start_console(task)
        except Exception as e:  # noqa: BLE001 - recorded on the node
            LOG.error("Node %s: could not restart its console: %s",
                      node.uuid, e)
            node.console_enabled = False
            node.last_error = (f"Failed to start the console when the "
                               f"conductor started: {e}")
            node.save()
            return 0
        node.save()
        LOG.info("Restarted the console of node %s", node.uuid)
        return 1
