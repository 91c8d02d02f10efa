"""Base classes of the hardware interfaces, and the per-node driver.

Every interface implementation subclasses one of the classes below and is
registered under ``ironic.hardware.interfaces.<interface_type>``. Instances
are singletons shared by all nodes: they keep no per-node state and receive
a ``task`` (node, lock, context) on every call. A hardware type lists the
classes it supports (``ironic.drivers.hardware_type``); the driver of a
node, ``BareDriver``, is a thin composition of the chosen singletons.

Steps, periodic tasks and vendor passthru methods are declared with the
decorators re-exported here (``clean_step``, ``periodic``, ``passthru``...).
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar

from ironic import interfaces
from ironic.common import exception, raid, states
from ironic.drivers import passthru as _passthru
from ironic.drivers import periodic as _periodic
from ironic.drivers import steps as _steps
from ironic.drivers.passthru import driver_passthru, passthru
from ironic.drivers.periodic import periodic
from ironic.drivers.steps import (
    clean_step,
    deploy_step,
    service_step,
    verify_step,
)
from ironic.task import Task

# The vocabulary, under the names drivers know it by.
INTERFACE_TYPES = interfaces.TYPES
CORE_INTERFACE_TYPES = interfaces.CORE_TYPES

__all__ = ["clean_step", "deploy_step", "service_step", "verify_step",
           "periodic", "passthru", "driver_passthru", "BareDriver",
           "INTERFACE_TYPES", "CORE_INTERFACE_TYPES"]


def _ignore_heartbeat(self: Any, task: Task, callback_url: str,
                      agent_version: str | None, **kwargs: Any) -> None:
    """A heartbeat of the ramdisk agent running on ``task.node``.

    The conductor has checked the agent token and recorded ``agent_url``,
    ``agent_version``, ``agent_last_heartbeat`` (and ``agent_verify_ca``)
    in ``driver_internal_info``, and holds the node's exclusive lock. It
    calls the deploy interface, or the rescue or inspect interface while
    the node is rescuing or inspecting. ``kwargs`` carries
    ``agent_verify_ca`` (a file path or None), ``agent_status`` and
    ``agent_status_message``. Interfaces driven by an agent override this
    to resume their steps; by default a heartbeat only keeps the record.
    """


def _ignores_heartbeat(self: Any, node: Any) -> bool:
    """Whether ``heartbeat`` would do nothing at all for ``node`` as it is
    now (its provision state, its record), beyond the conductor's record of
    the agent. The conductor then records the heartbeat without taking the
    node's lock or a worker.

    True here only while the class keeps the default ``heartbeat``; an
    interface that overrides ``heartbeat`` overrides this too, or every
    heartbeat takes the locked path.
    """
    return type(self).heartbeat is _ignore_heartbeat


class BaseInterface(abc.ABC):
    """What every interface offers: validation, properties and steps."""

    #: Which kind of interface this is (``power``, ``boot``...).
    interface_type: ClassVar[str] = "base"
    #: False for the "no-*" implementations that only refuse politely.
    supported: ClassVar[bool] = True
    #: Steps declared on the class: {kind: {method name: StepInfo}}.
    _declared_steps: ClassVar[dict[str, dict[str, _steps.StepInfo]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._declared_steps = _steps.collect(cls)

    @abc.abstractmethod
    def get_properties(self) -> dict[str, str]:
        """The ``driver_info`` keys this interface reads, with a help text.

        Required keys say "Required." in their text, as the API shows them.
        """

    @abc.abstractmethod
    def validate(self, task: Task) -> None:
        """Raise InvalidParameterValue/MissingParameterValue when the node
        is not configured well enough for this interface to work."""

    # --- steps --------------------------------------------------------------

    def _steps(self, kind: str) -> list[dict]:
        found = [info.as_dict(self.interface_type, kind)
                 for info in self._declared_steps[kind].values()]
        return sorted(found, key=_steps.sort_key)

    def get_deploy_steps(self, task: Task) -> list[dict]:
        return self._steps("deploy")

    def get_clean_steps(self, task: Task) -> list[dict]:
        return self._steps("clean")

    def get_service_steps(self, task: Task) -> list[dict]:
        return self._steps("service")

    def get_verify_steps(self, task: Task) -> list[dict]:
        return self._steps("verify")

    def step_argsinfo(self, kind: str, name: str) -> dict | None:
        info = self._declared_steps[kind].get(name)
        return info.argsinfo if info else None

    def _execute_step(self, kind: str, task: Task, step: dict) -> Any:
        name = step.get("step")
        if name not in self._declared_steps[kind]:
            raise exception.InvalidParameterValue(
                err=f"{self.interface_type} interface has no {kind} step "
                    f"{name!r}")
        return getattr(self, name)(task, **(step.get("args") or {}))

    def execute_deploy_step(self, task: Task, step: dict) -> Any:
        """Run a deploy step; a wait state returned means "asynchronous"."""
        return self._execute_step("deploy", task, step)

    def execute_clean_step(self, task: Task, step: dict) -> Any:
        return self._execute_step("clean", task, step)

    def execute_service_step(self, task: Task, step: dict) -> Any:
        return self._execute_step("service", task, step)

    def execute_verify_step(self, task: Task, step: dict) -> Any:
        return self._execute_step("verify", task, step)

    # --- periodic tasks -------------------------------------------------------

    def periodic_tasks(self) -> list:
        """[(bound method, PeriodicInfo)] for the conductor to schedule."""
        return _periodic.tasks_of(self)


class PowerInterface(BaseInterface):
    interface_type = "power"

    @abc.abstractmethod
    def get_power_state(self, task: Task) -> str:
        """The node's power state, as ``ironic.common.states`` names it."""

    @abc.abstractmethod
    def set_power_state(self, task: Task, power_state: str,
                        timeout: int | None = None) -> None:
        """Bring the node to ``power_state`` and return when it is there."""

    @abc.abstractmethod
    def reboot(self, task: Task, timeout: int | None = None) -> None:
        """Power cycle the node (it ends powered on)."""

    def get_supported_power_states(self, task: Task) -> list[str]:
        return [states.POWER_ON, states.POWER_OFF, states.REBOOT]

    def get_power_state_and_health(self, task: Task
                                   ) -> tuple[str, str | None]:
        """The power state and the hardware health, in one BMC query.

        Health is ``OK``, ``Warning``, ``Critical`` or None when the
        driver cannot tell; the power state sync stores it on the node.
        """
        return self.get_power_state(task), None


class ManagementInterface(BaseInterface):
    interface_type = "management"

    @abc.abstractmethod
    def get_supported_boot_devices(self, task: Task) -> list[str]:
        """Boot devices (``ironic.common.boot_devices``) the BMC can set."""

    @abc.abstractmethod
    def set_boot_device(self, task: Task, device: str,
                        persistent: bool = False) -> None:
        """Set the device the node boots from next (or always)."""

    @abc.abstractmethod
    def get_boot_device(self, task: Task) -> dict:
        """{"boot_device": device or None, "persistent": bool or None}."""

    def get_sensors_data(self, task: Task) -> dict:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="get_sensors_data")

    def inject_nmi(self, task: Task) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="inject_nmi")

    def get_supported_boot_modes(self, task: Task) -> list[str]:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="get_supported_boot_modes")

    def set_boot_mode(self, task: Task, mode: str) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="set_boot_mode")

    def get_boot_mode(self, task: Task) -> str | None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="get_boot_mode")

    def get_secure_boot_state(self, task: Task) -> bool:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="get_secure_boot_state")

    def set_secure_boot_state(self, task: Task, state: bool) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="set_secure_boot_state")

    def attach_virtual_media(self, task: Task, device_type: str,
                             image_url: str) -> None:
        """Insert the image at ``image_url`` into the node's virtual
        ``device_type`` (``cdrom``, ``floppy``, ``disk``) drive."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="attach_virtual_media")

    def detach_virtual_media(self, task: Task,
                             device_types: list[str] | None = None) -> None:
        """Eject the virtual media of ``device_types`` (all when None)."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="detach_virtual_media")

    def get_virtual_media(self, task: Task) -> list[dict]:
        """The node's virtual drives: ``[{"media_types": [...],
        "inserted": bool, "image": url or ""}, ...]``."""
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="get_virtual_media")

    # Indicators (LEDs): components from ironic.common.components, states
    # from ironic.common.indicator_states.

    def get_supported_indicators(self, task: Task,
                                 component: str | None = None
                                 ) -> dict[str, dict[str, list[str]]]:
        """{component: {indicator id: {"readonly": bool, "states":
        [states]}}} (one component when ``component`` is given); empty
        when there are none. A plain list of the states an operator may
        set is accepted in place of the inner document."""
        return {}

    def get_indicator_state(self, task: Task, component: str,
                            indicator: str) -> str:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="get_indicator_state")

    def set_indicator_state(self, task: Task, component: str,
                            indicator: str, state: str) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="set_indicator_state")


class BootInterface(BaseInterface):
    interface_type = "boot"
    #: Whether ``prepare_ramdisk`` can boot the agent for cleaning/deploy.
    capabilities: ClassVar[tuple[str, ...]] = ()

    @abc.abstractmethod
    def prepare_ramdisk(self, task: Task, ramdisk_params: dict) -> None:
        """Make the node boot the deploy/cleaning/rescue ramdisk next."""

    @abc.abstractmethod
    def clean_up_ramdisk(self, task: Task) -> None:
        """Remove what ``prepare_ramdisk`` created."""

    @abc.abstractmethod
    def prepare_instance(self, task: Task) -> None:
        """Make the node boot the deployed instance next."""

    @abc.abstractmethod
    def clean_up_instance(self, task: Task) -> None:
        """Remove what ``prepare_instance`` created."""

    def validate_inspection(self, task: Task) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="validate_inspection")

    def validate_rescue(self, task: Task) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="validate_rescue")


class DeployInterface(BaseInterface):
    interface_type = "deploy"

    @abc.abstractmethod
    def deploy(self, task: Task) -> str | None:
        """The deploy step of priority 100 (see seed 002)."""

    @abc.abstractmethod
    def tear_down(self, task: Task) -> str:
        """Undo a deployment; returns the state reached (``deleted``)."""

    @abc.abstractmethod
    def prepare(self, task: Task) -> None:
        """Get the node ready for the deploy steps."""

    @abc.abstractmethod
    def clean_up(self, task: Task) -> None:
        """Remove what ``prepare`` and the deploy steps left behind."""

    @abc.abstractmethod
    def take_over(self, task: Task) -> None:
        """Adopt a node another conductor was serving."""

    def prepare_cleaning(self, task: Task) -> str | None:
        """Get ready for cleaning; a wait state means "wait for agent"."""
        return None

    def tear_down_cleaning(self, task: Task) -> None:
        return None

    def prepare_service(self, task: Task) -> str | None:
        return None

    def tear_down_service(self, task: Task) -> None:
        return None

    heartbeat = _ignore_heartbeat
    ignores_heartbeat = _ignores_heartbeat


class InspectInterface(BaseInterface):
    interface_type = "inspect"

    @abc.abstractmethod
    def inspect_hardware(self, task: Task) -> str | None:
        """Inspect; returns the state reached or a wait state."""

    def abort(self, task: Task) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="abort")

    heartbeat = _ignore_heartbeat
    ignores_heartbeat = _ignores_heartbeat

    def continue_inspection(self, task: Task, inventory: dict,
                            plugin_data: dict) -> str | None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="continue_inspection")


class ConsoleInterface(BaseInterface):
    interface_type = "console"

    @abc.abstractmethod
    def start_console(self, task: Task) -> None: ...

    @abc.abstractmethod
    def stop_console(self, task: Task) -> None: ...

    @abc.abstractmethod
    def get_console(self, task: Task) -> dict:
        """{"type": ..., "url": ...} as the console API shows it."""

    def is_console_running(self, task: Task) -> bool:
        """Whether an enabled console still serves; consoles run by a
        process say False once it died, so enabling starts it again."""
        return True

    def stop_local_console(self, task: Task) -> None:
        """End the console process this conductor runs for a node that
        another conductor now owns (and serves the console from); only the
        local process, nothing on the BMC. Nothing to do by default."""


class RescueInterface(BaseInterface):
    interface_type = "rescue"

    @abc.abstractmethod
    def rescue(self, task: Task) -> str:
        """Boot the rescue ramdisk; returns the state reached or a wait."""

    @abc.abstractmethod
    def unrescue(self, task: Task) -> str:
        """Boot the instance again; returns the state reached."""

    def clean_up(self, task: Task) -> None:
        return None

    heartbeat = _ignore_heartbeat
    ignores_heartbeat = _ignores_heartbeat


class RAIDInterface(BaseInterface):
    interface_type = "raid"

    @abc.abstractmethod
    def create_configuration(self, task: Task, create_root_volume: bool = True,
                             create_nonroot_volumes: bool = True,
                             delete_existing: bool = False) -> Any: ...

    @abc.abstractmethod
    def delete_configuration(self, task: Task) -> Any: ...

    #: JSON schema of the configurations this interface accepts; an
    #: implementation with extra logical disk keys gives its own.
    raid_schema: ClassVar[dict | None] = None

    def validate_raid_config(self, task: Task, raid_config: dict) -> None:
        """InvalidParameterValue unless ``raid_config`` fits the schema."""
        raid.validate_configuration(raid_config, self.raid_schema)

    def get_logical_disk_properties(self) -> dict[str, str]:
        """{logical disk property: description} (the drivers API)."""
        return raid.logical_disk_properties(self.raid_schema)


class BIOSInterface(BaseInterface):
    interface_type = "bios"

    @abc.abstractmethod
    def apply_configuration(self, task: Task, settings: list[dict]) -> Any:
        """Apply [{"name": ..., "value": ...}] settings."""

    @abc.abstractmethod
    def factory_reset(self, task: Task) -> Any: ...

    @abc.abstractmethod
    def cache_bios_settings(self, task: Task) -> None: ...


class FirmwareInterface(BaseInterface):
    interface_type = "firmware"

    @abc.abstractmethod
    def update(self, task: Task, settings: list[dict]) -> Any:
        """Apply [{"component": ..., "url": ...}] updates."""

    @abc.abstractmethod
    def cache_firmware_components(self, task: Task) -> None: ...


class NetworkInterface(BaseInterface):
    interface_type = "network"

    def get_properties(self) -> dict[str, str]:
        return {}

    @abc.abstractmethod
    def add_provisioning_network(self, task: Task) -> None: ...

    @abc.abstractmethod
    def remove_provisioning_network(self, task: Task) -> None: ...

    @abc.abstractmethod
    def configure_tenant_networks(self, task: Task) -> None: ...

    @abc.abstractmethod
    def unconfigure_tenant_networks(self, task: Task) -> None: ...

    @abc.abstractmethod
    def add_cleaning_network(self, task: Task) -> None: ...

    @abc.abstractmethod
    def remove_cleaning_network(self, task: Task) -> None: ...

    @abc.abstractmethod
    def vif_list(self, task: Task) -> list[dict]:
        """[{"id": vif_id}] of the VIFs attached to the node."""

    @abc.abstractmethod
    def vif_attach(self, task: Task, vif_info: dict) -> None:
        """Attach ``vif_info["id"]`` (optionally to ``port_uuid`` or
        ``portgroup_uuid``); VifAlreadyAttached, NoFreePhysicalPorts."""

    @abc.abstractmethod
    def vif_detach(self, task: Task, vif_id: str) -> None:
        """Detach ``vif_id``; VifNotAttached when it is not attached."""

    def add_rescuing_network(self, task: Task) -> None:
        return None

    def remove_rescuing_network(self, task: Task) -> None:
        return None

    def add_inspection_network(self, task: Task) -> None:
        return None

    def remove_inspection_network(self, task: Task) -> None:
        return None

    def add_servicing_network(self, task: Task) -> None:
        return None

    def remove_servicing_network(self, task: Task) -> None:
        return None

    def need_power_on(self, task: Task) -> bool:
        return False


class StorageInterface(BaseInterface):
    interface_type = "storage"

    @abc.abstractmethod
    def attach_volumes(self, task: Task) -> None: ...

    @abc.abstractmethod
    def detach_volumes(self, task: Task) -> None: ...

    @abc.abstractmethod
    def should_write_image(self, task: Task) -> bool: ...


class VendorInterface(BaseInterface):
    """Vendor passthru methods, declared with ``@passthru``."""

    interface_type = "vendor"
    #: {public method name: (attribute, Route)}, filled per class.
    vendor_routes: ClassVar[dict] = {}
    driver_routes: ClassVar[dict] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.vendor_routes = _passthru.collect(cls)
        cls.driver_routes = _passthru.collect(cls, driver_level=True)

    def validate(self, task: Task, method: str | None = None,
                 http_method: str | None = None, **kwargs: Any) -> None:
        """Check the node, or a passthru call's arguments when ``method``."""

    def driver_validate(self, method: str, http_method: str | None = None,
                        **kwargs: Any) -> None:
        """Check a driver-level passthru call's arguments."""


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
