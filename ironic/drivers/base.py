"""What a driver author imports: the interface bases and the node's driver.

Every interface implementation subclasses one of the bases re-exported
here and is registered under ``ironic.hardware.interfaces.<interface_type>``.
Instances are singletons shared by all nodes: they keep no per-node state
and receive a ``task`` (node, lock, context) on every call. A hardware type
lists the classes it supports (``ironic.drivers.hardware_type``); the
driver of a node, ``BareDriver`` below, is a thin composition of the chosen
singletons.

The bases live by what they do: ``interface`` (what all share),
``machine_interfaces`` (power, management, console, BIOS, firmware, RAID),
``provisioning_interfaces`` (boot, deploy, inspect, rescue),
``attachment_interfaces`` (network, storage) and ``passthru`` (vendor).
This module is the import path drivers, in tree and out, rely on.

Steps, periodic tasks and vendor passthru methods are declared with the
decorators re-exported here (``clean_step``, ``periodic``, ``passthru``...).
"""

from __future__ import annotations

from typing import Any

from ironic import interfaces
from ironic.drivers.attachment_interfaces import (
    NetworkInterface,
    StorageInterface,
)
from ironic.drivers.interface import BaseInterface
from ironic.drivers.machine_interfaces import (
    BIOSInterface,
    ConsoleInterface,
    FirmwareInterface,
    ManagementInterface,
    PowerInterface,
    RAIDInterface,
)
from ironic.drivers.passthru import VendorInterface, driver_passthru, passthru
from ironic.drivers.periodic import periodic
from ironic.drivers.provisioning_interfaces import (
    BootInterface,
    DeployInterface,
    InspectInterface,
    RescueInterface,
)
from ironic.drivers.steps import (
    clean_step,
    deploy_step,
    service_step,
    verify_step,
)

# The vocabulary, under the names drivers know it by.
INTERFACE_TYPES = interfaces.TYPES
CORE_INTERFACE_TYPES = interfaces.CORE_TYPES

__all__ = ["clean_step", "deploy_step", "service_step", "verify_step",
           "periodic", "passthru", "driver_passthru", "BareDriver",
           "INTERFACE_TYPES", "CORE_INTERFACE_TYPES", "INTERFACE_BASES",
           "BaseInterface", "BIOSInterface", "BootInterface",
           "ConsoleInterface", "DeployInterface", "FirmwareInterface",
           "InspectInterface", "ManagementInterface", "NetworkInterface",
           "PowerInterface", "RAIDInterface", "RescueInterface",
           "StorageInterface", "VendorInterface"]


INTERFACE_BASES: dict[str, type[BaseInterface]] = {
    cls.interface_type: cls for cls in (
        BIOSInterface, BootInterface, ConsoleInterface, DeployInterface,
        FirmwareInterface, InspectInterface, ManagementInterface,
        NetworkInterface, PowerInterface, RAIDInterface, RescueInterface,
        StorageInterface, VendorInterface)
}


class BareDriver:
    """The driver of one node: which singleton serves each interface.

    An attribute is None when the node names an interface this conductor
    does not have enabled; ``disabled`` then says why, for node validation.
    """

    __slots__ = ("hardware_type", "disabled", *INTERFACE_TYPES)

    def __init__(self, hardware_type: Any,
                 interfaces: dict[str, BaseInterface | None],
                 disabled: dict[str, str] | None = None) -> None:
        self.hardware_type = hardware_type
        self.disabled = dict(disabled or {})
        for kind in INTERFACE_TYPES:
            setattr(self, kind, interfaces.get(kind))

    @property
    def all_interfaces(self) -> tuple[str, ...]:
        return INTERFACE_TYPES

    @property
    def core_interfaces(self) -> tuple[str, ...]:
        return CORE_INTERFACE_TYPES

    @property
    def optional_interfaces(self) -> tuple[str, ...]:
        return tuple(k for k in INTERFACE_TYPES
                     if k not in CORE_INTERFACE_TYPES)

    def get_properties(self) -> dict[str, str]:
        props: dict[str, str] = {}
        for kind in INTERFACE_TYPES:
            iface = getattr(self, kind)
            if iface is not None:
                props.update(iface.get_properties())
        return props
