"""Strict parsing of JSON request bodies.

Python's ``json`` module accepts more than the service can store or send
back: integers of any size (orjson, the databases' JSON readers and most
clients stop at 64 bits), ``NaN``/``Infinity`` (not JSON at all), lone
UTF-16 surrogates such as ``"\\ud800"`` (not encodable as UTF-8) and NUL
characters (PostgreSQL refuses them in text). Each is rejected here, while
the request is parsed and before anything is written, with a 400.

Nesting is measured on the raw bytes without recursion, so a small body of
``[`` x 100,000 costs one linear scan instead of a RecursionError.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from typing import Any, Iterable

from ironic.common import exception

# orjson writes integers in [-2**63, 2**64); anything else cannot be
# answered back once stored.
MIN_INT = -2 ** 63
MAX_INT = 2 ** 64 - 1

# A JSON string literal, escapes included (the unrolled-loop form, linear).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
# Lone surrogates and NUL in decoded text.
_BAD_CHARS = re.compile("[\x00\ud800-\udfff]")
# +1 for an opening bracket, -1 for a closing one, 0 for anything else.
_DELTA = tuple(1 if b in b"[{" else -1 if b in b"]}" else 0
               for b in range(256))
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def invalid(reason: str) -> exception.InvalidParameterValue:
    return exception.InvalidParameterValue(err=reason)


def too_deep_error(limit: int) -> exception.InvalidParameterValue:
    return invalid(f"Request body nests JSON deeper than {limit} levels.")


def nesting_depth_exceeds(raw: bytes, limit: int) -> bool:
    """True when the JSON text ``raw`` nests arrays/objects deeper than
    ``limit``; brackets inside strings do not count. Linear, no recursion.
    """
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False  # the common case: too few brackets to be too deep
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    if len(brackets) <= limit:
        return False
    return max(itertools.accumulate(map(_DELTA.__getitem__, brackets)),
               default=0) > limit


def _parse_int(text: str) -> int:
    # Twenty digits hold every allowed value; longer text is not converted
    # at all (int() of a huge digit string costs quadratic time).
    value = int(text) if len(text) <= 21 else None
    if value is None or not MIN_INT <= value <= MAX_INT:
        shown = text if len(text) <= 40 else f"{text[:40]}..."
        raise invalid(f"Integer {shown} is out of range; integers must lie "
                      f"between {MIN_INT} and {MAX_INT}.")
    return value


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise invalid(f"Number {text[:40]} is out of range.")
    return value


def _parse_constant(name: str) -> Any:
    raise invalid(f"{name} is not a valid JSON value.")


def _check_text(text: str) -> None:
    bad = _BAD_CHARS.search(text)
    if bad is None:
        return
    if bad.group() == "\x00":
        raise invalid("Strings in the request body must not contain NUL "
                      "(\\u0000) characters.")
    raise invalid(f"Strings in the request body must be valid Unicode; "
                  f"found the lone surrogate \\u{ord(bad.group()):04x}.")


def _walk(doc: Any, depth_limit: int, check_text: bool) -> bool:
    """Iterate over every key and value of ``doc``; True as soon as an
    array or object sits deeper than ``depth_limit``."""
    stack = [(doc, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, str):
            if check_text:
                _check_text(item)
            continue
        if isinstance(item, dict):
            if check_text:
                for key in item:
                    _check_text(key)
            children: Iterable[Any] = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if level > depth_limit:
            return True
        stack.extend((c, level + 1) for c in children)
    return False


def depth_exceeds(doc: Any, depth_limit: int) -> bool:
    """True when the parsed ``doc`` nests deeper than ``depth_limit``."""
    return _walk(doc, depth_limit, check_text=False)


def check_document(doc: Any, depth_limit: int) -> None:
    """400 for over-deep nesting or text that cannot be stored."""
    if _walk(doc, depth_limit, check_text=True):
        raise too_deep_error(depth_limit)


def parse(raw: bytes, depth_limit: int) -> Any:
    """The JSON document in ``raw``, or a 400 saying what is wrong."""
    if nesting_depth_exceeds(raw, depth_limit):
        raise too_deep_error(depth_limit)
    try:
        doc = json.loads(raw, parse_int=_parse_int, parse_float=_parse_float,
                         parse_constant=_parse_constant)
    except exception.InvalidParameterValue:
        raise
    except (ValueError, UnicodeDecodeError) as e:
        raise invalid(f"Request body is not valid JSON: {e}") from e
    except RecursionError as e:  # only if the raw scan was fooled
        raise too_deep_error(depth_limit) from e
    check_document(doc, depth_limit)
    return doc
