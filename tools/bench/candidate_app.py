"""The real API application for servers under comparison.

``application`` is the Bare Metal API (``ironic.api.app.setup_app``) built
from the configuration file named by ``IRONIC_BENCH_CONFIG``, its sqlite
schema brought to head. Servers that import an application by name
(``gunicorn``, ``granian``, ``hypercorn``, ``uvicorn``) load it from here;
``main()`` serves it in-process with the servers that run that way.
"""

from __future__ import annotations

import os
import sys


def _build():
    from ironic import service
    from ironic.api import app as api_app
    from ironic.db import migration
    service.prepare_service("ironic-bench",
                            ["--config-file", os.environ["IRONIC_BENCH_CONFIG"]])
    service.ensure_state_path()
    migration.upgrade("head")
    return api_app.setup_app()


application = _build()


def main(server: str, port: int) -> None:
    if server == "cheroot":
        from cheroot import wsgi
        wsgi.Server(("127.0.0.1", port), application, numthreads=8).start()
    elif server == "waitress":
        import waitress
        waitress.serve(application, host="127.0.0.1", port=port, threads=8)
    else:
        raise SystemExit(f"unknown in-process server {server}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
