"""References to inspection data and the node in rule arguments.

An argument such as ``"{inventory[cpu][count]}"`` or ``"{node.properties}"``
is a Python format string rendered against ``node`` (the node object),
``inventory``, ``plugin_data`` and, inside a loop, ``item``. The result is
always a string, as the reference service does, so rules written for it
behave the same here. Attribute names starting with an underscore are
refused: a rule must not be able to reach into the service's internals.
"""

from __future__ import annotations

import logging
import re
import string
from typing import Any

LOG = logging.getLogger(__name__)


class UnsafeReference(Exception):
    """A reference that reaches for a private attribute."""


class _Formatter(string.Formatter):
    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        # The first part is the variable name; attribute parts follow dots.
        for part in field_name.replace("[", ".[").split(".")[1:]:
            if part.startswith("_"):
                raise UnsafeReference(field_name)
        return super().get_field(field_name, args, kwargs)

    def format_field(self, value: Any, format_spec: str) -> Any:
        # "{x:>999999999}" would build a gigabyte string.
        if re.search(r"\d{4,}", format_spec):
            raise ValueError(f"format width in {format_spec!r} is too "
                             f"large")
        return super().format_field(value, format_spec)


_FORMATTER = _Formatter()


class Missing(Exception):
    """A referenced key or attribute does not exist."""


def render_string(text: str, variables: dict[str, Any]) -> str:
    """Render one format string; ``Missing`` for an absent key."""
    try:
        return _FORMATTER.vformat(text, (), variables)
    except KeyError as e:
        raise Missing(str(e)) from e


def render(value: Any, variables: dict[str, Any], *,
           missing_as_none: bool = False, twice: bool = False) -> Any:
    """Render every string inside ``value`` (dicts keys too, lists).

    A string that cannot be rendered (a literal brace, a bad reference) is
    kept as written. A reference to a key that is absent becomes ``None``
    with ``missing_as_none`` (``is-empty`` asks exactly that question).
    ``twice`` renders the result again: a loop item may itself hold
    references, such as ``{"value": "{inventory[bmc_address]}"}``.
    """
    if isinstance(value, str):
        out = _render_one(value, variables, missing_as_none)
        if twice and isinstance(out, str) and out != value:
            out = _render_one(out, variables, missing_as_none)
        return out
    if isinstance(value, dict):
        return {render(k, variables, twice=twice):
                render(v, variables, missing_as_none=missing_as_none,
                       twice=twice)
                for k, v in value.items()}
    if isinstance(value, list):
        return [render(v, variables, missing_as_none=missing_as_none,
                       twice=twice) for v in value]
    return value


def _render_one(text: str, variables: dict[str, Any],
                missing_as_none: bool) -> str | None:
    try:
        return render_string(text, variables)
    except Missing:
        if missing_as_none:
            return None
        LOG.warning("Inspection rule argument %r names missing data; "
                    "used as written", text)
    except UnsafeReference:
        LOG.warning("Inspection rule argument %r refers to a private "
                    "attribute; used as written", text)
    except (AttributeError, ValueError, IndexError, TypeError) as e:
        LOG.warning("Inspection rule argument %r could not be rendered "
                    "(%s: %s); used as written", text, type(e).__name__, e)
    return text


def split_negation(op: str) -> tuple[str, bool]:
    """``"!eq"`` -> ``("eq", True)``; more than one ``!`` is an error."""
    op = op.strip()
    if op.count("!") > 1:
        raise ValueError(f"Operator {op!r}: negate it with a single '!'.")
    negated = op.startswith("!")
    return op.lstrip("!").strip(), negated


def split_path(path: str) -> list[str]:
    """``"/a/b"`` or ``"a.b"`` -> ``["a", "b"]``."""
    if "/" in path:
        return path.strip("/").split("/")
    return path.split(".")
