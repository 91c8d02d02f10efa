"""The interface vocabulary: the kinds of driver interface a node is
driven through, and the node field naming the one it uses of each kind.

This is the one list. Options (``enabled_<kind>_interfaces``), the node
table's columns, the node object's fields, the API's node and driver
views, the driver registry and the conductor's step collection all read
it from here. It imports nothing, so every floor may read it (options
included, which ``ironic.common`` itself reads).
"""

from __future__ import annotations

#: Every kind, in the order the API and the options list them.
TYPES = (
    "bios", "boot", "console", "deploy", "firmware", "inspect", "management",
    "network", "power", "raid", "rescue", "storage", "vendor",
)

#: A node cannot be driven without these; the others may be "no-*".
CORE_TYPES = ("boot", "deploy", "management", "power")

#: The kinds whose steps a deploy template or a runbook may name, in the
#: order the reference lists them when it refuses another.
STEP_TYPES = ("vendor", "power", "management", "firmware", "deploy",
              "bios", "raid")

#: {kind: the node field (and column) naming the interface of that kind}
FIELDS = {kind: f"{kind}_interface" for kind in TYPES}

#: The node fields naming an interface, in TYPES order.
COLUMNS = tuple(FIELDS.values())

#: The API microversion (minor of 1.x) from which a node shows the
#: interface of each kind.
NODE_FIELD_SINCE = {
    "bios": 40, "boot": 31, "console": 31, "deploy": 31, "firmware": 86,
    "inspect": 31, "management": 31, "network": 20, "power": 31,
    "raid": 31, "rescue": 38, "storage": 33, "vendor": 31,
}

#: The API microversion from which a hardware type's detail shows its
#: default and enabled interfaces of each kind.
DRIVER_DETAIL_SINCE = {
    **dict.fromkeys(TYPES, 30),
    "storage": 33, "rescue": 38, "bios": 40, "firmware": 86,
}
