"""Rendered API documents, reused while their source is unchanged.

Clients that watch a node (Nova's driver while it deploys, metal3, a CLI
in a loop) ask for the same document again and again, and it changes far
less often than it is asked for. Rendering it (decoding the JSON columns,
masking secrets, building links, encoding) costs about as much as the
rest of the request. An entry holds the encoded document with the *stamp*
of what it was rendered from: the raw database rows of the node and its
traits, serialized (``NodeSnapshot.stamp``). A request reads the rows as
it always does; if their stamp is equal, the stored bytes are the answer.
Nothing is ever invalidated by hand, so no writer anywhere (another API
worker, a conductor, a manual SQL update) can leave a stale entry behind.

Whatever else a document depends on belongs in the key (version, fields,
public URL) or in the entry's ``tag``, which the caller checks itself
(the conductor that owns the node, which follows the hash ring rather
than the row).
"""

from __future__ import annotations

import threading
from typing import Any, Hashable

from ironic.conf import CONF


class DocumentCache:
    """At most ``[api]node_document_cache_size`` entries; the oldest
    stored goes first."""

    def __init__(self) -> None:
        self._entries: dict[Hashable, tuple[Any, Any, bytes]] = {}
        self._lock = threading.Lock()
        # Read at the first store after start or clear(): a configuration
        # read costs as much as the lookup itself.
        self._size: int | None = None

    def get(self, key: Hashable, stamp: Any) -> tuple[Any, bytes] | None:
        """(tag, body) stored under ``key`` for an equal ``stamp``."""
        entry = self._entries.get(key)
        if entry is None or stamp is None or entry[0] != stamp:
            return None
        return entry[1], entry[2]

    def put(self, key: Hashable, stamp: Any, tag: Any, body: bytes) -> None:
        if stamp is None:
            return
        size = self._size
        if size is None:
            size = self._size = CONF.api.node_document_cache_size
        if size == 0:
            return
        # A copy of the exact length: orjson's bytes keep the capacity its
        # buffer grew to, measured 32 KiB for a 2.6 KiB node document.
        body = bytes(memoryview(body))
        with self._lock:
            entries = self._entries
            entries.pop(key, None)
            while len(entries) >= size:
                del entries[next(iter(entries))]
            entries[key] = (stamp, tag, body)

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._size = None
