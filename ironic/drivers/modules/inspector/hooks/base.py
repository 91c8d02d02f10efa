"""What an inspection hook is, and how the configured ones are run.

A hook is an entry point in ``ironic.inspection.hooks`` naming a class
with ``__call__(task, inventory, plugin_data)`` and optionally
``preprocess`` (run for every hook before any ``__call__``, to validate
and prepare data without touching the node). Hooks run with the node
locked, may add to ``plugin_data`` but never change ``inventory``, and
save what they change on the node themselves.

``[inspector]hooks`` (usually ``$default_hooks`` plus extras) lists which
hooks run and in what order; a hook's ``dependencies`` must come before it.
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar

import stevedore

from ironic.common import exception
from ironic.conf import CONF
from ironic.task import Task

NAMESPACE = "ironic.inspection.hooks"


class InspectionHook(abc.ABC):
    """Base of every inspection hook."""

    #: Hooks (entry point names) that must run before this one.
    dependencies: ClassVar[list[str]] = []

    def preprocess(self, task: Task, inventory: dict,
                   plugin_data: dict) -> None:
        """Validate or prepare data before any hook changes the node."""
        return None

    @abc.abstractmethod
    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        """Process the data: update the node and related resources."""


def configured_names(value: str | None = None) -> list[str]:
    """Hook names from ``[inspector]hooks`` (or ``value``), in order."""
    raw = CONF.inspector.hooks if value is None else value
    names = [n.strip() for n in raw.split(",")]
    return [n for n in names if n]


def load(names: list[str] | None = None) -> list[tuple[str, InspectionHook]]:
    """Load the hooks in order; a clear error for a wrong configuration.

    Raises ``DriverLoadError`` for an unknown hook, a hook listed twice or
    one whose dependencies do not run before it.
    """
    names = configured_names() if names is None else names
    seen: set[str] = set()
    loaded: list[tuple[str, InspectionHook]] = []
    for name in names:
        if name in seen:
            raise exception.DriverLoadError(
                driver=name, reason="inspection hook listed twice in "
                                    "[inspector]hooks")
        try:
            mgr = stevedore.DriverManager(NAMESPACE, name,
                                          invoke_on_load=True)
        except (stevedore.exception.NoMatches, ImportError) as e:
            raise exception.DriverLoadError(
                driver=name, reason=f"no such inspection hook in the "
                                    f"'{NAMESPACE}' entry points") from e
        hook = mgr.driver
        missing = [d for d in hook.dependencies if d not in seen]
        if missing:
            raise exception.DriverLoadError(
                driver=name, reason=f"inspection hook needs "
                                    f"{', '.join(missing)} to run before it "
                                    f"in [inspector]hooks")
        seen.add(name)
        loaded.append((name, hook))
    return loaded


def run(task: Task, inventory: dict, plugin_data: dict,
        hooks: list[tuple[str, InspectionHook]]) -> None:
    """Every hook's preprocess, then every hook, in the configured order."""
    for _name, hook in hooks:
        hook.preprocess(task, inventory, plugin_data)
    for _name, hook in hooks:
        hook(task, inventory, plugin_data)


def parse_capabilities(value: Any) -> dict[str, str]:
    """A node's ``capabilities`` property ("k1:v1,k2:v2" or a dict)."""
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    caps: dict[str, str] = {}
    for item in (value or "").split(","):
        key, sep, val = item.partition(":")
        if sep and key.strip():
            caps[key.strip()] = val.strip()
    return caps


def set_properties(task: Task, **values: Any) -> None:
    """Update node properties (None removes a key)."""
    props = dict(task.node.properties or {})
    for key, value in values.items():
        if value is None:
            props.pop(key, None)
        else:
            props[key] = value
    task.node.properties = props


def update_capabilities(task: Task, new: dict[str, str]) -> None:
    caps = parse_capabilities((task.node.properties or {}).get(
        "capabilities"))
    caps.update(new)
    set_properties(task, capabilities=",".join(
        f"{k}:{v}" for k, v in caps.items()))
