"""Consoles across conductor restarts and takeovers.

A console process belongs to the conductor that started it and does not
survive it reliably, so a starting conductor starts again the consoles of
the enabled nodes it owns. The takeover periodic does the same for nodes
taken over from a conductor that died or left, whose console process is
gone with it. A console that cannot start is switched off, with the
reason in the node's last_error, rather than left claimed. A conductor
whose node went to another (live) conductor ends its own console process
for it, so that only the owner serves the node's console.
"""

from __future__ import annotations

import logging
from typing import Any

from ironic.common import exception
from ironic.conductor import periodics, power, task_manager

LOG = logging.getLogger(__name__)


def restart_enabled_consoles(svc: Any) -> int:
    """Start the consoles of this conductor's nodes that have
    console_enabled; returns how many run now."""
    return _start_owned(svc, "when the conductor started",
                        only_stopped=False)


def start_taken_over_consoles(svc: Any) -> int:
    """Start the enabled consoles of this conductor's nodes whose console
    process does not run (their previous conductor died or left)."""
    return _start_owned(svc, "while taking over the node",
                        only_stopped=True)


def _start_owned(svc: Any, when: str, only_stopped: bool) -> int:
    rows = periodics._rows([("console_enabled", True),
                            ("reservation", None)])
    started = 0
    for row in periodics.owned(svc.host, rows):
        try:
            started += _restart(svc, row["id"], when, only_stopped)
        except (exception.NodeLocked, exception.NodeNotFound):
            continue
        except Exception:  # noqa: BLE001 - the other nodes go on
            LOG.exception("Restarting the console of node %s failed",
                          row["uuid"])
    return started


def _console_runs(node_id: int) -> bool:
    """Checked without locking: most consoles run, and a takeover cycle
    must not lock every node whose console is enabled."""
    with task_manager.acquire(None, node_id, shared=True,
                              purpose="console check") as task:
        console = getattr(task.driver, "console", None)
        return console is not None and console.is_console_running(task)


def _restart(svc: Any, node_id: int, when: str, only_stopped: bool) -> int:
    if only_stopped and _console_runs(node_id):
        return 0
    with task_manager.acquire(None, node_id, purpose="console restart",
                              host=svc.host, pool=svc.pool,
                              retry=False) as task:
        node = task.node
        if not node.console_enabled:
            return 0
        console = getattr(task.driver, "console", None)
        if only_stopped and console is not None and \
                console.is_console_running(task):
            return 0
        try:
            if console is None:
                raise exception.ConsoleError(
                    error="the node has no console interface")
            console.validate(task)
            console.start_console(task)
        except Exception as e:  # noqa: BLE001 - recorded on the node
            LOG.error("Node %s: could not restart its console: %s",
                      node.uuid, e)
            node.console_enabled = False
            node.last_error = f"Failed to start the console {when}: {e}"
            node.save()
            return 0
        power.CONSOLES_HERE.add(node.uuid)
        node.save()
        LOG.info("Started the console of node %s %s", node.uuid, when)
        return 1


def stop_moved_consoles(svc: Any) -> int:
    """End the console processes this conductor runs for nodes that the
    ring now gives to another conductor, or whose console was disabled
    there; returns how many. (A node deleted meanwhile is only forgotten:
    without it there is no driver to end the process with.)"""
    here = set(power.CONSOLES_HERE)
    if not here:
        return 0
    rows = periodics._rows([("uuids", here)], ["console_enabled"])
    keep = {row["uuid"] for row in periodics.owned(svc.host, rows)
            if row["console_enabled"]}
    stopped = 0
    for uuid in here - keep:
        try:
            with task_manager.acquire(None, uuid, shared=True,
                                      purpose="console hand-over") as task:
                console = getattr(task.driver, "console", None)
                if console is not None:
                    console.stop_local_console(task)
        except exception.NodeNotFound:
            power.CONSOLES_HERE.discard(uuid)
            continue
        except Exception:  # noqa: BLE001 - tried again next cycle
            LOG.exception("Ending the local console of node %s failed",
                          uuid)
            continue
        power.CONSOLES_HERE.discard(uuid)
        stopped += 1
        LOG.info("Ended the console of node %s here: another conductor "
                 "serves it now", uuid)
    return stopped
