"""Checks of a node's driver and interfaces on create and update.

The API validates against what live conductors registered (seed 003), so
a node never names a hardware type or interface no conductor can drive.
Changing the driver and its interfaces in one PATCH is judged on the final
document only, as RFC 6902 makes a patch atomic.

``driver_info`` is parsed by the node's power and management interfaces
when it, the driver or those interfaces change: a malformed value (a port
that is not a number, a BMC address that is not an http(s) URL) is a 400
naming the field. Missing required fields are accepted, as the public
service accepts them: a node is enrolled first and completed later, and
validation (``manage``, ``GET .../validate``) reports what is missing.
Nothing here talks to a BMC.
"""

from __future__ import annotations

from typing import Any

from ironic import driver_registry, hash_ring, interfaces
from ironic.api import features
from ironic.common import exception

# The interfaces whose driver_info parsing is run by the API.
_PARSING_KINDS = ("power", "management")


def check_host(driver: str, group: str | None) -> None:
    """400 unless a live conductor of the node's conductor group serves
    its hardware type: the conductor the node would be managed by, found
    as every request for it finds one (the hash rings), so one answer for
    the all-in-one service and for conductors of several groups.
    ``group`` is named as the request gave it."""
    try:
        hash_ring.manager().get_ring(driver, group or "")
    except exception.NoValidHost:
        raise exception.NoValidHostForDriver(
            driver=driver, group=group or "") from None


def check_create(values: dict, given: set[str],
                 group: str | None = None) -> None:
    """Check that a conductor would serve the new node (``group``: its
    conductor group as given), fill in its default interfaces and check
    the given ones."""
    check_host(values["driver"], group)
    hash_ring.live_catalog().update_node_interfaces(
        values, explicit=given & set(interfaces.COLUMNS))
    check_driver_info(values)


def check_driver_info(values: dict) -> None:
    """Let the node's power and management interfaces parse its
    ``driver_info``; InvalidParameterValue names a malformed field."""
    info = values.get("driver_info") or {}
    if not isinstance(info, dict):
        return  # the node schema reports a driver_info of the wrong type
    for kind in _PARSING_KINDS:
        name = values.get(interfaces.FIELDS[kind])
        try:
            iface = driver_registry.interface_instance(kind, name) \
                if name else None
        except exception.InterfaceNotFoundInEntrypoint:
            # Installed on the conductors only: they validate it.
            continue
        check = getattr(iface, "check_driver_info", None)
        if check is not None:
            check(info)


def parse_reset(reset_interfaces: Any, ver: int) -> bool:
    if reset_interfaces is None:
        return False
    if not features.RESET_INTERFACES.available(ver):
        raise exception.NotAcceptable(
            f"The 'reset_interfaces' parameter needs API version "
            f"{features.RESET_INTERFACES.version} or newer.")
    from ironic.api.controllers.v1 import utils as api_utils
    return bool(api_utils.parse_bool(reset_interfaces, "reset_interfaces"))


def check_update(values: dict, changed: set[str], reset: bool,
                 node_uuid: str) -> set[str]:
    """Check the patched node; return the interface fields to write.

    ``values`` holds the node's final document, ``changed`` the fields the
    patch altered. Interfaces are not checked when neither the driver nor
    an interface changed: an interface disabled since enrollment is
    reported by node validation, it does not block unrelated updates.
    ``driver_info`` is parsed when it, the driver or the power or
    management interface changed.
    """
    touched = changed & set(interfaces.COLUMNS)
    if reset and "driver" not in changed:
        raise exception.InvalidParameterValue(
            err="The reset_interfaces parameter can only be used when "
                "changing the node's driver.")
    if changed & {"driver", "conductor_group"}:
        check_host(values["driver"], values.get("conductor_group"))
    written: set[str] = set()
    if "driver" in changed or touched:
        before = {f: values.get(f) for f in interfaces.COLUMNS}
        hash_ring.live_catalog().update_node_interfaces(
            values, explicit=touched, reset=reset,
            node_info=f"node {node_uuid}")
        written = touched | {f for f in interfaces.COLUMNS
                             if values.get(f) != before[f]}
    parsers = {interfaces.FIELDS[kind] for kind in _PARSING_KINDS}
    if changed & ({"driver", "driver_info"} | parsers) or written & parsers:
        check_driver_info(values)
    return written
