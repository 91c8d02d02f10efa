"""Generic hardware types: the base of vendor ones, and manual management.

The lists follow the public service's order of preference, so that a node
created without naming its interfaces gets the same ones here as there
(the first enabled one in each list). The boot and deploy implementations
every vendor shares (ipxe, pxe, direct, ramdisk, agent inspection...) are
listed here; vendor hardware types add their power and management
interfaces on top.

``fake`` boot and deploy come last in their lists, after everything the
public service offers: they are never the default where a real
implementation is enabled, and they let the BMC tests drive a node's whole
lifecycle with real power and boot devices but nothing to write.
"""

from __future__ import annotations

from ironic.drivers import hardware_type
from ironic.drivers.modules import (
    agent,
    agent_raid,
    agent_rescue,
    fake,
    ipxe,
    noop,
    noop_mgmt,
    pxe,
    ramdisk,
)
from ironic.drivers.modules.inspector import agent as agent_inspect
from ironic.drivers.modules.network import flat
from ironic.drivers.modules.network import noop as noop_net


class GenericHardware(hardware_type.AbstractHardwareType):
    """Interfaces that work with any BMC."""

    supported_boot_interfaces = [ipxe.iPXEBoot, pxe.PXEBoot,
                                 ipxe.iPXEHttpBoot, pxe.HttpBoot,
                                 fake.FakeBoot]
    supported_deploy_interfaces = [agent.AgentDeploy, ramdisk.RamdiskDeploy,
                                   fake.FakeDeploy]
    # In-band inspection is the default wherever it is enabled.
    supported_inspect_interfaces = [agent_inspect.AgentInspect,
                                    noop.NoInspect]
    supported_network_interfaces = [flat.FlatNetwork, noop_net.NoopNetwork]
    # RAID and rescue through the agent need ramdisk features not every
    # image has: "no-*" stays the default even when "agent" is enabled.
    supported_raid_interfaces = [noop.NoRAID, agent_raid.AgentRAID]
    supported_rescue_interfaces = [noop.NoRescue, agent_rescue.AgentRescue]


class ManualManagementHardware(GenericHardware):
    """Hardware whose boot order and power are handled by a person.

    Boot devices cannot be set remotely (``noop`` management) and power
    actions only record the requested state (``fake`` power): the operator
    is expected to power the machine as asked.
    """

    supported_management_interfaces = [noop_mgmt.NoopManagement,
                                       fake.FakeManagement]
    supported_power_interfaces = [fake.FakePower]
    supported_vendor_interfaces = [noop.NoVendor]
