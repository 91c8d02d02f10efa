"""Builds the WSGI application: pecan routing inside our middlewares."""

from __future__ import annotations

from typing import Callable, Iterable

import pecan
import webob.multidict
from pecan import hooks

from ironic.api import method
from ironic.api.middleware import auth, paths
from ironic.api.middleware.errors import ErrorMiddleware
from ironic.api.middleware.request_id import RequestIdMiddleware
from ironic.api.middleware.request_limits import RequestLimitMiddleware
from ironic.api.middleware.request_log import RequestLogMiddleware
from ironic.api.middleware.version import VersionMiddleware
from ironic.api.query import Repeated
from ironic.conf import CONF
from ironic.metrics import api as api_metrics


class ErrorHook(hooks.PecanHook):
    """Routing errors (404/405 from pecan) in the API's error body."""

    def on_error(self, state, e):
        return method.error_response(e)


class Request(pecan.Request):
    """pecan's request as our handlers use it.

    Without the body in the handler's arguments: pecan merges the fields
    of a JSON object body (or a form body) into the keyword arguments it
    routes to a handler, so ``{"trait": "X"}`` sent to
    ``PUT /v1/nodes/N/traits`` would reach ``put(trait="X")`` and a patch
    sent as an object would read as unknown query parameters. Handlers read
    bodies through ``method.json_body`` only; routing sees the query string
    alone.
    """

    @property
    def GET(self):  # noqa: N802 - webob's name
        # Every query parameter of the Bare Metal API holds one value
        # (lists are comma-separated); pecan would hand a repeated one to
        # the handler as a Python list, which no handler expects. Every
        # routed request reads its query here first, so this is the one
        # place a repeated parameter becomes a string its check refuses,
        # or, for ``fields`` (a list in the reference), is joined as
        # Ironic 39 joins it.
        query = super().GET
        if len(query) > 1:
            query = single_values(query)
        return query

    @property
    def json(self):
        # pecan catches ValueError and routes with the query string only.
        raise ValueError("request bodies are read by method.json_body")

    @property
    def POST(self):  # noqa: N802 - webob's name
        return webob.multidict.NoVars("request bodies are not parameters")


class BindRequest:
    """Binds each request to its thread for ``method.version()`` and the
    other request helpers, which read the environ there rather than
    through pecan's context-local proxies."""

    def __init__(self, app: Callable):
        self.app = app

    def __call__(self, environ: dict, start_response: Callable
                 ) -> Iterable[bytes]:
        method.bind_request(environ)
        try:
            return self.app(environ, start_response)
        finally:
            method.bind_request(None)


# Parameters whose repetitions add up to one comma-separated list (as
# Ironic 39 reads them: lists).
_JOINED_WHEN_REPEATED = frozenset({"fields", "shard"})


def single_values(query: webob.multidict.MultiDict
                  ) -> webob.multidict.MultiDict:
    """``query`` with one value per parameter: repeated list parameters
    joined with commas, any other repeated one a ``query.Repeated`` the
    checks of its kind refuse (once the handler is known to take it)."""
    names = list(dict.fromkeys(query.keys()))
    if len(names) == len(query):
        return query
    single = webob.multidict.MultiDict()
    for name in names:
        values = query.getall(name)
        if len(values) > 1 and name not in _JOINED_WHEN_REPEATED:
            single[name] = Repeated(values)
        else:
            single[name] = ",".join(values)
    return single


def setup_app() -> object:
    app = pecan.make_app(
        "ironic.api.controllers.root.RootController",
        hooks=[ErrorHook()],
        force_canonical=False,
        guess_content_type_from_ext=False,
        debug=False,
        request_cls=Request,
    )
    app = paths.PathMiddleware(BindRequest(app))
    # Inside authentication: an unauthenticated caller's body is not read.
    app = RequestLimitMiddleware(app)
    app = auth.wrap(app, CONF)
    app = VersionMiddleware(app)
    app = RequestIdMiddleware(ErrorMiddleware(app))
    # Outermost: it sees every answer, the error middleware's 500s too.
    return RequestLogMiddleware(app, observers=api_metrics.observers())
