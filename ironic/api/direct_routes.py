"""The API's most frequent request, answered without pecan's routing.

``GET /v1/nodes/{node}`` is what Nova's driver, the CLI and every client
watching a node send most. Through pecan, walking the controller tree,
building webob's request and response and the handler wrapper cost about
as much CPU as reading and rendering the node itself. Here the plain form of
that request calls the routed handler's own function,
``node.node_document``, and nothing else.

Only requests whose answer cannot differ from pecan's are taken:

* ``GET``, the identifier made of unreserved URL characters and not a name
  pecan routes elsewhere (``detail`` and the rest of ``NodesController``);
* no query string, or a single ``fields`` list;
* no ``Accept`` header, or one that asks for JSON or anything.

Everything else, and every request that fails here, goes to pecan, so that
each error answer (and its logging) is the routed handler's own.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

from ironic.api import method
from ironic.api.controllers.v1 import node as node_api

_NODE_PATH = re.compile(r"/v1/nodes/([A-Za-z0-9._~-]+)")
# A comma may come percent-encoded: requests and openstacksdk send %2C.
_FIELDS_QUERY = re.compile(
    r"fields=([A-Za-z0-9_]+(?:(?:,|%2[Cc])[A-Za-z0-9_]+)*)")
_PLAIN_ACCEPT = frozenset((None, "", "*/*", "application/json"))
#: Path segments that pecan routes to something other than ``get_one``.
_NOT_AN_IDENT = frozenset(dir(node_api.NodesController))


class DirectRoutes:
    """WSGI application in front of pecan's; also binds every request for
    ``method.version()`` and the other request helpers."""

    def __init__(self, routed: Callable):
        self.routed = routed

    def __call__(self, environ: dict, start_response: Callable
                 ) -> Iterable[bytes]:
        method.bind_request(environ)
        try:
            body = _node_document(environ)
            if body is None:
                return self.routed(environ, start_response)
            start_response("200 OK", [("Content-Type", "application/json"),
                                      ("Content-Length", str(len(body)))])
            return [body]
        finally:
            method.bind_request(None)


def _node_document(environ: dict) -> bytes | None:
    """The body of a plain node GET, or None for pecan to answer."""
    if environ["REQUEST_METHOD"] != "GET" or \
            environ.get("HTTP_ACCEPT") not in _PLAIN_ACCEPT:
        return None
    path = _NODE_PATH.fullmatch(environ.get("PATH_INFO", ""))
    if path is None or path[1] in _NOT_AN_IDENT:
        return None
    fields = None
    query = environ.get("QUERY_STRING")
    if query:
        wanted = _FIELDS_QUERY.fullmatch(query)
        if wanted is None:
            return None
        fields = wanted[1].replace("%2C", ",").replace("%2c", ",")
    try:
        return method.dumps(node_api.node_document(path[1], fields))
    except Exception:  # noqa: BLE001 - pecan answers it, as for any error
        return None
