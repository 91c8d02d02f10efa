"""``ironic``: the all-in-one service, API and conductor in one process."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading

from oslo_db import exception as db_exc
from sqlalchemy import exc as sa_exc

from ironic import service
from ironic.common import exception, outages, scrub
from ironic.conductor import base_manager
from ironic.conf import CONF
from ironic.coordination import backend as coordination
from ironic.objects import schema
from ironic.serving import server

LOG = logging.getLogger(__name__)


def main(argv: list[str] | None = None) -> int:
    # One process needs no message broker: calls go straight to the
    # conductor living here, unless the configuration says otherwise.
    CONF.set_default("rpc_transport", "none")
    # The embedded service listens on loopback unless told otherwise
    # (ironic-api keeps the option's own default, all addresses).
    CONF.set_default("host_ip", "127.0.0.1", group="api")
    service.prepare_service("ironic", sys.argv[1:] if argv is None
                            else argv)
    try:
        service.ensure_state_path()
        # The embedded default must work on first start: bring the schema
        # to head (a no-op when it already is).
        _upgrade_schema()
    except RuntimeError as e:
        print(f"ironic: cannot start: {e}", file=sys.stderr)
        return 1
    conductor = base_manager.ConductorService()
    lost = threading.Event()
    try:
        conductor.start(lost)
    except exception.DriverLoadError as e:
        # Refuse to serve rather than accept nodes nothing can drive.
        print(f"ironic: cannot start: {e}", file=sys.stderr)
        return 1
    except coordination.GiveUp as e:
        print(f"ironic: cannot start: {e}", file=sys.stderr)
        return service.EXIT_GAVE_UP
    _stop_when_coordination_is_lost(lost)
    _warn_unsupported_workers()
    try:
        server.serve()
    except RuntimeError as e:
        print(f"ironic: cannot start: {e}", file=sys.stderr)
        return 1
    finally:
        conductor.stop()
    code = service.EXIT_GAVE_UP if conductor.fatal else 0
    base_manager.exit_if_workers_stuck(conductor, code)
    base_manager.exit_if_threads_linger(code)
    return code


def _stop_when_coordination_is_lost(lost: threading.Event) -> None:
    """The server stops on SIGTERM; a coordination backend gone for good
    (set by the conductor, which logged why) stops it the same way."""
    def watch():
        lost.wait()
        os.kill(os.getpid(), signal.SIGTERM)
    threading.Thread(target=watch, name="coordination-watch",
                     daemon=True).start()


def _upgrade_schema() -> None:
    """``schema.upgrade("head")``; RuntimeError in one line naming the
    database when it cannot be opened or written."""
    try:
        schema.upgrade("head")
    except Exception as e:
        if not (isinstance(e, (db_exc.DBError, sa_exc.OperationalError))
                or outages.dependency_outage(e)):
            raise
        reason = str(getattr(e, "orig", None) or e).splitlines()[0]
        raise RuntimeError(
            f"the database {scrub.text(CONF.database.connection)} cannot "
            f"be opened or written: {reason}") from None


def _warn_unsupported_workers() -> None:
    """The all-in-one's conductor lives in this process, so the API is
    served from it alone; say so when more API processes are asked for."""
    if (CONF.api.api_workers or 1) > 1:
        LOG.warning("[api]api_workers = %d is not supported by the "
                    "all-in-one ironic: its conductor runs in this "
                    "process, so the API is served from this process "
                    "alone; run ironic-api beside conductors for more API "
                    "processes", CONF.api.api_workers)


if __name__ == "__main__":
    sys.exit(main())
