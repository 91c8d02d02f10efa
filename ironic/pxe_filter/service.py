"""The filter: full synchronisations from the database, quick updates
from the conductors, and closing dnsmasq when it stops.

``sync`` runs at start-up and every ``[pxe_filter]sync_period`` seconds
(and soon after every quick update): one query, then only the files that
differ are rewritten. ``update`` applies an ``update_pxe_filters(allow,
deny)`` broadcast by a conductor when inspection starts or ends (the RPC
fanout topic ``ironic.pxe_filter``), so the filter follows without
waiting for the next period. ``block_all`` ignores every machine; it runs
when the process is told to stop, so a dnsmasq left without its filter
answers nobody.

Problems with the data (a malformed MAC address in the database) or the
directory (missing, not writable) are logged in one line per attempt and
retried at the next one; the process keeps running.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable, Iterable

from ironic.common import rpc
from ironic.conf import CONF
from ironic.pxe_filter import hostsdir, policy, state

LOG = logging.getLogger(__name__)

TOPIC = rpc.PXE_FILTER_TOPIC
#: Delay of the full synchronisation that follows quick updates.
SETTLE_SECONDS = 1.0


class PXEFilter:
    """Keeps one host directory in step; safe to call from threads."""

    def __init__(self, directory: hostsdir.HostsDir,
                 allow_policy: policy.AllowPolicy | None = None,
                 rows: Callable[[], list[tuple]] = state.rows_from_database):
        self.dir = directory
        self.policy = allow_policy or policy.AlwaysAllow()
        self._rows = rows
        self._lock = threading.Lock()
        # When quick updates last wrote each file: a synchronisation that
        # read the database before then must not undo them.
        self._touched: dict[str, float] = {}

    # -- full synchronisation ----------------------------------------------

    def sync(self) -> bool:
        """Bring the directory in line with the database; False when it
        could not (logged)."""
        started = time.monotonic()
        try:
            rows = self._rows()
        except Exception as e:  # noqa: BLE001 - retried next period
            LOG.error("PXE filter: cannot read the database: %s", e)
            return False
        desired = state.decide(
            rows, CONF.pxe_filter.supported_inspect_interfaces,
            CONF.auto_discovery.enabled)
        if desired.malformed:
            LOG.warning("PXE filter: ignoring %d port address(es) that are "
                        "not Ethernet MAC addresses: %s",
                        len(desired.malformed),
                        ", ".join(sorted(desired.malformed)[:10]))
        written = self._guarded(self._apply, desired, started)
        if written is None:
            return False
        LOG.info("PXE filter: synchronised %d allowed and %d ignored MAC "
                 "addresses (%d files written, unknown machines %s) in "
                 "%.3f s", len(desired.allow), len(desired.deny), written,
                 "allowed" if desired.allow_unknown else "ignored",
                 time.monotonic() - started)
        return True

    def _apply(self, desired: state.Desired, read_at: float) -> int:
        may = self.policy.may_allow()
        allow = desired.allow if may else set()
        deny = desired.deny | (desired.allow if not may else set())
        unknown = desired.allow_unknown and may
        # Listing 10,000 files takes a while: quick updates go on
        # meanwhile (what they write is newer than this sync's data).
        current = self.dir.current()
        # MACs dnsmasq knows but the database does not (deleted ports)
        # fall under the rule for unknown machines.
        forgotten = set(current) - allow - deny
        changes = [(m, True) for m in allow if current.get(m) is not True]
        changes += [(m, False) for m in deny if current.get(m) is not False]
        changes += [(m, unknown) for m in forgotten
                    if current[m] is not unknown]
        with self._lock:
            newer = {m for m, t in self._touched.items() if t >= read_at}
            self._touched = {m: self._touched[m] for m in newer}
            changes = [c for c in changes if c[0] not in newer]
            written = self.dir.write_many(changes) if changes else 0
            if hostsdir.UNKNOWN not in newer:
                written += int(self.dir.set_unknown(unknown))
        return written

    # -- quick updates -------------------------------------------------------

    def update(self, allow: Iterable[str] = (), deny: Iterable[str] = ()
               ) -> bool:
        """Allow and ignore the given MACs now; others stay as they are.
        Allowing a MAC also opens dnsmasq to unknown machines, as a full
        synchronisation would while a node is in inspection."""
        allow = _macs(allow, "allow")
        deny = _macs(deny, "deny")
        if not self.policy.may_allow():
            deny, allow = deny | allow, set()
        with self._lock:
            def apply() -> int:
                written = self.dir.set_macs(allow - deny, True)
                written += self.dir.set_macs(deny, False)
                if allow:
                    written += int(self.dir.set_unknown(True))
                now = time.monotonic()
                for name in allow | deny | ({hostsdir.UNKNOWN} if allow
                                            else set()):
                    self._touched[name] = now
                return written
            written = self._guarded(apply)
        if written is None:
            return False
        LOG.info("PXE filter: allowed %s, ignored %s",
                 ", ".join(sorted(allow)) or "none",
                 ", ".join(sorted(deny)) or "none")
        return True

    # -- stopping ------------------------------------------------------------

    def block_all(self) -> bool:
        """Ignore every MAC in the directory and every unknown machine."""
        with self._lock:
            def apply() -> int:
                current = self.dir.current()
                written = self.dir.set_macs(
                    [m for m, a in current.items() if a is not False],
                    False)
                return written + int(self.dir.set_unknown(False))
            written = self._guarded(apply)
        if written is None:
            return False
        LOG.info("PXE filter: dnsmasq now ignores every machine (%d files "
                 "written)", written)
        return True

    def _guarded(self, apply: Callable[..., int], *args: Any) -> int | None:
        try:
            return apply(*args)
        except OSError as e:
            LOG.error("PXE filter: cannot update the dnsmasq host directory "
                      "%s: %s", self.dir.path, e)
            return None


def _macs(values: Iterable[str] | None, what: str) -> set[str]:
    good, bad = set(), []
    for value in values or ():
        mac = str(value).strip().lower().replace("-", ":")
        (good.add(mac) if hostsdir.is_mac(mac) else bad.append(value))
    if bad:
        LOG.warning("PXE filter: ignoring malformed MAC address(es) to "
                    "%s: %s", what, ", ".join(map(str, bad)))
    return good


class Endpoint:
    """The RPC endpoint on topic ``ironic.pxe_filter`` (fanout casts)."""

    RPC_API_VERSION = "1.0"

    def __init__(self, pxe_filter: PXEFilter, woken: threading.Event):
        self._filter = pxe_filter
        self._woken = woken

    @property
    def target(self) -> Any:
        import oslo_messaging
        return oslo_messaging.Target(version=self.RPC_API_VERSION)

    def update_pxe_filters(self, context: Any, allow: list | None = None,
                           deny: list | None = None) -> None:
        self._filter.update(allow or (), deny or ())
        # A quick update is partial (it cannot tell whether other nodes
        # are still in inspection): a full synchronisation follows.
        self._woken.set()


class Runner:
    """The synchronisation loop (a thread) and its wake-up event."""

    def __init__(self, pxe_filter: PXEFilter,
                 woken: threading.Event | None = None):
        """``woken``: set by whoever needs a full synchronisation soon
        (quick updates, a change of leadership)."""
        self.filter = pxe_filter
        self.woken = woken or threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop,
                                        name="pxe-filter-sync", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.woken.clear()
            self.filter.sync()
            if self.woken.wait(CONF.pxe_filter.sync_period):
                # Woken by quick updates: let a burst of them (a rack
                # starting inspection) be applied before a full sync
                # competes with them.
                self._stop.wait(SETTLE_SECONDS)

    def stop(self) -> None:
        self._stop.set()
        self.woken.set()
        if self._thread is not None:
            self._thread.join()
