"""Condition operators.

Each operator answers True or False for its rendered arguments; a leading
``!`` on the ``op`` negates the answer. With a ``loop`` the operator is
evaluated once per item and ``multiple`` combines the answers: ``any``
(the default), ``all``, ``first`` or ``last`` (only that item counts).
"""

from __future__ import annotations

import ipaddress
import operator
import re
from typing import Any, Callable, ClassVar

from ironic.inspection_rules import interpolation, plugin
from ironic.inspection_rules.plugin import ArgumentError

MULTIPLE = ("any", "all", "first", "last")


class Failure(Exception):
    """A condition that cannot be evaluated on this data."""


class Operator(plugin.Plugin):
    # Each operator takes its own named arguments (bound by ``bind``).
    def __call__(self, *args: Any, **kwargs: Any) -> bool:
        raise NotImplementedError


def _regex(value: Any, op: str) -> re.Pattern:
    if not isinstance(value, str):
        raise ArgumentError(f"{op}: 'regex' must be a string")
    try:
        return re.compile(value)
    except re.error as e:
        raise ArgumentError(f"{op}: invalid regular expression "
                            f"{value!r}: {e}") from e


class _Compare(Operator):
    """Every neighbouring pair of ``values`` satisfies ``compare``."""

    required = ("values",)
    optional = {"force_strings": False}
    formatted = ("values",)
    compare: ClassVar[Callable[..., Any]]

    def check_literals(self, args: dict, in_loop: bool) -> None:
        if not isinstance(args["values"], list):
            raise ArgumentError("'values' must be a list")

    def __call__(self, values: Any, force_strings: bool = False) -> bool:
        if not isinstance(values, list):
            raise Failure(f"expected a list for 'values', got "
                          f"{type(values).__name__}")
        if force_strings:
            values = [str(v) for v in values]
        values = self.prepare(values)
        try:
            return all(type(self).compare(a, b)
                       for a, b in zip(values, values[1:], strict=False))
        except TypeError as e:
            raise Failure(f"cannot compare {values!r}: {e}") from e


    def prepare(self, values: list) -> list:
        return values


_NUMBER = re.compile(r"\s*[-+]?\d+(\.\d*)?([eE][-+]?\d+)?\s*")


def _numbers(values: list) -> list | None:
    """``values`` as numbers when every one is a number or reads as one."""
    out = []
    for value in values:
        if isinstance(value, bool):
            return None
        if isinstance(value, (int, float)):
            out.append(value)
        elif isinstance(value, str) and _NUMBER.fullmatch(value):
            out.append(float(value))
        else:
            return None
    return out


class _Ordering(_Compare):
    """References render to strings: "131072" must still be more than
    "65535", so numbers (and strings that read as numbers) compare as
    numbers."""

    def prepare(self, values: list) -> list:
        numbers = _numbers(values)
        return values if numbers is None else numbers


class Eq(_Compare):
    compare = staticmethod(operator.eq)


class Lt(_Ordering):
    compare = staticmethod(operator.lt)


class Gt(_Ordering):
    compare = staticmethod(operator.gt)


class IsEmpty(Operator):
    required = ("value",)
    formatted = ("value",)

    def __call__(self, value: Any) -> bool:
        # Rendered references are strings: "None", "[]" and "{}" are what
        # an absent or empty value renders to.
        return value is None or str(value) in ("", "None", "[]", "{}")


class InNet(Operator):
    required = ("address", "subnet")
    formatted = ("address", "subnet")

    def __call__(self, address: Any, subnet: Any) -> bool:
        try:
            network = ipaddress.ip_network(str(subnet), strict=False)
        except ValueError as e:
            raise Failure(f"invalid subnet {subnet!r}: {e}") from e
        try:
            return ipaddress.ip_address(str(address)) in network
        except ValueError as e:
            raise Failure(f"invalid address {address!r}: {e}") from e


class Matches(Operator):
    """The whole value matches the regular expression."""

    required = ("value", "regex")
    formatted = ("value",)

    def check_literals(self, args: dict, in_loop: bool) -> None:
        if not in_loop:
            _regex(args["regex"], "matches")

    def __call__(self, value: Any, regex: Any) -> bool:
        return _compiled(regex, "matches").fullmatch(str(value)) is not None


class Contains(Operator):
    """Some part of the value matches the regular expression."""

    required = ("value", "regex")
    formatted = ("value",)

    def check_literals(self, args: dict, in_loop: bool) -> None:
        if not in_loop:
            _regex(args["regex"], "contains")

    def __call__(self, value: Any, regex: Any) -> bool:
        return _compiled(regex, "contains").search(str(value)) is not None


def _compiled(regex: Any, op: str) -> re.Pattern:
    try:
        return _regex(regex, op)
    except ArgumentError as e:
        raise Failure(str(e)) from e


class OneOf(Operator):
    required = ("value",)
    optional = {"values": []}
    formatted = ("value",)

    def check_literals(self, args: dict, in_loop: bool) -> None:
        if not isinstance(args["values"], (list, str)):
            raise ArgumentError("'values' must be a list")

    def __call__(self, value: Any, values: Any = ()) -> bool:
        return value in values


class IsNone(Operator):
    required = ("value",)
    formatted = ("value",)

    def __call__(self, value: Any) -> bool:
        return value is None


class IsTrue(Operator):
    required = ("value",)
    formatted = ("value",)

    def __call__(self, value: Any) -> bool:
        if isinstance(value, (bool, int, float)):
            return bool(value)
        if isinstance(value, str):
            return value.lower() in ("yes", "true")
        return False


class IsFalse(Operator):
    required = ("value",)
    formatted = ("value",)

    def __call__(self, value: Any) -> bool:
        if isinstance(value, (bool, int, float)):
            return not value
        if isinstance(value, str):
            return value.lower() in ("no", "false")
        return value is None


OPERATORS: dict[str, type[Operator]] = {
    "eq": Eq, "lt": Lt, "gt": Gt, "is-empty": IsEmpty, "in-net": InNet,
    "matches": Matches, "contains": Contains, "one-of": OneOf,
    "is-none": IsNone, "is-true": IsTrue, "is-false": IsFalse,
}


def get(op: str) -> tuple[Operator, bool]:
    """The operator named by ``op`` and whether ``op`` negates it."""
    name, negated = interpolation.split_negation(op)
    if name not in OPERATORS:
        raise ArgumentError(f"unsupported condition operator {op!r}")
    return OPERATORS[name](), negated


def check(condition: dict, scope: plugin.Scope) -> bool:
    """Whether ``condition`` holds; ``Failure`` when it cannot be told."""
    op, negated = get(condition["op"])
    is_empty = isinstance(op, IsEmpty)

    def once(*item: Any) -> bool:
        # (item holds the loop item, if any: at most one value)
        args = op.bind(condition, scope, *item,  # type: ignore[misc]
                       missing_as_none=is_empty)
        if item and "force_strings" in op.optional:
            # Rendered loop values are strings; compare like with like.
            args["force_strings"] = True
        try:
            return op(**args) != negated
        except ArgumentError as e:
            raise Failure(str(e)) from e

    items = plugin.loop_items(condition)
    if items is None:
        return once()
    chosen = list(items)
    multiple = condition.get("multiple") or "any"
    if multiple == "first":
        chosen = chosen[:1]
    elif multiple == "last":
        chosen = chosen[-1:]
    results = (once(item) for item in chosen)
    return all(results) if multiple == "all" else any(results)
