"""``ironic-conductor``: one conductor, serving RPC until SIGTERM."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading

from ironic import service
from ironic.common import exception
from ironic.conductor import base_manager, dependencies
from ironic.conf import CONF
from ironic.coordination import backend as coordination

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
    # The dependencies answer before anything starts (every wait
    # interrupted by SIGTERM), with the retries a running conductor has.
    gave_up = dependencies.wait_for(dependencies.for_conductor(), stop)
    if gave_up is not None:
        line = gave_up.line(CONF.host)
        LOG.error("%s", line)
        print(f"ironic-conductor: {line}", file=sys.stderr)
        return dependencies.EXIT_GAVE_UP
    if stop.is_set():
        return 0
    conductor = base_manager.ConductorService(on_give_up=stop.set)
    try:
        conductor.start(stop)
    except exception.DriverLoadError as e:
        # Refuse to serve rather than accept nodes nothing can drive.
        print(f"ironic-conductor: cannot start: {e}", file=sys.stderr)
        return 1
    except coordination.GiveUp as e:
        LOG.error("Conductor cannot start: %s", e)
        print(f"ironic-conductor: cannot start: {e}", file=sys.stderr)
        return dependencies.EXIT_GAVE_UP
    except coordination.Interrupted:
        LOG.info("Stopped while waiting for the coordination backend")
        return 0
    service.freeze_startup_objects()
    while not stop.wait(3600):
        pass
    if conductor.gave_up is not None:
        return _give_up(conductor, conductor.gave_up)
    drained = conductor.stop()
    LOG.info("Conductor stopped (%s)", "drained" if drained
             else "work handed over")
    # The coordination backend gone for good: the status of every
    # dependency lost, for the supervisor to restart the process (see
    # admin/high-availability).
    code = dependencies.EXIT_GAVE_UP if conductor.fatal else 0
    base_manager.exit_if_workers_stuck(conductor, code)
    base_manager.exit_if_threads_linger(code)
    return code


def _give_up(conductor: base_manager.ConductorService,
             gave_up: dependencies.GaveUp) -> int:
    """A dependency's retries ran out: one clear line, hand over what can
    be handed over, exit non-zero at once (threads stuck on the dead
    dependency must not hold the exit)."""
    # Logged by the service already; also where a supervisor shows it.
    print(f"ironic-conductor: {gave_up.line(conductor.host)}",
          file=sys.stderr, flush=True)
    if gave_up.dependency.name == "database":
        conductor.abandon()
    else:
        # The database answers: leave the ring, drain, unregister; the
        # peers take the nodes over at once.
        conductor.stop(bus=False)
    logging.shutdown()
    os._exit(dependencies.EXIT_GAVE_UP)


if __name__ == "__main__":
    sys.exit(main())
