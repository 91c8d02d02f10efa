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
    # No console stays the default: a console needs a port per node.
    supported_console_interfaces = [noop.NoConsole,
                                    ipmitool_console.IPMISocatConsole]
