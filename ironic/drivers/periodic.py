"""Periodic tasks declared on interfaces.

An interface marks a method with ``@periodic(spacing=...)``; the conductor
collects the marked methods of every loaded interface (``tasks_of``) and runs
them with its periodic runner, calling ``method(manager, context)``. The
decorator only records intent: nothing runs until a conductor schedules it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

_MARK = "_ironic_periodic"


@dataclasses.dataclass(frozen=True)
class PeriodicInfo:
    #: Seconds between runs, or a callable returning them (so that a
    #: configuration option is read when the conductor starts, not when the
    #: module is imported).
    spacing: float | Callable[[], float]
    enabled: bool | Callable[[], bool] = True
    run_immediately: bool = False

    def seconds(self) -> float:
        value = self.spacing() if callable(self.spacing) else self.spacing
        return float(value)

    def is_enabled(self) -> bool:
        value = self.enabled() if callable(self.enabled) else self.enabled
        return bool(value) and self.seconds() > 0


def periodic(spacing: float | Callable[[], float],
             enabled: bool | Callable[[], bool] = True,
             run_immediately: bool = False) -> Callable[[Callable], Callable]:
    """Declare a method as a periodic task run every ``spacing`` seconds."""
    if not callable(spacing) and (not isinstance(spacing, (int, float))
                                  or spacing <= 0):
        raise ValueError(f"periodic spacing must be positive, got "
                         f"{spacing!r}")

    def decorate(func: Callable) -> Callable:
        setattr(func, _MARK, PeriodicInfo(spacing, enabled, run_immediately))
        return func
    return decorate


def info_of(func: Any) -> PeriodicInfo | None:
    return getattr(func, _MARK, None)


def tasks_of(obj: Any) -> list[tuple[Callable, PeriodicInfo]]:
    """Bound periodic methods of ``obj`` that are enabled, by name."""
    found = []
    for name in sorted(dir(type(obj))):
        if name.startswith("__"):
            continue
        info = info_of(getattr(type(obj), name, None))
        if info is not None and info.is_enabled():
            found.append((getattr(obj, name), info))
    return found
