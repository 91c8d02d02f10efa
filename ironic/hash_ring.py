"""Which conductor owns a node: consistent hashing over live conductors.

One ring per (conductor group, hardware type), built from the conductors
table. Each conductor takes ``2 ** hash_partition_exponent`` points on the
ring; a node's UUID hashes to a point and the next point clockwise names its
conductor (the next distinct ones are its replicas). Because a conductor's
points do not depend on who else is there, a conductor joining or leaving
moves only the nodes between its own points.

Rings are cached for ``hash_ring_reset_interval`` seconds and rebuilt at once
when this process sees membership change (``HashRingManager.reset``). The
interfaces those conductors serve (the API's interface catalog) are read at
the same time, so routing and node validation see the same conductors.
"""

from __future__ import annotations

import bisect
import hashlib
import threading
import time
from typing import Any, Callable, Iterable

from ironic.common import exception, interface_catalog
from ironic.conf import CONF
from ironic.objects.conductor import Conductor


def _hash(key: str) -> int:
    digest = hashlib.md5(key.encode(), usedforsecurity=False).digest()
    return int.from_bytes(digest[:8], "big")


class HashRing:
    """A ring over a fixed set of hosts."""

    def __init__(self, hosts: Iterable[str], partition_exponent: int = 5,
                 replicas: int = 1):
        self.hosts = sorted(set(hosts))
        self.replicas = max(1, replicas)
        points = []
        for host in self.hosts:
            for i in range(2 ** partition_exponent):
                points.append((_hash(f"{host}/{i}"), host))
        points.sort()
        self._keys = [p for p, _ in points]
        self._owners = [h for _, h in points]

    def owner(self, key: str) -> str | None:
        """The first of ``get_hosts(key)`` (None for an empty ring),
        without building the list."""
        keys = self._keys
        if not keys:
            return None
        if len(self.hosts) == 1:
            # Every point is its own: no hash needed (one conductor, the
            # usual all-in-one, is asked this for each node of a list).
            return self.hosts[0]
        return self._owners[bisect.bisect(keys, _hash(key)) % len(keys)]

    def get_hosts(self, key: str, ignore: Iterable[str] = ()) -> list[str]:
        """Owner first, then replicas, skipping ``ignore``d hosts."""
        if not self._keys:
            return []
        if not ignore and self.replicas == 1:
            # The question of every node document: its owner alone.
            return [self._owners[bisect.bisect(self._keys, _hash(key))
                                 % len(self._keys)]]
        ignore = set(ignore)
        wanted = min(self.replicas, len(set(self.hosts) - ignore))
        out: list[str] = []
        start = bisect.bisect(self._keys, _hash(key))
        for i in range(len(self._keys)):
            host = self._owners[(start + i) % len(self._keys)]
            if host not in ignore and host not in out:
                out.append(host)
                if len(out) >= wanted:
                    break
        return out


class HashRingManager:
    """Rings per (group, hardware type), cached with a short lifetime."""

    def __init__(self, cache_time: float | None = None):
        self._lock = threading.Lock()
        self._rings: dict[tuple[str, str], HashRing] = {}
        self._built_at: float | None = None
        self._cache_time = cache_time
        self._ttl = 0.0
        self._members: frozenset = frozenset()
        self._catalog: Any = None
        # Conductors a caller found dead before their heartbeat timed out:
        # hostname -> the heartbeat seen then. Out of the rings until they
        # heartbeat again.
        self._suspects: dict[str, Any] = {}
        self._heartbeats: dict[str, Any] = {}

    def _expired(self) -> bool:
        # Asked on every node document: the lifetime was read when the
        # rings were built, not from the configuration each time.
        return (self._built_at is None
                or time.monotonic() - self._built_at >= self._ttl)

    def reset(self) -> None:
        with self._lock:
            self._built_at = None

    def suspect(self, host: str) -> None:
        """``host`` did not answer a liveness check: leave it out of the
        rings (its nodes go to the next conductor on the ring) until its
        heartbeat moves on."""
        with self._lock:
            self._suspects.setdefault(host, self._heartbeats.get(host))
            self._built_at = None

    def _alive(self, row: Any) -> bool:
        beat = row.updated_at or row.created_at
        self._heartbeats[row.hostname] = beat
        if row.hostname not in self._suspects:
            return True
        seen = self._suspects[row.hostname]
        if seen is None:
            # Suspected before this process saw it heartbeat: its next
            # heartbeat is the one after this.
            self._suspects[row.hostname] = beat
            return False
        if beat is not None and beat > seen:
            del self._suspects[row.hostname]
            return True
        return False

    def _build(self) -> None:
        rows = [row for row in Conductor.list_alive() if self._alive(row)]
        hosts: dict[tuple[str, str], list[str]] = {}
        for row in rows:
            for hw_type in row.drivers or []:
                hosts.setdefault((row.conductor_group or "", hw_type),
                                 []).append(row.hostname)
        self._rings = {k: HashRing(v, CONF.hash_partition_exponent,
                                   CONF.hash_distribution_replicas)
                       for k, v in hosts.items()}
        self._members = frozenset((r.hostname, r.conductor_group)
                                  for r in rows)
        self._catalog = interface_catalog.Catalog.from_records(
            Conductor.live_hardware())
        self._ttl = (CONF.hash_ring_reset_interval if self._cache_time is None
                     else self._cache_time)
        self._built_at = time.monotonic()

    @property
    def members(self) -> frozenset:
        """(hostname, group) of the conductors the rings were built from."""
        self.rings()
        return self._members

    @property
    def catalog(self) -> interface_catalog.Catalog:
        """The interface catalog of the conductors in the rings."""
        self.rings()
        return self._catalog

    def rings(self) -> dict[tuple[str, str], HashRing]:
        with self._lock:
            if self._expired():
                self._build()
            return self._rings

    def get_ring(self, hardware_type: str, conductor_group: str = ""
                 ) -> HashRing:
        ring = self.rings().get(_ring_key(hardware_type, conductor_group))
        if ring is None:
            raise exception.NoValidHost(
                reason=f"hardware type {hardware_type} in conductor group "
                       f"'{conductor_group or ''}'")
        return ring

    def hosts_for(self, node: Any) -> list[str]:
        """Owner and replicas of a node (an object or a dict with uuid,
        driver and conductor_group)."""
        ring = self.get_ring(_field(node, "driver"),
                             _field(node, "conductor_group") or "")
        return ring.get_hosts(_field(node, "uuid"))


def _field(node: Any, name: str) -> Any:
    if isinstance(node, dict):
        return node.get(name)
    return getattr(node, name, None)


def _ring_key(hardware_type: str, conductor_group: str | None
              ) -> tuple[str, str]:
    """The key of ``HashRingManager.rings()`` for a node's hardware type
    and conductor group (compared in lower case)."""
    return (conductor_group or "").lower(), hardware_type


_MANAGER: HashRingManager | None = None


def manager() -> HashRingManager:
    """The process-wide ring manager."""
    global _MANAGER
    if _MANAGER is None:
        _MANAGER = HashRingManager()
    return _MANAGER


def reset() -> None:
    """Forget cached rings (membership changed, or tests switch DBs)."""
    global _MANAGER
    _MANAGER = None


def conductor_for(node: Any) -> str | None:
    """Hostname of the conductor that owns ``node``, or None when no live
    conductor serves its hardware type and group (the node's ``conductor``
    field in the API)."""
    try:
        ring = manager().get_ring(_field(node, "driver"),
                                  _field(node, "conductor_group") or "")
    except exception.NoValidHost:
        return None
    return ring.owner(_field(node, "uuid"))


def conductor_finder() -> Callable[[Any], str | None]:
    """``conductor_for`` for the many nodes of one page: the rings are
    looked up once (lock and expiry check), not once per node."""
    rings = manager().rings()

    def find(node: Any) -> str | None:
        ring = rings.get(_ring_key(_field(node, "driver"),
                                   _field(node, "conductor_group")))
        return None if ring is None else ring.owner(_field(node, "uuid"))
    return find


def live_catalog() -> interface_catalog.Catalog:
    """The interface catalog of the live conductors, as cached with the
    hash rings (read again every ``hash_ring_reset_interval`` seconds, and
    at once when this process registers or unregisters a conductor)."""
    return manager().catalog
