"""``ironic``: the all-in-one service, API and conductor in one process."""

from __future__ import annotations

import sys

from ironic.common import exception, service, wsgi_service
from ironic.conductor import base_manager
from ironic.conf import CONF
from ironic.db import migration


def main(argv: list[str] | None = None) -> int:
    # One process needs no message broker: calls go straight to the
    # conductor living here, unless the configuration says otherwise.
    CONF.set_default("rpc_transport", "none")
    # The embedded service listens on loopback unless told otherwise
    # (ironic-api keeps the option's own default, all addresses).
    CONF.set_default("host_ip", "127.0.0.1", group="api")
    service.prepare_service("ironic", sys.argv[1:] if argv is None
                            else argv)
    service.ensure_state_path()
    # The embedded default must work on first start: bring the schema to
    # head (a no-op when it already is).
    migration.upgrade("head")
    conductor = base_manager.ConductorService()
    try:
        conductor.start()
    except exception.DriverLoadError as e:
        # Refuse to serve rather than accept nodes nothing can drive.
        print(f"ironic: cannot start: {e}", file=sys.stderr)
        return 1
    wsgi_service.warn_unsupported_workers()
    try:
        wsgi_service.serve_forever()
    finally:
        conductor.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
