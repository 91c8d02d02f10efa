"""The ``ipmi`` hardware type: machines driven through IPMI.

Power, management, vendor passthru and the serial console go through
``ipmitool``; boot and deploy come from the generic hardware type.
"""

from __future__ import annotations

from ironic.drivers import generic
from ironic.drivers.modules import (
    ipmitool,
    ipmitool_console,
    noop,
    noop_mgmt,
)


class IPMIHardware(generic.GenericHardware):
    """IPMI-compatible hardware (power and management via ipmitool)."""

    supported_power_interfaces = [ipmitool.IPMIPower]
    supported_management_interfaces = [ipmitool.IPMIManagement,
                                       noop_mgmt.NoopManagement]
    supported_vendor_interfaces = [ipmitool.VendorPassthru, noop.NoVendor]
    # As in the reference service, the socat console is preferred once an
    # operator enables it (it is not enabled by default).
    supported_console_interfaces = [ipmitool_console.IPMISocatConsole,
                                    noop.NoConsole]
