"""Read-only views of inspection data with secrets hidden.

Rules see the inventory and plugin data through these views: a value under
a secret-looking key (at any depth) reads as ``***``. The views wrap the
live data, so what an action changes is visible to the rules after it, and
they print masked too (``"{inventory}"`` in a log message).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

SECRET_KEYS = frozenset({"password", "auth_token", "bmc_password"})
MASK = "***"


def view(value: Any, enabled: bool = True) -> Any:
    """``value`` wrapped so that reading it never shows a secret."""
    if not enabled:
        return value
    if isinstance(value, Mapping) and not isinstance(value, MaskedMapping):
        return MaskedMapping(value)
    if isinstance(value, list):
        return MaskedList(value)
    return value


class MaskedMapping(Mapping):
    def __init__(self, data: Mapping) -> None:
        self._data = data

    def __getitem__(self, key: Any) -> Any:
        value = self._data[key]
        return MASK if key in SECRET_KEYS else view(value)

    def __iter__(self):
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return repr(plain(self))

    __str__ = __repr__


class MaskedList(Sequence):
    def __init__(self, data: list) -> None:
        self._data = data

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return MaskedList(self._data[index])
        return view(self._data[index])

    def __len__(self) -> int:
        return len(self._data)

    def __eq__(self, other: Any) -> bool:
        return list(self) == other

    def __repr__(self) -> str:
        return repr(plain(self))

    __str__ = __repr__


def plain(value: Any) -> Any:
    """Plain dicts and lists of what a view shows (secrets stay masked)."""
    if isinstance(value, Mapping):
        return {k: plain(value[k]) for k in value}
    if isinstance(value, (list, MaskedList)):
        return [plain(v) for v in value]
    return value
