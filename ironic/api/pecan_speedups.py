"""pecan's routing without the work it repeats on every request.

pecan recomputes, for each request, answers that depend only on the
controller classes, which never change once the application is built:

- the argument spec of every handler on the path, drilling through the
  decorators around it and building a new namedtuple class each time;
- ``set(dir(controller))`` for each controller on the path, kept only to
  detect custom route conflicts, which it checks once per class anyway;
- in every ``RestController``, ``request.path`` (URL-quoting the path) just
  to learn whether the application uses context locals, which ours always
  does;
- the parse of the request's ``Accept`` header, twice, and its match
  against the handler's content types, although clients send the same one
  or two header values every time.

Together that was over a quarter of the instructions of a node GET.
``install()`` replaces those with versions that remember the answer;
routing and content negotiation themselves are pecan's and webob's,
unchanged. It is idempotent and runs before the application is built.
"""

from __future__ import annotations

import functools
from typing import Callable

import pecan.core
import pecan.rest
import pecan.routing
import pecan.util
from webob import acceptparse

_INSTALLED = "_ironic_speedups"
_MAX_SPECS = 4096


def _remembered(spec_of: Callable) -> Callable:
    """``spec_of(func)`` computed once per function.

    Bound methods are new objects on each access; their spec (which
    includes ``self``) is their function's.
    """
    cache: dict = {}

    @functools.wraps(spec_of)
    def spec(func):
        key = getattr(func, "__func__", func)
        found = cache.get(key)
        if found is None:
            found = spec_of(func)
            # Handlers are defined once; the bound only guards against a
            # function made per request.
            if len(cache) < _MAX_SPECS:
                cache[key] = found
        return found
    return spec


def _cache_argspecs() -> None:
    # pecan.util.getargspec calls the module's own _getargspec, and the
    # other pecan modules imported getargspec by name: each needs the
    # cached version under the name it uses.
    pecan.util._getargspec = _remembered(pecan.util._getargspec)
    drilled = _remembered(pecan.util.getargspec)
    for module in (pecan.util, pecan.core, pecan.rest, pecan.routing):
        module.getargspec = drilled


def _skip_known_controllers() -> None:
    detect = pecan.routing._detect_custom_path_segments
    observed = pecan.routing.__observed_controllers__

    @functools.wraps(detect)
    def detect_once(obj):
        # For a class it has seen, pecan's version only builds a set of
        # the object's attribute names and drops it.
        if obj.__class__ not in observed:
            detect(obj)
    pecan.routing._detect_custom_path_segments = detect_once


def _args_for_controller(self, controller) -> list[str]:
    # The positional arguments after ``self``: what pecan answers for an
    # application with context locals, without probing request.path.
    return pecan.util.getargspec(controller).args[1:]


class _KnownAccept:
    """A parsed ``Accept`` header that remembers what it matched.

    webob's parsed headers are never changed once built, so one can serve
    every request that sends the same header.
    """

    _MAX_MATCHES = 16

    def __init__(self, parsed):
        self._parsed = parsed
        self._matches: dict[tuple, list] = {}

    def acceptable_offers(self, offers) -> list:
        key = tuple(offers)
        found = self._matches.get(key)
        if found is None:
            found = self._parsed.acceptable_offers(offers)
            if len(self._matches) < self._MAX_MATCHES:
                self._matches[key] = found
        return list(found)

    def __getattr__(self, name):
        return getattr(self._parsed, name)


@functools.lru_cache(maxsize=128)
def accept_header(value: str | None) -> _KnownAccept:
    """The parsed ``Accept`` header ``value`` (None: no header)."""
    return _KnownAccept(acceptparse.create_accept_header(value))


class _AcceptParse:
    """webob's acceptparse module as pecan.core sees it: the same, with
    parsed ``Accept`` headers remembered."""

    create_accept_header = staticmethod(accept_header)

    def __getattr__(self, name):
        return getattr(acceptparse, name)


def install() -> None:
    if getattr(pecan.core, _INSTALLED, False):
        return
    _cache_argspecs()
    _skip_known_controllers()
    pecan.rest.RestController._get_args_for_controller = _args_for_controller
    pecan.core.acceptparse = _AcceptParse()
    setattr(pecan.core, _INSTALLED, True)
