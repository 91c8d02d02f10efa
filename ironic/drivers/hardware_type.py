"""The base of every hardware type.

A hardware type is a declaration: for each interface type, the interface
classes it supports, in order of preference. It holds no state and does no
work; ``ironic.driver_registry`` intersects these lists with what the
operator enabled and composes a ``BareDriver`` per node.
"""

from __future__ import annotations

from typing import ClassVar

from ironic.drivers import base
from ironic.drivers.modules import noop
from ironic.drivers.modules.network import noop as noop_net
from ironic.drivers.modules.storage import noop as noop_storage

Classes = list[type[base.BaseInterface]]


class AbstractHardwareType:
    """Optional interfaces default to their "no-*" implementation.

    Subclasses override ``supported_<type>_interfaces`` (class attributes or
    properties) to list what they support; the four core types (boot,
    deploy, management, power) have no default and must be listed.
    """

    #: fake-hardware accepts any enabled interface, not only those listed:
    #: its lists then only decide the defaults.
    accepts_any_enabled: ClassVar[bool] = False

    supported_boot_interfaces: Classes = []
    supported_deploy_interfaces: Classes = []
    supported_management_interfaces: Classes = []
    supported_power_interfaces: Classes = []
    supported_bios_interfaces: Classes = [noop.NoBIOS]
    supported_console_interfaces: Classes = [noop.NoConsole]
    supported_firmware_interfaces: Classes = [noop.NoFirmware]
    supported_inspect_interfaces: Classes = [noop.NoInspect]
    supported_network_interfaces: Classes = [noop_net.NoopNetwork]
    supported_raid_interfaces: Classes = [noop.NoRAID]
    supported_rescue_interfaces: Classes = [noop.NoRescue]
    supported_storage_interfaces: Classes = [noop_storage.NoopStorage]
    supported_vendor_interfaces: Classes = [noop.NoVendor]

    def supported(self, interface_type: str) -> Classes:
        return list(getattr(self, f"supported_{interface_type}_interfaces"))

    def get_properties(self) -> dict[str, str]:
        """Hardware-type wide driver_info keys (usually none)."""
        return {}
