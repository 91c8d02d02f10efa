"""The ``redfish`` hardware type: machines driven through Redfish.

Power, management and out-of-band inspection go through sushy; virtual
media boot, BIOS, RAID and firmware follow. Boot and deploy come from the
generic hardware type.
"""

from __future__ import annotations

from ironic.drivers import generic
from ironic.drivers.modules import (
    fake,
    noop,
    noop_mgmt,
    redfish_bios,
    redfish_boot,
    redfish_firmware,
    redfish_inspect,
    redfish_management,
    redfish_power,
    redfish_raid,
    redfish_vendor,
)


class RedfishHardware(generic.GenericHardware):
    """Redfish-compatible hardware."""

    # Virtual media after network boot: not every BMC implements it well.
    # fake stays last (see generic).
    supported_boot_interfaces = [
        *(c for c in generic.GenericHardware.supported_boot_interfaces
          if c is not fake.FakeBoot),
        redfish_boot.RedfishVirtualMediaBoot, redfish_boot.RedfishHttpsBoot,
        fake.FakeBoot]
    supported_power_interfaces = [redfish_power.RedfishPower]
    supported_management_interfaces = [redfish_management.RedfishManagement,
                                       noop_mgmt.NoopManagement]
    supported_bios_interfaces = [redfish_bios.RedfishBIOS, noop.NoBIOS]
    supported_firmware_interfaces = [redfish_firmware.RedfishFirmware,
                                     noop.NoFirmware]
    supported_raid_interfaces = [redfish_raid.RedfishRAID, noop.NoRAID,
                                 *generic.GenericHardware
                                 .supported_raid_interfaces[1:]]
    supported_vendor_interfaces = [redfish_vendor.RedfishVendorPassthru,
                                   noop.NoVendor]
    supported_inspect_interfaces = [
        redfish_inspect.RedfishInspect,
        *generic.GenericHardware.supported_inspect_interfaces]
