"""The interfaces for what a node is attached to: networks and volumes."""

from __future__ import annotations

import abc

from ironic.drivers.interface import BaseInterface
from ironic.task import Task


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
