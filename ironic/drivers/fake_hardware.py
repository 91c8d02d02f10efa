"""The ``fake-hardware`` hardware type: every lifecycle without hardware."""

from __future__ import annotations

from ironic.drivers import generic
from ironic.drivers.modules import fake, noop
from ironic.drivers.modules.inspector import agent as agent_inspect


class FakeHardware(generic.GenericHardware):
    """Fake interfaces first, and any other enabled interface accepted.

    Like the public one, it lets a node pair a fake interface with a real
    one (for example ``fake`` power with ``redfish`` management) to test
    one interface at a time; the lists below only decide the defaults.
    """

    accepts_any_enabled = True

    supported_boot_interfaces = [fake.FakeBoot]
    supported_deploy_interfaces = [fake.FakeDeploy]
    supported_management_interfaces = [fake.FakeManagement]
    supported_power_interfaces = [fake.FakePower]
    supported_bios_interfaces = [fake.FakeBIOS, noop.NoBIOS]
    supported_console_interfaces = [fake.FakeConsole, noop.NoConsole]
    supported_firmware_interfaces = [fake.FakeFirmware, noop.NoFirmware]
    supported_inspect_interfaces = [fake.FakeInspect, noop.NoInspect,
                                    agent_inspect.AgentInspect]
    supported_raid_interfaces = [fake.FakeRAID, noop.NoRAID]
    supported_rescue_interfaces = [fake.FakeRescue, noop.NoRescue]
    supported_vendor_interfaces = [fake.FakeVendor, noop.NoVendor]
