"""Tell the PXE filters (``ironic-pxe-filter``) at once when a node starts
or stops in-band inspection.

Each filter synchronises with the database every
``[pxe_filter]sync_period`` seconds anyway; this fanout cast on the topic
``ironic.pxe_filter`` lets it open (or close) the node's MAC addresses
within a second, before the node has finished powering on. With
``rpc_transport = none`` there is nobody to tell: the periodic
synchronisation alone applies.
"""

from __future__ import annotations

import logging

from ironic.common import rpc
from ironic.conf import CONF
from ironic.task import Task

LOG = logging.getLogger(__name__)

_INSPECTION = frozenset({"inspecting", "inspect wait"})


def state_changed(task: Task, old: str, new: str) -> None:
    """Called after every provision state change is saved."""
    was, now = old in _INSPECTION, new in _INSPECTION
    if was == now:
        return
    node = task.node
    if node.inspect_interface not in \
            CONF.pxe_filter.supported_inspect_interfaces:
        return
    macs = sorted({p.address.lower() for p in task.ports if p.address})
    kwargs = {"allow": macs if now else [], "deny": [] if now else macs}
    try:
        sent = rpc.get_transport().fanout(
            rpc.PXE_FILTER_TOPIC, "update_pxe_filters", {}, kwargs, "1.0")
    except Exception as e:  # noqa: BLE001 - the periodic sync catches up
        LOG.warning("Node %s: could not tell the PXE filters to %s its "
                    "MAC addresses: %s", node.uuid,
                    "allow" if now else "deny", e)
        return
    if sent:
        LOG.debug("Node %s: PXE filters told to %s %s", node.uuid,
                  "allow" if now else "deny", ", ".join(macs) or "no MAC")
