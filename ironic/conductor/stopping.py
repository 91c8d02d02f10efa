"""The conductor's stop signal.

Set when the service stops (cleared when it starts again), so that lock
retries, wait steps and the waits of drivers (through the task's
``conductor.sleep``) end early instead of outliving the service. A module
of its own: the step loop and the drivers' API wait on it without
importing the task manager that takes locks.
"""

from __future__ import annotations

import threading

SHUTDOWN = threading.Event()
