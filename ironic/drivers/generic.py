"""Generic hardware types: the base of vendor ones, and manual management.

The boot and deploy implementations every vendor shares (pxe, ipxe, direct,
ramdisk, agent inspection...) are listed here once they exist; vendor
hardware types add their power and management interfaces on top.
"""

from __future__ import annotations

from ironic.drivers import hardware_type
from ironic.drivers.modules import fake, noop, noop_mgmt
from ironic.drivers.modules.inspector import agent as agent_inspect
from ironic.drivers.modules.network import flat
from ironic.drivers.modules.network import noop as noop_net


class GenericHardware(hardware_type.AbstractHardwareType):
    """Interfaces that work with any BMC (listed as they are built).

    Until network boot (pxe, ipxe) and agent deploy (direct) exist, the
    fake boot and deploy interfaces are the only ones: they let a node run
    its whole lifecycle while power and boot devices are real.
    """

    supported_boot_interfaces = [fake.FakeBoot]
    supported_deploy_interfaces = [fake.FakeDeploy]
    supported_inspect_interfaces = [noop.NoInspect, agent_inspect.AgentInspect]
    supported_network_interfaces = [flat.FlatNetwork, noop_net.NoopNetwork]


class ManualManagementHardware(GenericHardware):
    """Hardware whose boot order and power are handled by a person.

    Boot devices cannot be set remotely (``noop`` management) and power
    actions only record the requested state (``fake`` power): the operator
    is expected to power the machine as asked.
    """

    supported_management_interfaces = [noop_mgmt.NoopManagement]
    supported_power_interfaces = [fake.FakePower]
