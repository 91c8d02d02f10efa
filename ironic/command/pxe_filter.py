"""``ironic-pxe-filter``: keep a dnsmasq host directory in step with the
nodes in inspection, until SIGTERM, which leaves dnsmasq ignoring every
machine.

It reads the database directly (``[database]connection``). With
``rpc_transport = oslo`` it also listens on the fanout topic
``ironic.pxe_filter`` for the conductors' ``update_pxe_filters`` casts;
with ``rpc_transport = none`` the periodic synchronisation alone keeps it
up to date (within ``[pxe_filter]sync_period`` seconds).

With ``[coordination]backend_url`` the filters of a deployment (each
beside its own dnsmasq) form the party ``ironic.pxe_filter``: only its
elected leader lets machines reach its dnsmasq, the others ignore every
machine; when the leader goes, the next one opens its dnsmasq within
``[coordination]member_timeout`` and a second or two.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from typing import Any

from ironic import service
from ironic.common import rpc
from ironic.conf import CONF
from ironic.coordination import backend as coordination
from ironic.coordination import party as party_mod
from ironic.pxe_filter import hostsdir, policy
from ironic.pxe_filter import service as pxe_service

LOG = logging.getLogger(__name__)

PARTY = "ironic.pxe_filter"


def _check_directory() -> str | None:
    """Why the configured directory cannot be used, or None."""
    path = CONF.pxe_filter.dhcp_hostsdir
    if not path:
        return "[pxe_filter]dhcp_hostsdir is not set"
    if not os.path.isdir(path):
        return f"[pxe_filter]dhcp_hostsdir {path} is not a directory"
    return None


def _rpc_server(pxe_filter: pxe_service.PXEFilter,
                runner: pxe_service.Runner) -> Any:
    if CONF.rpc_transport == "none":
        LOG.info("rpc_transport is 'none': updates come from the periodic "
                 "synchronisation only (every %d s)",
                 CONF.pxe_filter.sync_period)
        return None
    endpoint = pxe_service.Endpoint(pxe_filter, runner.woken)
    server = rpc.rpc_server(CONF.host, endpoint, topic=pxe_service.TOPIC)
    server.start()
    LOG.info("Listening for update_pxe_filters casts on the topic %s",
             pxe_service.TOPIC)
    return server


def main(argv: list[str] | None = None) -> int:
    service.prepare_service("ironic-pxe-filter",
                            sys.argv[1:] if argv is None else argv)
    problem = _check_directory()
    if problem:
        print(f"ironic-pxe-filter: cannot start: {problem}", file=sys.stderr)
        return 1
    stop = threading.Event()

    def _stop(signum, _frame):
        LOG.info("Signal %d received, stopping the PXE filter", signum)
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    fatal: list[str] = []
    woken = threading.Event()

    def lost(line: str) -> None:
        LOG.error("PXE filter stops: %s; exiting with status %d so that "
                  "the supervisor restarts it", line, service.EXIT_GAVE_UP)
        fatal.append(line)
        stop.set()

    # One member per process: two filters may share a host name.
    party = party_mod.Party(
        PARTY, f"pxe-filter:{CONF.host}:{os.getpid()}",
        on_change=lambda leader: woken.set(), on_fatal=lost)
    try:
        party.start(stop)
    except coordination.GiveUp as e:
        LOG.error("PXE filter cannot start: %s", e)
        print(f"ironic-pxe-filter: cannot start: {e}", file=sys.stderr)
        return service.EXIT_GAVE_UP
    except coordination.Interrupted:
        return 0
    pxe_filter = pxe_service.PXEFilter(
        hostsdir.HostsDir(CONF.pxe_filter.dhcp_hostsdir),
        policy.LeaderOnly(party))
    runner = pxe_service.Runner(pxe_filter, woken)
    runner.start()
    server = _rpc_server(pxe_filter, runner)
    while not stop.wait(3600):
        pass
    # Out of the party first: another filter opens its dnsmasq at once.
    party.leave()
    if server is not None:
        server.stop()
        server.wait()
    runner.stop()
    pxe_filter.block_all()
    LOG.info("PXE filter stopped")
    return service.EXIT_GAVE_UP if fatal else 0


if __name__ == "__main__":
    sys.exit(main())
