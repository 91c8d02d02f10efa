"""Vendor passthru: methods a vendor interface exposes over the API.

``@passthru`` marks a method reachable at
``/v1/nodes/{node}/vendor_passthru?method=<name>`` (called as
``func(self, task, http_method, **data)``); ``@driver_passthru`` one reachable
at ``/v1/drivers/{name}/vendor_passthru?method=<name>`` (called as
``func(self, context, http_method, **data)``). ``VendorInterface`` gathers
them into ``vendor_routes`` and ``driver_routes`` when the class is created.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, ClassVar

from ironic.common import exception
from ironic.drivers.interface import BaseInterface
from ironic.task import Task

_NODE_MARK = "_ironic_passthru"
_DRIVER_MARK = "_ironic_driver_passthru"
HTTP_METHODS = ("GET", "PUT", "POST", "PATCH", "DELETE")


@dataclasses.dataclass(frozen=True)
class Route:
    name: str
    http_methods: tuple[str, ...]
    async_: bool
    description: str
    attach: bool
    require_exclusive_lock: bool

    def public(self, driver_level: bool = False) -> dict[str, Any]:
        """The document ``.../vendor_passthru/methods`` shows."""
        doc = {"http_methods": list(self.http_methods), "async": self.async_,
               "description": self.description, "attach": self.attach}
        if not driver_level:
            doc["require_exclusive_lock"] = self.require_exclusive_lock
        return doc


def _route(mark: str, http_methods: list[str], method: str | None,
           async_: bool, description: str | None, attach: bool,
           require_exclusive_lock: bool) -> Callable[[Callable], Callable]:
    methods = tuple(m.upper() for m in http_methods)
    bad = [m for m in methods if m not in HTTP_METHODS]
    if not methods or bad:
        raise ValueError(f"Invalid passthru HTTP methods: {http_methods!r}")

    def decorate(func: Callable) -> Callable:
        setattr(func, mark, Route(method or func.__name__, methods,
                                  bool(async_), description or "",
                                  bool(attach),
                                  bool(require_exclusive_lock)))
        return func
    return decorate


def passthru(http_methods: list[str], method: str | None = None,
             async_: bool = True, description: str | None = None,
             attach: bool = False, require_exclusive_lock: bool = True
             ) -> Callable:
    """Expose a vendor method on the node's vendor_passthru endpoint.

    ``async_``: the API answers 202 at once and the conductor runs the call
    in a worker; otherwise the API waits and returns the method's result.
    ``attach``: the result is returned as the raw response body.
    """
    return _route(_NODE_MARK, http_methods, method, async_, description,
                  attach, require_exclusive_lock)


def driver_passthru(http_methods: list[str], method: str | None = None,
                    async_: bool = True, description: str | None = None,
                    attach: bool = False) -> Callable:
    """Expose a vendor method on the driver's vendor_passthru endpoint."""
    return _route(_DRIVER_MARK, http_methods, method, async_, description,
                  attach, False)


def collect(cls: type, driver_level: bool = False
            ) -> dict[str, tuple[str, Route]]:
    """{public method name: (attribute name, route)} declared on ``cls``."""
    mark = _DRIVER_MARK if driver_level else _NODE_MARK
    found: dict[str, tuple[str, Route]] = {}
    for attr in dir(cls):
        if attr.startswith("__"):
            continue
        route = getattr(getattr(cls, attr, None), mark, None)
        if route is not None:
            found[route.name] = (attr, route)
    return found


class VendorInterface(BaseInterface):
    """Vendor passthru methods, declared with ``@passthru``."""

    interface_type = "vendor"
    #: {public method name: (attribute, Route)}, filled per class.
    vendor_routes: ClassVar[dict] = {}
    driver_routes: ClassVar[dict] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.vendor_routes = collect(cls)
        cls.driver_routes = collect(cls, driver_level=True)

    def validate(self, task: Task, method: str | None = None,
                 http_method: str | None = None, **kwargs: Any) -> None:
        """Check the node, or a passthru call's arguments when ``method``."""

    def driver_validate(self, method: str, http_method: str | None = None,
                        **kwargs: Any) -> None:
        """Check a driver-level passthru call's arguments."""


def find(vendor: Any, name: str, http_method: str,
         driver_level: bool = False) -> tuple[Callable, Route]:
    """The bound method and route of a passthru call, or a 400.

    Raises InvalidParameterValue for an unknown method or an HTTP verb the
    method does not accept (what the API answers for a bad call).
    """
    routes = vendor.driver_routes if driver_level else vendor.vendor_routes
    if name not in routes:
        raise exception.InvalidParameterValue(
            err=f"No handler for method {name}. Available: "
                f"{', '.join(sorted(routes)) or 'none'}")
    attr, route = routes[name]
    if http_method.upper() not in route.http_methods:
        raise exception.InvalidParameterValue(
            err=f"The method {name} does not support HTTP {http_method}; "
                f"it accepts {', '.join(route.http_methods)}.")
    return getattr(vendor, attr), route


def call_node(task: Task, name: str, http_method: str, data: dict
              ) -> tuple[Callable[[], Any], Route]:
    """Validate a node passthru call; return the call to run and its route.

    The conductor runs the returned callable in a worker when the route is
    asynchronous (answering 202 at once) or inline otherwise; it takes a
    shared lock only when ``route.require_exclusive_lock`` is False.
    """
    vendor = task.driver.vendor
    if vendor is None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="vendor passthru")
    func, route = find(vendor, name, http_method)
    vendor.validate(task, method=name, http_method=http_method, **data)
    return (lambda: func(task, http_method=http_method, **data)), route


def call_driver(vendor: Any, context: Any, name: str, http_method: str,
                data: dict) -> tuple[Callable[[], Any], Route]:
    """Same for a driver-level passthru call (no node, no lock)."""
    func, route = find(vendor, name, http_method, driver_level=True)
    vendor.driver_validate(method=name, http_method=http_method, **data)
    return (lambda: func(context, http_method=http_method, **data)), route
