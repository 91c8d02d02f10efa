"""Auto-discovery: enroll the machine behind inspection data that matches
no node (``[auto_discovery]enabled``).

The node is created in ``enroll`` with ``[auto_discovery]driver``, marked
``auto_discovered``, together with a port for the MAC address the
machine booted from (or its lowest one) in one transaction. That port
makes the machine known at once: a second post of the same machine - a
retry, or ten at the same moment on several conductors - finds the MAC
taken and is answered like any failed lookup, so exactly one node is
created; and the PXE filter, seeing a known MAC of a node not in
inspection, stops answering the machine.

The data is then processed in a worker holding the node's lock: the
configured inspection hooks and the inspection rules run on it (with
``auto_discovered: true`` in the plugin data, Ironic 39's flag, so rules
can tell discovered nodes apart and fill their ``driver_info``), and the
inventory is stored. The node stays in ``enroll``; a failure is recorded
in ``last_error`` and the node is kept.
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

from ironic import hash_ring
from ironic.common import agent_token, exception, states, utils
from ironic.conductor import inspection_lookup, ramdisk, task_manager
from ironic.conf import CONF
from ironic.drivers.modules.inspector.hooks import base as hooks
from ironic.inspection_rules import engine as rules
from ironic.objects import node_inventory
from ironic.objects.node import Node
from ironic.task import Task

LOG = logging.getLogger(__name__)

FLAG = "auto_discovered"


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def boot_mac(inventory: dict) -> str | None:
    """The MAC the machine booted from, else its lowest valid one."""
    macs = sorted({utils.normalize_mac(i["mac_address"])
                   for i in inventory.get("interfaces") or ()
                   if isinstance(i, dict)
                   and utils.is_valid_mac(i.get("mac_address"))})
    pxe = (inventory.get("boot") or {}).get("pxe_interface")
    if isinstance(pxe, str) and utils.is_valid_mac(pxe) and \
            utils.normalize_mac(pxe) in macs:
        return utils.normalize_mac(pxe)
    return macs[0] if macs else None


def _refused() -> exception.NotFound:
    # What a failed lookup answers (a plain NotFound: it travels over RPC).
    return exception.NotFound(inspection_lookup.LookupFailed().message)


def _node_values(node_uuid: str) -> dict:
    values = {"uuid": node_uuid, "driver": CONF.auto_discovery.driver,
              "provision_state": states.ENROLL, FLAG: True,
              "conductor_group": "", "driver_info": {}, "properties": {}}
    hash_ring.live_catalog().update_node_interfaces(values, explicit=set())
    return values


def create_node(node_uuid: str, inventory: dict) -> None:
    """The node and its boot port; NotFound (as a failed lookup) when the
    machine cannot be enrolled, or another post enrolled it first."""
    if not CONF.auto_discovery.enabled or not CONF.auto_discovery.driver:
        LOG.error("Auto-discovery needs [auto_discovery]enabled and "
                  "[auto_discovery]driver")
        raise _refused()
    mac = boot_mac(inventory)
    if mac is None:
        LOG.warning("Auto-discovery: the inventory has no valid MAC "
                    "address; not enrolled")
        raise _refused()
    try:
        Node.create_with_port(_node_values(node_uuid),
                              {"address": mac, "pxe_enabled": True})
    except exception.MACAlreadyExists:
        LOG.info("Auto-discovery: the machine with MAC %s was enrolled by "
                 "a concurrent post", mac)
        raise _refused() from None
    LOG.info("Auto-discovery: enrolled node %s (driver %s, MAC %s)",
             node_uuid, CONF.auto_discovery.driver, mac)


def enroll(context: Any, host: str, pool: Any, node_uuid: str,
           inventory: dict, plugin_data: dict, issue_token: bool) -> dict:
    """Create the node, then process the data in a worker. Returns the
    lookup fields and the agent token (when asked for)."""
    create_node(node_uuid, inventory)
    plugin_data = dict(plugin_data or {}, **{FLAG: True})
    with task_manager.acquire(context, node_uuid, purpose="auto-discovery",
                              host=host, pool=pool) as task:
        token = agent_token.issue(task.node) if issue_token else None
        task.node.inspection_started_at = _now()
        task.node.save()
        task.spawn_after(process, task, inventory, plugin_data)
        node = task.node
        fields = {name: getattr(node, name)
                  for name in ramdisk.LOOKUP_FIELDS}
    return {"node": fields, "agent_token": token}


def process(task: Task, inventory: dict, plugin_data: dict) -> None:
    """Worker: hooks, rules, inventory; the node stays in enroll."""
    node = task.node
    try:
        hooks.run(task, inventory, plugin_data, hooks.load())
        rules.apply_rules(task, inventory, plugin_data)
        node_inventory.record(node.id, inventory, plugin_data)
    except Exception as e:  # noqa: BLE001 - recorded on the node
        LOG.exception("Node %s: processing the discovered machine's data "
                      "failed", node.uuid)
        node.last_error = f"Failed to process inspection data: {e}"
        node.save()
        return
    node.inspection_finished_at = _now()
    node.save()
    LOG.info("Node %s: discovered machine's inspection data processed",
             node.uuid)
