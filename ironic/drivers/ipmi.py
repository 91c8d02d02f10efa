"""The ``ipmi`` hardware type: machines driven through IPMI.

Power, management and vendor passthru go through ``ipmitool``; boot and
deploy come from the generic hardware type.
"""

from __future__ import annotations

from ironic.drivers import generic
from ironic.drivers.modules import ipmitool, noop, noop_mgmt


class IPMIHardware(generic.GenericHardware):
    """IPMI-compatible hardware (power and management via ipmitool)."""

    supported_power_interfaces = [ipmitool.IPMIPower]
    supported_management_interfaces = [ipmitool.IPMIManagement,
                                       noop_mgmt.NoopManagement]
    supported_vendor_interfaces = [ipmitool.VendorPassthru, noop.NoVendor]
