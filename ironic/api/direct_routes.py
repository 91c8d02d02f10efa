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

Everything else goes to pecan. Errors are answered as the routed handler
answers them (``method.error_response``), without running the request a
second time: a database that does not answer is waited for once.
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
            wanted = _plain_node_get(environ)
            if wanted is None:
                return self.routed(environ, start_response)
            try:
                body = node_api.node_document(*wanted)
            except Exception as e:  # noqa: BLE001 - mapped to the API
                return method.error_response(e)(environ, start_response)
            start_response("200 OK", [("Content-Type", "application/json"),
                                      ("Content-Length", str(len(body)))])
            return [body]
        finally:
            method.bind_request(None)


def _plain_node_get(environ: dict) -> tuple[str, str | None] | None:
    """The node and ``fields`` of a plain node GET; None for pecan."""
    if environ["REQUEST_METHOD"] != "GET" or \
            environ.get("HTTP_ACCEPT") not in _PLAIN_ACCEPT:
        return None
    path = _NODE_PATH.fullmatch(environ.get("PATH_INFO", ""))
    if path is None or path[1] in _NOT_AN_IDENT:
        return None
    query = environ.get("QUERY_STRING")
    if not query:
        return path[1], None
    wanted = _FIELDS_QUERY.fullmatch(query)
    if wanted is None:
        return None
    return path[1], wanted[1].replace("%2C", ",").replace("%2c", ",")
