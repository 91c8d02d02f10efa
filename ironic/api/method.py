"""How a controller method becomes an API handler.

``@api_method`` declares a handler's microversion range and success status,
turns service exceptions into the API error body, and serializes the result.
``json_body()`` reads a request body within the configured size and depth
limits. Controllers stay short: parse, validate, authorize, act, shape.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
import re
import threading
from typing import Any, Callable

import orjson
import pecan
import webob

from ironic.api import body, features, query
from ironic.api.middleware import auth as auth_mw
from ironic.api.middleware import errors as errors_mw
from ironic.api.middleware import request_limits
from ironic.api.middleware import version as version_mw
from ironic.api.middleware.errors import error_body
from ironic.common import exception
from ironic.common.context import RequestContext
from ironic.conf import CONF

LOG = logging.getLogger(__name__)

# The WSGI environ of the request the current thread answers, bound by the
# application (``ironic.api.app.BindRequest``) around pecan: reading it
# here costs less than going through pecan's context-local proxies.
_current = threading.local()


def bind_request(environ: dict | None) -> None:
    """Make ``environ`` the current thread's request (None: no request)."""
    _current.environ = environ


def version() -> int:
    """Minor number of the microversion this request negotiated."""
    return _current.environ[version_mw.ENV_KEY]


def check_bound() -> None:
    """In a handler declared ``late``: refuse the request here if its
    version is outside the handler's bound."""
    refusal = getattr(_current, "refusal", None)
    if refusal is not None:
        _current.refusal = None
        raise refusal


def context() -> RequestContext:
    return _current.environ[auth_mw.ENV_KEY]


#: ``json_body``'s ``what`` when the caller names no document.
_UNNAMED = "\0"


def json_body(expect: type = dict, *, what: str | None = _UNNAMED,
              arguments: bool = False) -> Any:
    """The request's JSON document, checked (see ``ironic.api.body``).

    A document of another kind than ``expect`` is refused as the
    reference's schema refuses it, naming the document ``what`` (None: no
    name); ``arguments``: the body holds an action's arguments, and one
    that is no object holds none (``{}``), as the reference reads it."""
    environ = _current.environ
    limit = request_limits.body_limit(environ.get("PATH_INFO", ""))
    # The body as the limits middleware read it; else (an application
    # built without it, in tests) as WebOb reads it.
    raw = environ.get(request_limits.RAW_BODY_KEY)
    if raw is None:
        req = pecan.request
        if req.content_length is not None and req.content_length > limit:
            raise exception.RequestTooLarge(limit=limit)
        raw = req.body
    if len(raw) > limit:
        raise exception.RequestTooLarge(limit=limit)
    if not raw.strip():
        raise exception.InvalidParameterValue(err="Request body is empty.")
    doc = body.parse(raw, CONF.api.max_json_body_depth)
    if arguments and not isinstance(doc, dict):
        return {}
    if not isinstance(doc, expect):
        if what == _UNNAMED:
            raise exception.InvalidParameterValue(err=_wrong_kind(expect))
        kind = "array" if expect is list else "object"
        prefix = f"Schema error for {what}" if what else "Schema error"
        raise exception.InvalidParameterValue(
            err=f"{prefix}: {doc!r} is not of type {kind!r}")
    return doc


def _wrong_kind(expect: type) -> str:
    if expect is list:
        # The usual mistake: one operation sent without its list.
        return ("Request body must be a JSON Patch document: a list of "
                "operations such as [{\"op\": \"replace\", \"path\": "
                "\"/name\", \"value\": \"new\"}].")
    return "Request body must be an object."


def error_response(e: Exception) -> webob.Response:
    outage = (None if isinstance(e, exception.IronicException)
              else errors_mw.dependency_outage(e))
    if outage:
        errors_mw.log_outage(outage, e)
        e = exception.DependencyUnavailable(dependency=outage)
    if isinstance(e, exception.IronicException):
        status = int(e.code)
        message = e.message if (e.safe or status < 500) else \
            "An internal error occurred."
        if status >= 500 and not outage:
            # An outage was logged above, in one line.
            LOG.error("Request failed: %s", e)
    elif isinstance(e, webob.exc.HTTPException):
        status = e.code
        message = e.detail or (MethodNotAllowed._msg_fmt if status == 405
                               else e.explanation)
    elif isinstance(e, UnicodeDecodeError):
        # webob decodes the path and query string as UTF-8 when read.
        status = 400
        message = "The request's URL is not valid UTF-8."
    elif isinstance(e, RecursionError):
        # Only a document nested past every depth check gets here.
        status = 400
        message = "The request nests too deeply to be processed."
    else:
        LOG.exception("Unexpected error in an API handler")
        status = 500
        message = ("An internal error occurred; the operator can find the "
                   "details in the service log.")
    body = errors_mw.plain_error_body(status, message) \
        if getattr(e, "ironic_plain_error", False) is True else error_body(status, message)
    resp = webob.Response(body=body, status=status,
                          content_type="application/json", charset=None)
    allow = getattr(e, "allow", None)
    if status == 405 and allow:
        resp.allow = allow
    return resp


class _Accepted:
    """A handler returns ``ACCEPTED`` when the work goes on elsewhere: 202
    with no body, whatever status the handler declares for results."""


ACCEPTED = _Accepted()


class PlainRefusal(exception.IronicException):
    """A refusal Ironic 39 answers with a plain HTTP error body
    (``errors.plain_error_body``) rather than the API's fault body."""

    ironic_plain_error = True
    safe = True

    def __init__(self, code: int, message: str):
        self.code = code
        super().__init__(message)


def malformed_in_path(name: str, ident: str) -> PlainRefusal:
    """A node or port group the URL names that can name none, refused as
    Ironic 39's routing refuses it."""
    return PlainRefusal(400, f"Expected UUID or name for {name}: {ident}")


class TooOld(exception.IronicException):
    """The request's version predates the handler."""

    _messages = {404: "Resource could not be found.",
                 405: "The method is not allowed for this resource.",
                 406: "Request not acceptable."}
    safe = True

    def __init__(self, code: int, message: str | None = None):
        self.code = code
        super().__init__(message or self._messages[code])


def api_method(feature: features.Since | None = None, *,
               since: features.Since | None = None, status: int = 200,
               too_old: int = 404, too_old_message: str | None = None,
               too_old_plain: bool = False, late: bool = False
               ) -> Callable:
    """Wrap a pecan handler, served where ``feature`` (or ``since``) is
    available; unbounded when neither is given.

    Before the feature the resource does not exist for the caller: 404 as
    the Bare Metal API answers most often, or ``too_old`` where it answers
    otherwise (405 for the writes of some later resources, 406), with
    ``too_old_message`` when it says more than "not found" (with
    ``too_old_plain``, in a plain HTTP error body). After a
    feature's last version (``until``) the answer is 404.

    ``late``: the handler refuses an older version itself, by calling
    ``check_bound()`` once the lookups and authorization that the public
    API answers first are done (406 only for a node that exists).

    The wrapped handler carries its bounds and status for readers of the
    API's shape: ``api_since`` (lowest minor, 1 when unbounded),
    ``api_until`` (highest minor, None when open) and ``api_status``.
    """
    if feature is not None and since is not None:
        raise TypeError("api_method takes one feature, not two")
    bound = feature or since or features.ALWAYS
    min_version, max_version = bound.minor, bound.until

    def decorate(func: Callable) -> Callable:
        signature = inspect.signature(func)

        @functools.wraps(func)
        def handler(*args, **kwargs):
            resp = pecan.response
            ver = version()
            refusal: Exception | None = None
            if ver < min_version:
                refusal = PlainRefusal(too_old, too_old_message) \
                    if too_old_plain and too_old_message \
                    else TooOld(too_old, too_old_message)
            elif max_version is not None and ver > max_version:
                refusal = exception.NotFound()
            if refusal is not None and not late:
                return _as_response(refusal)
            mismatch = _bad_arguments(signature, args, kwargs)
            if mismatch is not None:
                return _as_response(mismatch)
            if late:
                _current.refusal = refusal
            try:
                result = func(*args, **kwargs)
                if late and _current.refusal is not None:
                    # The handler never checked: the bound still holds.
                    raise _current.refusal
            except Exception as e:  # noqa: BLE001 - mapped to the API
                return _as_response(e)
            finally:
                if late:
                    _current.refusal = None
            resp.status = 202 if result is ACCEPTED else status
            if result is None or result is ACCEPTED or status == 204:
                # Returned as the response itself: pecan would otherwise
                # label the empty body with the handler's JSON content
                # type, which clients then fail to decode.
                resp.body = b""
                resp.content_type = None
                return resp
            resp.content_type = "application/json"
            # Bytes are a document the handler encoded itself.
            resp.body = result if isinstance(result, bytes) else dumps(result)
            return resp
        # The handler's own signature, as inspect.signature reports it
        # through __wrapped__: pecan reads it (getfullargspec) to route
        # every request, and finds it here without drilling through the
        # wrapper's closure, a third of the routing work of a GET.
        handler.__signature__ = signature
        # Read by ironic.api.openapi: the versions that route here and the
        # status of a success.
        handler.api_since = min_version
        handler.api_until = max_version
        handler.api_status = status
        return handler
    return decorate


def dumps(doc: Any) -> bytes:
    """``doc`` as JSON bytes.

    orjson is fast but refuses integers beyond 64 bits and lone surrogates;
    bodies carrying them are refused, but rows written before that (or by
    hand) must still be readable, so fall back to the json module.
    """
    try:
        return orjson.dumps(doc)
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(doc, separators=(",", ":")).encode()


def _bad_arguments(signature: inspect.Signature, args: tuple,
                   kwargs: dict) -> exception.IronicException | None:
    """Why pecan's routed arguments do not fit the handler, if they don't.

    pecan routes e.g. ``PATCH /v1/nodes`` to ``patch()`` without the node
    identifier, and passes unknown query parameters as keyword arguments.
    """
    try:
        signature.bind(*args, **kwargs)
    except TypeError:
        accepted = set(signature.parameters)
        unknown = [k for k in kwargs if k not in accepted]
        if unknown and not any(p.kind is p.VAR_KEYWORD
                               for p in signature.parameters.values()):
            return query.unexpected_arguments(unknown)
        missing = _missing_positional(signature, args, kwargs)
        if missing:
            # e.g. PATCH /v1/nodes: the item to change is not named.
            return exception.MissingParameterValue(
                err=f"Missing mandatory parameter: {missing[0]}; the URL "
                    f"must name the resource to act on.")
        return MethodNotAllowed()
    if not any(p.kind is p.VAR_KEYWORD
               for p in signature.parameters.values()):
        # pecan drops query parameters a handler does not name; Ironic 39
        # refuses them.
        accepted = set(signature.parameters)
        unknown = [k for k in pecan.request.GET if k not in accepted]
        if unknown:
            return query.unexpected_arguments(unknown)
        # A handler naming its parameters reads each as one string; one
        # taking them all checks each by its kind (list_query).
        for name, value in kwargs.items():
            if query.is_repeated(value):
                return query.expected("string", name, value)
    return None


def _missing_positional(signature: inspect.Signature, args: tuple,
                        kwargs: dict) -> list[str]:
    positional = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [p.name for p in positional[len(args):]
            if p.default is p.empty and p.name not in kwargs]


class MethodNotAllowed(exception.IronicException):
    _msg_fmt = "The method is not allowed for this resource."
    code = 405
    safe = True

    def __init__(self, message: str | None = None,
                 allow: list[str] | None = None, **kwargs):
        super().__init__(message, **kwargs)
        #: The methods the resource does answer (the Allow header).
        self.allow = allow


def _as_response(e: Exception) -> webob.Response:
    err = error_response(e)
    resp = pecan.response
    resp.status = err.status
    resp.content_type = "application/json"
    resp.body = err.body
    if err.allow:
        resp.allow = err.allow
    return resp


def expose(**kwargs) -> Callable:
    """pecan.expose for our handlers (they write the body themselves)."""
    return pecan.expose(content_type="application/json", **kwargs)


def public_url() -> str:
    """The service's URL for links: ``[api]public_endpoint``, or else
    what the request was sent to."""
    if CONF.api.public_endpoint:
        return CONF.api.public_endpoint.rstrip("/")
    environ = _current.environ
    host = environ.get("HTTP_HOST")
    if host is not None and not _VALID_HOST.fullmatch(host):
        # Not a host[:port]: never echoed into links (the address the
        # server listens on is used instead). The built-in server refuses
        # such requests; other WSGI servers may pass them on.
        host = None
    return _host_url(environ["wsgi.url_scheme"], host,
                     environ.get("SERVER_NAME"), environ.get("SERVER_PORT"))


#: A Host header's host[:port]: a name or IPv4 address, or an IPv6
#: address in brackets.
_VALID_HOST = re.compile(
    r"(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")


@functools.lru_cache(maxsize=64)
def _host_url(scheme: str, host: str | None, server_name: str | None,
              server_port: str | None) -> str:
    # webob's rules (default ports, IPv6 brackets), worked out once for
    # each Host a client sends rather than on every node document.
    environ = {"wsgi.url_scheme": scheme, "SERVER_NAME": server_name,
               "SERVER_PORT": server_port}
    if host is not None:
        environ["HTTP_HOST"] = host
    return webob.request.BaseRequest(environ).host_url.rstrip("/")
