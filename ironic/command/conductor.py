"""``ironic-conductor``: one conductor, serving RPC until SIGTERM."""

from __future__ import annotations

import logging
import signal
import sys
import threading

from ironic.common import exception, service
from ironic.conductor import base_manager

LOG = logging.getLogger(__name__)


def main(argv: list[str] | None = None) -> int:
    service.prepare_service("ironic-conductor", sys.argv[1:] if argv is None
                            else argv)
    stop = threading.Event()

    def _stop(signum, _frame):
        LOG.info("Signal %d received, stopping the conductor", signum)
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    conductor = base_manager.ConductorService()
    try:
        conductor.start()
    except exception.DriverLoadError as e:
        # Refuse to serve rather than accept nodes nothing can drive.
        print(f"ironic-conductor: cannot start: {e}", file=sys.stderr)
        return 1
    service.freeze_startup_objects()
    while not stop.wait(3600):
        pass
    drained = conductor.stop()
    LOG.info("Conductor stopped (%s)", "drained" if drained
             else "work handed over")
    return 0


if __name__ == "__main__":
    sys.exit(main())
