"""Builds the WSGI application: pecan routing (and the direct routes in
front of it) inside our middlewares."""

from __future__ import annotations

import pecan
import webob.multidict
from pecan import hooks

from ironic.api import direct_routes, method, pecan_speedups
from ironic.api.middleware import auth
from ironic.api.middleware.errors import ErrorMiddleware
from ironic.api.middleware.request_id import RequestIdMiddleware
from ironic.api.middleware.request_limits import RequestLimitMiddleware
from ironic.api.middleware.version import VersionMiddleware
from ironic.conf import CONF


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

    # pecan's Request reads every attribute through a Python-level
    # __getattribute__ (about 40 per request) only to answer a
    # UnicodeDecodeError with 400; method.error_response does that.
    __getattribute__ = object.__getattribute__

    @property
    def accept(self):
        # webob parses the header again on every read.
        return pecan_speedups.accept_header(self.environ.get("HTTP_ACCEPT"))

    @property
    def json(self):
        # pecan catches ValueError and routes with the query string only.
        raise ValueError("request bodies are read by method.json_body")

    @property
    def POST(self):  # noqa: N802 - webob's name
        return webob.multidict.NoVars("request bodies are not parameters")


def setup_app() -> object:
    pecan_speedups.install()
    app = pecan.make_app(
        "ironic.api.controllers.root.RootController",
        hooks=[ErrorHook()],
        force_canonical=False,
        guess_content_type_from_ext=False,
        debug=False,
        request_cls=Request,
    )
    app = direct_routes.DirectRoutes(app)
    # Inside authentication: an unauthenticated caller's body is not read.
    app = RequestLimitMiddleware(app)
    app = auth.wrap(app, CONF)
    app = VersionMiddleware(app)
    return RequestIdMiddleware(ErrorMiddleware(app))
