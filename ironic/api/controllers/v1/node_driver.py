"""Checks of a node's driver and interfaces on create and update.

The API validates against what live conductors registered (seed 003), so
a node never names a hardware type or interface no conductor can drive.
Changing the driver and its interfaces in one PATCH is judged on the final
document only, as RFC 6902 makes a patch atomic.
"""

from __future__ import annotations

from typing import Any

from ironic.common import exception, interface_catalog
from ironic.db.sqlalchemy.models import INTERFACE_COLUMNS

_RESET_SINCE = 45


def check_create(values: dict, given: set[str]) -> None:
    """Fill in default interfaces of a new node and check the given ones."""
    interface_catalog.live().update_node_interfaces(
        values, explicit=given & set(INTERFACE_COLUMNS))


def parse_reset(reset_interfaces: Any, ver: int) -> bool:
    if reset_interfaces is None:
        return False
    if ver < _RESET_SINCE:
        raise exception.NotAcceptable(
            f"The 'reset_interfaces' parameter needs API version "
            f"1.{_RESET_SINCE} or newer.")
    from ironic.api.controllers.v1 import utils as api_utils
    return bool(api_utils.parse_bool(reset_interfaces, "reset_interfaces"))


def check_update(values: dict, changed: set[str], reset: bool,
                 node_uuid: str) -> set[str]:
    """Check the patched node; return the interface fields to write.

    ``values`` holds the node's final document, ``changed`` the fields the
    patch altered. Nothing is checked when neither the driver nor an
    interface changed: an interface disabled since enrollment is reported
    by node validation, it does not block unrelated updates.
    """
    touched = changed & set(INTERFACE_COLUMNS)
    if reset and "driver" not in changed:
        raise exception.InvalidParameterValue(
            err="The reset_interfaces parameter can only be used when "
                "changing the node's driver.")
    if "driver" not in changed and not touched:
        return set()
    before = {f: values.get(f) for f in INTERFACE_COLUMNS}
    interface_catalog.live().update_node_interfaces(
        values, explicit=touched, reset=reset, node_info=f"node {node_uuid}")
    return touched | {f for f in INTERFACE_COLUMNS
                      if values.get(f) != before[f]}
