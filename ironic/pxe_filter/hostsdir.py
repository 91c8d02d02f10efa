"""A dnsmasq ``dhcp-hostsdir`` used as an allow/deny list.

The layout is the one Ironic 39's PXE filter writes, so an existing
dnsmasq set-up and host directory keep working: one file per MAC address,
named by the address, holding ``<mac>`` (dnsmasq answers the NIC) or
``<mac>,ignore`` (it does not), and the file ``unknown_hosts_filter``
holding ``*:*:*:*:*:*`` or ``*:*:*:*:*:*,ignore`` for every other NIC.

dnsmasq re-reads a file of the directory when it is written (inotify) but
never forgets a file that is deleted, so a MAC is never removed: it is
flipped to ``ignore``. Files are replaced atomically (written under a
dot-name dnsmasq skips, then renamed) so dnsmasq never reads half a line.
The file size tells allow from deny without opening the file.
"""

from __future__ import annotations

import logging
import os
import re
from typing import Iterable

LOG = logging.getLogger(__name__)

UNKNOWN = "unknown_hosts_filter"
WILDCARD = "*:*:*:*:*:*"
_ALLOW_SIZE = len("00:00:00:00:00:00\n")
_DENY_SIZE = len("00:00:00:00:00:00,ignore\n")
_MAC_RE = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")


def is_mac(value: str) -> bool:
    """A lower-case colon-separated Ethernet MAC, the only file names the
    directory holds besides ``unknown_hosts_filter``."""
    return bool(_MAC_RE.match(value))


def line(mac: str, allow: bool) -> str:
    return f"{mac}\n" if allow else f"{mac},ignore\n"


class HostsDir:
    """The directory; every method raises OSError when it is unusable."""

    def __init__(self, path: str):
        self.path = path

    def current(self) -> dict[str, bool | None]:
        """{mac: allowed} of the MAC files present (unknown excluded; None
        for a file of foreign content, to be rewritten)."""
        found: dict[str, bool | None] = {}
        with os.scandir(self.path) as entries:
            for entry in entries:
                if not is_mac(entry.name):
                    continue
                size = entry.stat().st_size
                if size in (_ALLOW_SIZE, _DENY_SIZE):
                    found[entry.name] = size == _ALLOW_SIZE
                else:
                    found[entry.name] = None  # foreign content: rewrite
        return found

    def unknown_allowed(self) -> bool | None:
        try:
            size = os.stat(os.path.join(self.path, UNKNOWN)).st_size
        except FileNotFoundError:
            return None
        return {len(line(WILDCARD, True)): True,
                len(line(WILDCARD, False)): False}.get(size)

    def write(self, name: str, allow: bool) -> None:
        self.write_many([(name, allow)])

    def write_many(self, changes: Iterable[tuple[str, bool]]) -> int:
        """Write ``(name, allowed)`` files; plain system calls relative to
        one open directory: a cold start writes thousands of them."""
        count = 0
        folder = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for name, allow in changes:
                mac = WILDCARD if name == UNKNOWN else name
                tmp = f".{name}.tmp"
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                             0o644, dir_fd=folder)
                try:
                    os.write(fd, line(mac, allow).encode("ascii"))
                finally:
                    os.close(fd)
                os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
                count += 1
        finally:
            os.close(folder)
        return count

    def set_macs(self, macs: Iterable[str], allow: bool) -> int:
        return self.write_many((mac, allow) for mac in macs)

    def set_unknown(self, allow: bool) -> bool:
        """Write the wildcard file unless it says so already; True when
        it was written."""
        if self.unknown_allowed() is allow:
            return False
        self.write(UNKNOWN, allow)
        return True
