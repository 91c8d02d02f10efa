"""What conditions and actions have in common: arguments and loops.

A plugin declares its arguments (``required`` names, ``optional`` names
with defaults) and which of them are ``formatted`` (rendered against the
inspection data). Rules give arguments by name (``{"values": [...]}``) or,
in the older style the reference still accepts, as a list in declaration
order. Inside a ``loop`` every argument is rendered, with ``item`` bound to
the current element.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Iterator

from ironic.inspection_rules import interpolation, masking
from ironic.task import Task

_NO_ITEM = object()


class ArgumentError(ValueError):
    """The arguments of a condition or action do not fit its plugin."""


@dataclasses.dataclass
class Scope:
    """What the conditions and actions of one rule work on."""

    task: Task
    #: The live plugin data: actions that change it write here.
    plugin_data: dict
    inventory_view: Any
    plugin_data_view: Any

    @classmethod
    def build(cls, task: Task, inventory: dict, plugin_data: dict,
              mask: bool) -> Scope:
        return cls(task, plugin_data, masking.view(inventory, mask),
                   masking.view(plugin_data, mask))

    def variables(self, item: Any = _NO_ITEM) -> dict[str, Any]:
        out = {"node": self.task.node, "inventory": self.inventory_view,
               "plugin_data": self.plugin_data_view}
        if item is not _NO_ITEM:
            out["item"] = item
        return out


class Plugin:
    """Base of operators and actions."""

    required: ClassVar[tuple[str, ...]] = ()
    optional: ClassVar[dict[str, Any]] = {}
    formatted: ClassVar[tuple[str, ...]] = ()
    #: Names accepted for compatibility and dropped.
    ignored: ClassVar[tuple[str, ...]] = ()

    def normalize(self, args: Any) -> dict[str, Any]:
        """Arguments by name, checked against the declaration."""
        if isinstance(args, list):
            args = self._from_list(args)
        elif not isinstance(args, dict):
            raise ArgumentError("args must be either a list or an object")
        args = {k: v for k, v in args.items() if k not in self.ignored}
        missing = [n for n in self.required if n not in args]
        unknown = sorted(set(args) - set(self.required) - set(self.optional))
        problems = []
        if missing:
            problems.append(f"missing required argument(s): "
                            f"{', '.join(missing)}")
        if unknown:
            problems.append(f"unexpected argument(s): {', '.join(unknown)}")
        if problems:
            raise ArgumentError("; ".join(problems))
        return {**self.optional, **args}

    def _from_list(self, args: list) -> dict[str, Any]:
        # Positional, as a Python call's *args: in declaration order, the
        # optional ones after the required; the reference drops values
        # past the last parameter, and so do we.
        names = list(self.required) + list(self.optional)
        if len(args) < len(self.required):
            raise ArgumentError(
                f"missing required argument(s): "
                f"{', '.join(self.required[len(args):])}")
        return dict(zip(names, args, strict=False))

    def validate(self, args: Any, *, in_loop: bool) -> None:
        """Raise ``ArgumentError`` for arguments that can never work.

        Arguments given as a list (the documented older form) are only
        matched to the parameters: their values are taken as given, and a
        value of the wrong kind fails when the rule runs, as with the
        reference service.
        """
        normalized = self.normalize(args)
        if not isinstance(args, list):
            self.check_literals(normalized, in_loop)

    def check_literals(self, args: dict[str, Any], in_loop: bool) -> None:
        """Check what is known before the data is: types, regexes, ...

        Inside a loop every string is rendered first, so only the kind of
        non-string values can be checked there.
        """

    def bind(self, step: dict, scope: Scope, item: Any = _NO_ITEM,
             missing_as_none: bool = False) -> dict[str, Any]:
        """The arguments of one evaluation, references rendered."""
        values = self.normalize(step.get("args", {}))
        in_loop = item is not _NO_ITEM
        variables = scope.variables(item)
        return {k: interpolation.render(v, variables,
                                        missing_as_none=missing_as_none,
                                        twice=in_loop)
                if in_loop or k in self.formatted else v
                for k, v in values.items()}


def loop_items(step: dict) -> Iterator[Any] | None:
    """The items a step loops over, or None when it does not loop.

    An object is a loop of one item (the object itself); an empty loop is
    no loop at all, as in the reference service.
    """
    loop = step.get("loop")
    if not loop:
        return None
    if isinstance(loop, dict):
        return iter([loop])
    return iter(loop)
