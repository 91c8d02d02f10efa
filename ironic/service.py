"""Start-up shared by every console script."""

from __future__ import annotations

import gc
import os

from oslo_log import log

from ironic import metrics, version
from ironic.common import rpc, scrub
from ironic.conf import CONF

#: Exit status of a process that gave up on a dependency it needs (the
#: database, the message bus, the coordination backend) after its retries
#: ran out: EX_TEMPFAIL, a temporary failure; its supervisor restarts it.
#: One status for every dependency, so that one supervisor rule covers
#: them all.
EXIT_GAVE_UP = 75


def prepare_service(prog: str, argv: list[str] | None = None,
                    default_config_files: list[str] | None = None) -> None:
    """Parse configuration, set up logging and the embedded DB default."""
    CONF(argv or [], project="ironic", prog=prog,
         version=version.version_string,
         default_config_files=default_config_files)
    log.setup(CONF, "ironic")
    scrub.install_log_filter()
    set_database_default()
    _setup_metrics(prog)
    # ironic-dbsync sends no RPC: it need not load oslo.messaging.
    if CONF.rpc_transport != "none" and prog != "ironic-dbsync":
        rpc.register_opts()


def _setup_metrics(prog: str) -> None:
    # The services report metrics; a one-off command does not.
    if prog == "ironic-dbsync":
        return
    metrics.setup(CONF, forked_workers=prog == "ironic-api"
                  and (CONF.api.api_workers or 1) > 1)
    metrics.start_listener(CONF)


def set_database_default() -> None:
    """An empty [database]connection means the sqlite file in state_path."""
    if not CONF.database.connection:
        path = os.path.join(CONF.state_path, "ironic.sqlite")
        CONF.set_override("connection", f"sqlite:///{path}",
                          group="database")


def ensure_state_path() -> None:
    """Create state_path when the embedded sqlite database lives there;
    RuntimeError naming the path when it (or the database) cannot be
    written, rather than a traceback from deep in a migration."""
    if not CONF.database.connection.startswith("sqlite:///"):
        return
    database = CONF.database.connection[len("sqlite:///"):]
    directory = os.path.dirname(database) or "."
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise RuntimeError(f"cannot create the state directory "
                           f"{directory}: {e.strerror}") from None
    for path in (directory, database):
        if os.path.exists(path) and not os.access(path, os.W_OK):
            raise RuntimeError(f"{path} is not writable: the database "
                               f"needs to write there")


def freeze_startup_objects() -> None:
    """Keep what start-up built out of the garbage collector's walks.

    Start-up leaves a couple of hundred thousand long-lived objects
    (modules, mappers, configuration, routes, drivers). Without this, every
    full collection walks them again, and a request that allocates many
    objects (a page of 1,000 nodes) triggers collections: measured, about
    a quarter of that page's time. Call once, just before serving.
    """
    gc.collect()
    gc.freeze()
