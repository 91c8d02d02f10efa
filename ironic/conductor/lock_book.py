"""Which node locks this process's tasks hold, and the strays they do not.

A lock is taken by one UPDATE of the node's ``reservation``. When the
connection breaks while that UPDATE commits (a database outage, a server
restart), the lock may be written although the task that asked for it got
an error and went away. Nothing would ever release it, and the conductor,
alive, keeps it from its peers' takeover: the node would answer 409 until
the conductor restarts. The conductor's takeover pass gives such strays
back (``release_stray_locks``).

A lock whose release met an outage is given back later by a thread of
its own (``TaskManager.release_resources``). The database cannot tell that
thread's release from one by another task of the same host, so until it
ends no task of this process takes the node and the sweep leaves it
alone: otherwise the late release could free a lock a newer task holds,
and two workers would run the same node.
"""

from __future__ import annotations

import logging
import threading

from ironic.common import exception
from ironic.objects import node_lock

LOG = logging.getLogger(__name__)


class LockBook:
    """The node locks this process's tasks hold or are taking; ``strays``
    tells the others from them without a race with tasks taking locks at
    the same moment."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # (host, node id) -> tasks holding it (an upgrade re-reserves).
        self._held: dict[tuple[str, int], int] = {}
        # token -> (host, node key as given: id or UUID)
        self._taking: dict[int, tuple[str, int | str]] = {}
        self._sweeping: set[tuple[str, int | str]] = set()
        # Locks a background thread is giving back after an outage.
        self._releasing: set[tuple[str, int | str]] = set()
        self._tokens = 0

    def taking(self, host: str, key: int | str) -> int:
        with self._lock:
            if (host, key) in self._sweeping or (host, key) in self._releasing:
                # Being given back right now; the caller retries on 409.
                raise exception.NodeLocked(node=key, host=host)
            self._tokens += 1
            self._taking[self._tokens] = (host, key)
            return self._tokens

    def taken(self, token: int, node_id: int | None) -> None:
        """The reservation of ``token`` ended: with the node's id when the
        lock is ours, None when the database said no or did not answer."""
        with self._lock:
            host, _key = self._taking.pop(token)
            if node_id is not None:
                held = (host, node_id)
                self._held[held] = self._held.get(held, 0) + 1

    def released(self, host: str, node_id: int) -> None:
        with self._lock:
            held = (host, node_id)
            count = self._held.get(held, 0) - 1
            if count > 0:
                self._held[held] = count
            else:
                self._held.pop(held, None)

    def strays(self, host: str, reserved: list[tuple[int, str]]
               ) -> list[tuple[int, str]]:
        """Of the nodes the database says ``host`` holds (read before this
        call), those no task holds nor is taking; they stay marked, so no
        task takes them, until ``swept``."""
        with self._lock:
            busy = set(self._taking.values())
            found = [(node_id, uuid) for node_id, uuid in reserved
                     if (host, node_id) not in self._held
                     and (host, node_id) not in self._releasing
                     and (host, node_id) not in busy
                     and (host, uuid) not in busy]
            for node_id, uuid in found:
                self._sweeping.update({(host, node_id), (host, uuid)})
            return found

    def swept(self, host: str, node_id: int, uuid: str) -> None:
        with self._lock:
            self._sweeping.difference_update({(host, node_id), (host, uuid)})

    def releasing_late(self, host: str, node_id: int, uuid: str) -> None:
        """A thread gives the lock back once the database answers; until
        ``released_late`` the node is neither taken nor swept here."""
        with self._lock:
            self._releasing.update({(host, node_id), (host, uuid)})

    def released_late(self, host: str, node_id: int, uuid: str) -> None:
        with self._lock:
            self._releasing.difference_update({(host, node_id),
                                               (host, uuid)})


LOCKS = LockBook()


def release_stray_locks(host: str) -> list[str]:
    """Give back the locks the database holds for ``host`` that no task
    of this process holds; returns their nodes' UUIDs."""
    released = []
    for node_id, uuid in LOCKS.strays(host,
                                      node_lock.locked_by(host)):
        try:
            node_lock.release(host, node_id)
            released.append(uuid)
        except (exception.NodeLocked, exception.NodeNotLocked,
                exception.NodeNotFound):
            pass
        finally:
            LOCKS.swept(host, node_id, uuid)
    if released:
        LOG.warning("Released the locks of nodes %s: %s held them with no "
                    "task (the answer to taking them was lost in a database "
                    "outage)", ", ".join(released), host)
    return released
