"""``ironic-api``: the API alone, talking to conductors over RPC."""

from __future__ import annotations

import sys

from ironic.common import service, wsgi_service
from ironic.conf import CONF


def main(argv: list[str] | None = None) -> int:
    service.prepare_service("ironic-api", sys.argv[1:] if argv is None
                            else argv)
    wsgi_service.serve_forever(workers=CONF.api.api_workers or 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
