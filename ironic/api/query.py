"""How the API refuses a query parameter, in Ironic 39's words.

Ironic 39 checks each query parameter by its kind (a string, an integer,
a UUID, a boolean...) and words every refusal after the kind; a parameter
given twice reaches the check as a list and is refused in the same words,
the list shown as Python shows it. Every handler and list parser refuses
through these, so the messages stay alike across resources.
"""

from __future__ import annotations

from typing import Any, Iterable

from oslo_utils import strutils

from ironic.common import exception

#: The values a boolean parameter takes, as a refusal lists them.
_BOOLEANS = ", ".join(
    f"'{v}'" for v in sorted(strutils.TRUE_STRINGS + strutils.FALSE_STRINGS))


class Repeated(str):
    """A parameter given more than once: its text is the values as Python
    shows a list, the text every refusal quotes. Being a string, it never
    breaks a handler that reads it as one; the checks refuse it."""

    values: tuple[str, ...]

    def __new__(cls, values: list[str]) -> "Repeated":
        self = super().__new__(cls, repr(list(values)))
        self.values = tuple(values)
        return self


def is_repeated(value: Any) -> bool:
    return isinstance(value, Repeated)


def unexpected_arguments(names: Iterable[str]
                         ) -> exception.InvalidParameterValue:
    """Parameters a handler does not take, named in the order given
    (Ironic 39 names several in no fixed order)."""
    return exception.InvalidParameterValue(
        err=f"Unexpected arguments: {', '.join(names)}")


def refuse_unexpected(params: Iterable[str], accepted: Iterable[str]
                      ) -> None:
    accepted = set(accepted)
    unknown = [p for p in params if p not in accepted]
    if unknown:
        raise unexpected_arguments(unknown)


def expected(what: str, name: str, value: Any
             ) -> exception.InvalidParameterValue:
    """A value not of its parameter's kind: ``what`` names the kind ("UUID",
    "an integer", "string")."""
    return exception.InvalidParameterValue(
        err=f"Expected {what} for {name}: {value}")


def not_boolean(name: str, value: Any) -> exception.InvalidParameterValue:
    return exception.InvalidParameterValue(
        err=f"Invalid {name}: Unrecognized value '{value}', acceptable "
            f"values are: {_BOOLEANS}")


def not_a_string(value: Any, *, alternatives: bool = False
                 ) -> exception.InvalidParameterValue:
    """A repeated parameter of a resource whose query a JSON schema checks
    (``alternatives``: the schema offers a UUID or a name)."""
    reason = f"{value} is not of type 'string'"
    if alternatives:
        reason = (f"{value} is not valid under any of the given schemas. "
                  f"Possible root cause: {reason}")
    return exception.InvalidParameterValue(err=f"Schema error: {reason}")


def single(name: str, value: Any) -> Any:
    """``value`` of a string parameter, refused when given twice."""
    if is_repeated(value):
        raise expected("string", name, value)
    return value
