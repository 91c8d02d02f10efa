"""The distributed reboot throttle (``[conductor]reboot_throttle``).

Every power-on and reboot in the cluster takes one cluster-wide lock
(through the coordination backend; process-local without one), waits the
throttle's quantum, acts, and releases the lock: two power-ons anywhere
are at least the quantum apart, so a rack coming up does not draw its
inrush current at once. The wait is before the action so that a conductor
told to stop (SIGTERM) while it waits gives the action up before touching
the machine: the node's last_error says so and its lock is released as
the task ends.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from typing import Iterator

from ironic.common import exception
from ironic.conf import CONF
from ironic.coordination import backend

LOG = logging.getLogger(__name__)

LOCK_NAME = "ironic-reboot-throttle"
# Set when the conductor stops: waits in the throttle end at once.
STOPPING = threading.Event()
# How often a wait for the lock looks at STOPPING.
_POLL = 0.2


class ThrottleInterrupted(exception.IronicException):
    _msg_fmt = ("The conductor is stopping: the %(action)s was not "
                "performed (it was waiting in the reboot throttle); "
                "retry it.")
    safe = True


@contextlib.contextmanager
def throttled(action: str, node_uuid: str) -> Iterator[None]:
    """Run the body (one power-on or reboot) under the throttle."""
    quantum = CONF.conductor.reboot_throttle
    if not quantum:
        yield
        return
    lock = backend.current().get_lock(LOCK_NAME)
    _acquire(lock, action, node_uuid)
    try:
        if STOPPING.wait(quantum):
            _interrupted(action, node_uuid)
        yield
    finally:
        try:
            lock.release()
        except backend.errors() as e:
            LOG.warning("Releasing the reboot throttle failed (it expires "
                        "on its own): %s", e)


def _acquire(lock, action: str, node_uuid: str) -> None:
    started = time.monotonic()
    while True:
        if STOPPING.is_set():
            _interrupted(action, node_uuid)
        try:
            if lock.acquire(blocking=_POLL):
                break
        except backend.errors() as e:
            # A backend hiccup: the throttle is a safety, not a reason to
            # fail the deployment; wait and try again (SIGTERM ends it).
            LOG.warning("Reboot throttle: the coordination backend does "
                        "not answer (%s); waiting", e)
            STOPPING.wait(1)
    waited = time.monotonic() - started
    if waited > 1:
        LOG.info("Node %s waited %.1f s for the reboot throttle", node_uuid,
                 waited)


def _interrupted(action: str, node_uuid: str) -> None:
    LOG.warning("Node %s: %s given up, the conductor is stopping",
                node_uuid, action)
    raise ThrottleInterrupted(action=action)
