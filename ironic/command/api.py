"""``ironic-api``: the API alone, talking to conductors over RPC."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    # Imported here, not above: a spawned API worker imports this module
    # again (multiprocessing's ``__mp_main__``) before it can answer its
    # supervisor's health checks (see ``ironic.serving.worker``).
    from ironic import service
    from ironic.conf import CONF
    from ironic.serving import server

    argv = sys.argv[1:] if argv is None else argv
    service.prepare_service("ironic-api", argv)
    try:
        if (CONF.api.api_workers or 1) > 1:
            server.serve_workers("ironic-api", argv, CONF.api.api_workers)
        else:
            server.serve()
    except RuntimeError as e:
        print(f"ironic-api: cannot start: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
