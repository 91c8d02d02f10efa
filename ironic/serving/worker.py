"""What a spawned API worker unpickles to build its application.

uvicorn's supervisor pings each worker and waits for the answer; a worker
answers from a thread it starts only once it has unpickled its
configuration, and a worker that dies before then leaves the supervisor
waiting for the whole health-check timeout, every other worker unwatched.
So this module imports nothing heavy: the service is imported in the
worker's ``__call__``, after the answering thread runs.
"""

from __future__ import annotations

from typing import Any


class WorkerApp:
    """What each spawned worker calls to build its application: the same
    command line, parsed again in the worker's fresh interpreter."""

    def __init__(self, prog: str, argv: list[str]):
        self.prog = prog
        self.argv = argv

    def __call__(self) -> Any:
        # Imported here, not above: see the module's docstring.
        from ironic import service
        from ironic.serving import server

        service.prepare_service(self.prog, self.argv)
        app = server.make_bridge()
        service.freeze_startup_objects()
        return app
