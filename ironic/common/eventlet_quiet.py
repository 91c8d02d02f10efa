"""eventlet's import-time banner, kept off the service's output.

The service runs no eventlet. It is installed only because oslo.service
(required by oslo.messaging) requires it, and futurist and oslo.service
import it merely to learn whether it is there; its import then prints a
seven-line deprecation warning on every command. Only that warning is
hidden, only around the imports that trigger it.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Iterator

#: The start of eventlet's warning text (a ``warnings`` message regex).
BANNER = r"\s*Eventlet is deprecated"


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Import what may import eventlet without its banner."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=BANNER)
        yield
