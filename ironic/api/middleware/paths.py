"""The other spellings of a ``/v1`` path that the Bare Metal API accepts.

* Every ``bookmark`` link the API returns leaves out the version prefix
  (``/nodes/{uuid}``), and clients follow them: a path whose first segment
  is not ``v1`` is served as the same path under ``/v1``.
* Before 1.91 a trailing ``.json`` on the path asked for JSON, which is
  the only answer there is; from 1.91 it is part of the last segment (a
  node may be named ``foo.json``). Below 1.91 it is dropped, except from
  ``/v1/openapi.json``, whose name it is at every version.
* ``/v1/nodes/{node}/`` is the node itself: a trailing slash is dropped.

A path or query string that is not UTF-8 once percent-decoded is
answered 400 here, with a message that says so, before pecan (whose
request object answers it with a generic one) sees it.

pecan routes a segment by looking it up as an attribute of the
controller; a segment that spells one of Python's own object attributes
(``__class__``, ``__module__``...) would walk into the class instead of a
resource, so such a path is answered 404 here.

The rewrite happens after version negotiation (it depends on the version)
and after authentication, which judges the path the client sent.
"""

from __future__ import annotations

from typing import Callable, Iterable
from urllib.parse import unquote_to_bytes

from ironic.api import features
from ironic.api.middleware import version as version_mw
from ironic.api.middleware.errors import error_app_response

_SUFFIX = ".json"
#: Paths whose ``.json`` is part of the name at every version.
_NAMED_JSON = frozenset({"/v1/openapi.json"})
#: The first segments of ``/v1`` paths (checked against the routes by a
#: unit test): others are not ours to rewrite.
V1_ROOTS = frozenset({
    "nodes", "ports", "portgroups", "chassis", "drivers", "volume",
    "conductors", "events", "deploy_templates", "runbooks", "allocations",
    "shards", "inspection_rules", "lookup", "heartbeat",
    "continue_inspection"})


#: Attributes every controller has from Python itself.
_OBJECT_ATTRIBUTES = frozenset(
    name for name in (*dir(type), "__dict__", "__weakref__", "__module__")
    if name.startswith("__"))
NOT_FOUND = "The resource could not be found."


def names_object_attribute(path: str) -> bool:
    """Whether a segment of ``path`` names an attribute that every Python
    object or class has."""
    return "/__" in path and any(
        segment in _OBJECT_ATTRIBUTES for segment in path.split("/"))


def _first_segment(path: str) -> str:
    return path.strip("/").split("/", 1)[0]


def canonical(path: str, ver: int) -> str:
    """``path`` as the routes spell it, for a request at 1.``ver``."""
    if not features.JSON_SUFFIX_IS_NAME.available(ver) and \
            path.rstrip("/").endswith(_SUFFIX) and \
            path.rstrip("/") not in _NAMED_JSON:
        head, _, tail = path.rpartition(_SUFFIX)
        path = head + tail
    if _first_segment(path) in V1_ROOTS:
        path = "/v1" + (path if path.startswith("/") else "/" + path)
    if len(path) > len("/v1/") and path.endswith("/"):
        path = path.rstrip("/")
    return path


def is_utf8(environ: dict) -> bool:
    """Whether the request's path and query string decode as UTF-8 (the
    server hands PATH_INFO over as latin-1 text of the raw bytes)."""
    try:
        environ.get("PATH_INFO", "").encode("latin-1").decode("utf-8")
        unquote_to_bytes(environ.get("QUERY_STRING", "")).decode("utf-8")
    except UnicodeError:
        return False
    return True


def names_version(path: str) -> bool:
    """Whether the answer on ``path`` names the negotiated version: the
    root, ``/v1`` and the paths served as ``/v1`` paths."""
    first = _first_segment(path)
    return first in ("", "v1") or first.removesuffix(_SUFFIX) in V1_ROOTS


class PathMiddleware:
    """Rewrites ``PATH_INFO`` to its canonical ``/v1`` form."""

    def __init__(self, app: Callable):
        self.app = app

    def __call__(self, environ: dict, start_response: Callable
                 ) -> Iterable[bytes]:
        if not is_utf8(environ):
            return error_app_response(
                start_response, 400, "The request's URL is not valid UTF-8.")
        path = environ.get("PATH_INFO", "")
        if names_object_attribute(path):
            return error_app_response(start_response, 404, NOT_FOUND)
        environ["PATH_INFO"] = canonical(path, environ[version_mw.ENV_KEY])
        return self.app(environ, start_response)
