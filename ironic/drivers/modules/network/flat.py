"""The ``flat`` network interface: one network shared by every node.

Nodes stay cabled to the same (provider) network through provisioning,
cleaning and their tenant's use, so there is nothing to switch. What the
interface adds over ``noop`` is VIF bookkeeping: the VIF API records which
port or port group each attached VIF uses (``vifs``), as the public
``flat`` interface does. This service has no Neutron client, so the Neutron
port of a VIF is not updated with the physical port's MAC address; an
operator relying on that pairs VIFs to ports by the recorded mapping.
"""

from __future__ import annotations

from ironic.drivers.modules.network import noop, vifs
from ironic.task import Task


class FlatNetwork(noop.NoopNetwork):

    def vif_list(self, task: Task) -> list[dict]:
        return vifs.list_vifs(task)

    def vif_attach(self, task: Task, vif_info: dict) -> None:
        vifs.attach(task, vif_info)

    def vif_detach(self, task: Task, vif_id: str) -> None:
        vifs.detach(task, vif_id)
