"""What the host directory should say, computed from the database.

A MAC address may boot from the filtered dnsmasq while its node is in
inspection (``inspecting`` or ``inspect wait``) with an inspect interface
of ``[pxe_filter]supported_inspect_interfaces``; every other known MAC is
ignored. Unknown machines are answered while auto-discovery is on, or
while any such node is in inspection (it may have no port yet, as in
unmanaged inspection) - Ironic 39's rule.
"""

from __future__ import annotations

import dataclasses
from typing import Iterable

from ironic.common import states
from ironic.objects import port
from ironic.pxe_filter import hostsdir

INSPECTION_STATES = (states.INSPECTING, states.INSPECTWAIT)


@dataclasses.dataclass
class Desired:
    allow: set[str]
    deny: set[str]
    allow_unknown: bool
    #: Addresses in the database no dnsmasq host line can name.
    malformed: list[str]


def decide(rows: Iterable[tuple], interfaces: Iterable[str],
           discovery: bool) -> Desired:
    """From ``(address, provision_state, inspect_interface)`` rows."""
    supported = set(interfaces)
    allow: set[str] = set()
    deny: set[str] = set()
    malformed: list[str] = []
    inspecting = False
    for address, state, interface in rows:
        booting = state in INSPECTION_STATES and interface in supported
        inspecting = inspecting or booting
        if address is None:
            continue
        mac = address.strip().lower().replace("-", ":")
        if not hostsdir.is_mac(mac):
            malformed.append(address)
        else:
            (allow if booting else deny).add(mac)
    # A MAC shared by two nodes (it should not be) is denied if either
    # is not inspecting.
    allow -= deny
    return Desired(allow, deny, discovery or inspecting, malformed)


def rows_from_database() -> list[tuple]:
    """Every port with its node's state and inspect interface, one query."""
    return port.Port.boot_filter_rows(INSPECTION_STATES)
