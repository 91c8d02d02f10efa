"""Declaring deploy, clean and service steps on interface methods.

A step is an ordinary method of an interface marked with one of the
decorators below. The marks are read by ``BaseInterface`` (see
``ironic.drivers.interface``) when the class is created, so listing the
steps of an interface never inspects the instance at run time.

The shape of a step as interfaces report it (and the conductor stores it in
``driver_internal_info``) is the public one::

    {"interface": "bios", "step": "factory_reset", "priority": 0,
     "argsinfo": None, "abortable": False, "requires_ramdisk": False}
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

from ironic.common import exception

STEP_KINDS = ("deploy", "clean", "service", "verify")

# Attribute set on a decorated function: {kind: StepInfo}.
_MARK = "_ironic_steps"


@dataclasses.dataclass(frozen=True)
class StepInfo:
    """What a decorator declared about one step of one kind."""

    name: str
    priority: int
    argsinfo: dict | None = None
    abortable: bool = False
    requires_ramdisk: bool = True

    def as_dict(self, interface: str, kind: str) -> dict[str, Any]:
        doc: dict[str, Any] = {"interface": interface, "step": self.name,
                               "priority": self.priority}
        if kind != "verify":
            doc["argsinfo"] = self.argsinfo
            doc["requires_ramdisk"] = self.requires_ramdisk
        if kind in ("clean", "service"):
            doc["abortable"] = self.abortable
        return doc


def _check_argsinfo(argsinfo: dict | None) -> None:
    """Refuse malformed argsinfo when the module is imported, not later."""
    if argsinfo is None:
        return
    if not isinstance(argsinfo, dict):
        raise ValueError("argsinfo must be a dictionary")
    for arg, info in argsinfo.items():
        if not isinstance(info, dict):
            raise ValueError(f"argsinfo of {arg!r} must be a dictionary")
        if not isinstance(info.get("description"), str):
            raise ValueError(f"argsinfo of {arg!r} needs a description")
        if not isinstance(info.get("required", False), bool):
            raise ValueError(f"argsinfo 'required' of {arg!r} must be a "
                             f"boolean")


def _mark(kind: str, priority: int, argsinfo: dict | None = None,
          abortable: bool = False, requires_ramdisk: bool = True
          ) -> Callable[[Callable], Callable]:
    if not isinstance(priority, int) or isinstance(priority, bool) \
            or priority < 0:
        raise ValueError(f"{kind} step priority must be a non-negative "
                         f"integer, got {priority!r}")
    if not isinstance(abortable, bool):
        raise ValueError("abortable must be a boolean")
    _check_argsinfo(argsinfo)

    def decorate(func: Callable) -> Callable:
        marks = dict(getattr(func, _MARK, {}))
        marks[kind] = StepInfo(func.__name__, priority, argsinfo, abortable,
                               requires_ramdisk)
        setattr(func, _MARK, marks)
        return func
    return decorate


def deploy_step(priority: int, argsinfo: dict | None = None,
                requires_ramdisk: bool = True) -> Callable:
    """Mark a method as a deploy step (priority 0: only on request)."""
    return _mark("deploy", priority, argsinfo, False, requires_ramdisk)


def clean_step(priority: int, abortable: bool = False,
               argsinfo: dict | None = None,
               requires_ramdisk: bool = True) -> Callable:
    """Mark a method as a clean step (priority 0: manual cleaning only)."""
    return _mark("clean", priority, argsinfo, abortable, requires_ramdisk)


def service_step(priority: int = 0, abortable: bool = False,
                 argsinfo: dict | None = None,
                 requires_ramdisk: bool = True) -> Callable:
    """Mark a method as a service step (run on request on active nodes)."""
    return _mark("service", priority, argsinfo, abortable, requires_ramdisk)


def verify_step(priority: int) -> Callable:
    """Mark a method as a verify step (run on manage, when priority > 0)."""
    return _mark("verify", priority, None, False, False)


def collect(cls: type) -> dict[str, dict[str, StepInfo]]:
    """Steps declared on ``cls`` and its bases: {kind: {method: info}}.

    A subclass that overrides a step method without the decorator turns the
    step off: only the method that will actually run counts.
    """
    found: dict[str, dict[str, StepInfo]] = {k: {} for k in STEP_KINDS}
    for name in dir(cls):
        if name.startswith("__"):
            continue
        attr = getattr(cls, name, None)
        for kind, info in getattr(attr, _MARK, {}).items():
            found[kind][name] = info
    return found


def sort_key(step: dict) -> tuple:
    """Higher priority first; ties broken by interface then name, stably."""
    return (-step["priority"], step["interface"], step["step"])


def validate_user_args(step: dict, declared: dict | None) -> None:
    """Check a user-given step's ``args`` against the step's argsinfo."""
    args = step.get("args") or {}
    declared = declared or {}
    unknown = set(args) - set(declared)
    missing = [a for a, info in declared.items()
               if info.get("required") and a not in args]
    problems = []
    if unknown:
        problems.append(f"unexpected arguments: {', '.join(sorted(unknown))}")
    if missing:
        problems.append(f"missing required arguments: "
                        f"{', '.join(sorted(missing))}")
    if problems:
        raise exception.InvalidParameterValue(
            err=f"Step {step.get('interface')}.{step.get('step')}: "
                f"{'; '.join(problems)}")
