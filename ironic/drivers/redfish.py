"""The ``redfish`` hardware type: machines driven through Redfish.

Power, management and out-of-band inspection go through sushy; virtual
media boot, BIOS, RAID and firmware follow. Boot and deploy come from the
generic hardware type.
"""

from __future__ import annotations

from ironic.drivers import generic
from ironic.drivers.modules import (
    noop,
    redfish_bios,
    redfish_boot,
    redfish_firmware,
    redfish_inspect,
    redfish_management,
    redfish_power,
    redfish_raid,
    redfish_vendor,
)
from ironic.drivers.modules.inspector import agent as agent_inspect


class RedfishHardware(generic.GenericHardware):
    """Redfish-compatible hardware."""

    supported_boot_interfaces = [
        *generic.GenericHardware.supported_boot_interfaces,
        redfish_boot.RedfishVirtualMediaBoot]
    supported_power_interfaces = [redfish_power.RedfishPower]
    supported_management_interfaces = [redfish_management.RedfishManagement]
    supported_bios_interfaces = [redfish_bios.RedfishBIOS, noop.NoBIOS]
    supported_firmware_interfaces = [redfish_firmware.RedfishFirmware,
                                     noop.NoFirmware]
    supported_raid_interfaces = [redfish_raid.RedfishRAID, noop.NoRAID]
    supported_vendor_interfaces = [redfish_vendor.RedfishVendorPassthru,
                                   noop.NoVendor]
    supported_inspect_interfaces = [redfish_inspect.RedfishInspect,
                                    noop.NoInspect, agent_inspect.AgentInspect]
