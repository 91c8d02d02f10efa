"""Vendor passthru calls, run by the conductor that owns the node.

The route a method declared (``@passthru``) decides the lock (shared unless
the method needs an exclusive one) and whether the caller waits: an
asynchronous call is validated here, then runs in a worker holding the lock
while the API answers 202.
"""

from __future__ import annotations

from typing import Any

from ironic import driver_registry
from ironic.common import exception
from ironic.drivers import passthru


def _answer(route: passthru.Route, value: Any = None) -> dict:
    return {"async": route.async_, "attach": route.attach, "return": value}


def node_call(manager: Any, context: Any, node_id: Any, method: str,
              http_method: str, info: dict) -> dict:
    with manager._task(context, node_id, f"vendor passthru {method}",
                       shared=True) as task:
        call, route = passthru.call_node(task, method, http_method, info)
        if route.require_exclusive_lock:
            task.upgrade_lock(purpose=f"vendor passthru {method}")
        if route.async_:
            task.spawn_after(call)
            return _answer(route)
        return _answer(route, call())


def driver_call(manager: Any, context: Any, driver_name: str, method: str,
                http_method: str, info: dict) -> dict:
    registry = driver_registry.load()
    hw = registry.hardware_type(driver_name)
    name = hw.defaults.get("vendor")
    vendor = registry.interfaces["vendor"].get(name) if name else None
    if vendor is None:
        raise exception.UnsupportedDriverExtension(
            driver=driver_name, extension="vendor passthru")
    call, route = passthru.call_driver(vendor, context, method, http_method,
                                       info)
    if route.async_:
        manager.pool.spawn(call)
        return _answer(route)
    return _answer(route, call())
