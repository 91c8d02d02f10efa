"""Builds the WSGI application: pecan routing inside our middlewares."""

from __future__ import annotations

import functools

import pecan
import pecan.util
from pecan import hooks

from ironic.api import method
from ironic.api.middleware import auth
from ironic.api.middleware.errors import ErrorMiddleware
from ironic.api.middleware.request_id import RequestIdMiddleware
from ironic.api.middleware.version import VersionMiddleware
from ironic.conf import CONF


class ErrorHook(hooks.PecanHook):
    """Routing errors (404/405 from pecan) in the API's error body."""

    def on_error(self, state, e):
        return method.error_response(e)


def _cache_argspecs() -> None:
    """Remember pecan's argument specs instead of rebuilding them.

    pecan inspects the handler's signature several times per request and
    builds a new namedtuple class each time, a good part of a small
    request. A function's signature never changes, so keep the answer.
    """
    if getattr(pecan.util._getargspec, "cached", False):
        return
    original = pecan.util._getargspec
    cache: dict = {}

    @functools.wraps(original)
    def getargspec(func):
        # Bound methods are new objects on each access; their spec (which
        # includes self) is the function's.
        key = getattr(func, "__func__", func)
        spec = cache.get(key)
        if spec is None:
            spec = cache[key] = original(func)
        return spec
    getargspec.cached = True
    pecan.util._getargspec = getargspec


def setup_app() -> object:
    _cache_argspecs()
    app = pecan.make_app(
        "ironic.api.controllers.root.RootController",
        hooks=[ErrorHook()],
        force_canonical=False,
        guess_content_type_from_ext=False,
        debug=False,
    )
    app = auth.wrap(app, CONF)
    app = VersionMiddleware(app)
    return RequestIdMiddleware(ErrorMiddleware(app))
