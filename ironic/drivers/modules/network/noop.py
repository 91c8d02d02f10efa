"""The ``noop`` network interface: the node's networking is static.

Nothing is switched between provisioning, cleaning and tenant networks; the
operator wires the node once. Every hook therefore succeeds doing nothing,
VIF requests included: attaching and detaching are accepted and nothing is
recorded, so the node never lists a VIF (as the public ``noop`` does).
"""

from __future__ import annotations

from ironic.drivers import base
from ironic.task import Task


class NoopNetwork(base.NetworkInterface):

    def validate(self, task: Task) -> None:
        return None

    def add_provisioning_network(self, task: Task) -> None:
        return None

    def remove_provisioning_network(self, task: Task) -> None:
        return None

    def configure_tenant_networks(self, task: Task) -> None:
        return None

    def unconfigure_tenant_networks(self, task: Task) -> None:
        return None

    def add_cleaning_network(self, task: Task) -> None:
        return None

    def remove_cleaning_network(self, task: Task) -> None:
        return None

    def vif_list(self, task: Task) -> list[dict]:
        return []

    def vif_attach(self, task: Task, vif_info: dict) -> None:
        return None

    def vif_detach(self, task: Task, vif_id: str) -> None:
        return None
