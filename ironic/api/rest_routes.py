"""The request shapes a pecan ``RestController`` always routes the same
way (``GET /``, ``GET /<ident>``, ``POST /``), found without its signature
inspections.

pecan's ``RestController._route`` reads the signature of ``get_one`` or
``get_all`` four to five times to route ``GET /collection`` or
``GET /collection/<ident>``, and every reading builds a new class
(``pecan.compat.getargspec`` makes a namedtuple per call): about half of the
CPU of a node GET. A controller that overrides pecan's documented ``_route``
hook asks ``direct_get`` first and hands everything else to pecan::

    @pecan.expose()
    def _route(self, args, request):
        return rest_routes.direct_get(self, args, request) or \\
            super()._route(args, request)

(``direct`` also routes ``POST /``, see ``direct_post``.)
``direct_get`` answers only where pecan's walk would end at the same
handler with the same arguments, and None everywhere else (sub-controllers,
custom actions, ``new``/``edit``/``delete``, ``_method`` overrides, other
methods, handlers whose signature takes other positional arguments), so
the routing stays pecan's.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

# Positional parameters (after ``self``) of a handler function, or None when
# it takes ``*args``; read once per function, as pecan would on each request.
_POSITIONAL: dict[Callable, int | None] = {}

# GET segments pecan's RestController reads as ``get_new``/``edit``/
# ``get_delete`` requests rather than as an identifier.
_GET_ACTIONS = frozenset({"new", "edit", "delete"})


def _positional(handler: Any) -> int | None:
    func = getattr(handler, "__func__", handler)
    try:
        return _POSITIONAL[func]
    except KeyError:
        pass
    params = list(inspect.signature(func).parameters.values())[1:]
    count: int | None = sum(
        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        for p in params)
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        count = None
    _POSITIONAL[func] = count
    return count


def _exposed(controller: object, name: str, positional: int) -> Any:
    """``controller.<name>`` when pecan would route to it with exactly
    ``positional`` arguments from the path."""
    handler = getattr(controller, name, None)
    if handler is None or not getattr(handler, "exposed", False):
        return None
    return handler if _positional(handler) == positional else None


def direct_get(controller: Any, args: list[str],
               request: Any) -> tuple[Any, list[str]] | None:
    """``(handler, remainder)`` for ``GET /`` (``get_all``) and
    ``GET /<ident>`` (``get_one``) on ``controller`` where pecan's
    RestController routes them there; None for anything else."""
    if request.method != "GET" or "_method" in request.params:
        return None
    if not args or args == [""]:
        handler = _exposed(controller, "get_all", 0)
        return (handler, []) if handler is not None else None
    if len(args) != 1:
        return None
    ident = args[0]
    if not ident or ident in _GET_ACTIONS or hasattr(controller, ident) \
            or ident in getattr(controller, "_custom_actions", {}):
        return None
    handler = _exposed(controller, "get_one", 1)
    return (handler, args) if handler is not None else None


def direct_post(controller: Any, args: list[str],
                request: Any) -> tuple[Any, list[str]] | None:
    """``(post, [])`` for ``POST`` of the collection itself (no path
    segment after it) on ``controller`` where pecan's RestController routes
    it there; None for anything else.

    With no segment left pecan finds no sub-controller and no custom
    action, and ends at the exposed ``post`` with no arguments, after four
    signature inspections. A controller reached through a parent's path
    (pecan's ``routing_args``) is left to pecan.
    """
    if request.method != "POST" or args or "_method" in request.params:
        return None
    routing = getattr(request, "pecan", None)
    if routing and routing.get("routing_args"):
        return None
    handler = _exposed(controller, "post", 0)
    return (handler, []) if handler is not None else None


def handler_child(controller: Any, name: str) -> Any:
    """pecan's ``RestController._lookup_child`` for a controller whose path
    segments name items: only its handlers are found by name. pecan routes
    a segment naming any attribute into it, so an item named like one
    (``/v1/nodes/spec``, a node named ``spec``) would never reach
    ``get_one``."""
    try:
        child = getattr(controller, name, None)
    except UnicodeEncodeError:
        return None
    return child if callable(child) else None


def direct(controller: Any, args: list[str],
           request: Any) -> tuple[Any, list[str]] | None:
    """``direct_get`` or ``direct_post``, whichever applies (None: pecan
    routes the request)."""
    return direct_get(controller, args, request) or \
        direct_post(controller, args, request)
