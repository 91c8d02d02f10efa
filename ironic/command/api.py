"""``ironic-api``: the API alone, talking to conductors over RPC."""

from __future__ import annotations

import sys

from ironic import service
from ironic.conf import CONF
from ironic.serving import server


def main(argv: list[str] | None = None) -> int:
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
