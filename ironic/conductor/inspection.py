"""Verification (manage) and inspection."""

from __future__ import annotations

import datetime
import logging

from ironic.common import exception, states
from ironic.conductor import inspection_lookup, utils
from ironic.inspection_rules import engine as rules
from ironic.objects import node_inventory
from ironic.task import Task

LOG = logging.getLogger(__name__)


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def start_manage(task: Task) -> None:
    """The ``manage`` verb: an enrolled node is verified first (its BMC
    must answer); from elsewhere it simply becomes manageable."""
    if task.node.provision_state == states.ENROLL:
        task.process_event("manage", callback=do_node_verify,
                           call_args=(task,))
    else:
        task.process_event("manage")


def do_node_verify(task: Task) -> None:
    """Worker (node in VERIFYING): can we reach and drive the BMC?"""
    try:
        for kind in ("power", "management"):
            utils.interface(task, kind).validate(task)
        task.node.power_state = utils.interface(
            task, "power").get_power_state(task)
        cache_bios_settings(task)
        cache_firmware_components(task)
        task.process_event("done")
    except Exception as e:  # noqa: BLE001 - recorded on the node
        utils.fail(task, "fail", f"Failed to verify node: {e}")


def cache_bios_settings(task: Task) -> None:
    """Refresh the node's cached BIOS settings; a BMC that cannot tell
    does not stop the node (its cache simply stays as it was)."""
    bios = getattr(task.driver, "bios", None)
    if bios is None or not getattr(bios, "supported", True):
        return
    try:
        bios.cache_bios_settings(task)
    except Exception as e:  # noqa: BLE001 - a cache, never fatal
        LOG.warning("Node %s: could not cache BIOS settings: %s",
                    task.node.uuid, e)


def cache_firmware_components(task: Task) -> None:
    """Record the node's firmware versions; like the BIOS cache, never
    fatal."""
    firmware = getattr(task.driver, "firmware", None)
    if firmware is None or not getattr(firmware, "supported", True):
        return
    try:
        firmware.cache_firmware_components(task)
    except Exception as e:  # noqa: BLE001 - a record, never fatal
        LOG.warning("Node %s: could not record firmware versions: %s",
                    task.node.uuid, e)


def validate_inspect(task: Task) -> None:
    for kind in ("power", "inspect"):
        utils.interface(task, kind).validate(task)


def start_inspect(task: Task) -> None:
    """The ``inspect`` verb: checked now, inspected in a worker."""
    validate_inspect(task)
    task.process_event("inspect", callback=do_node_inspect,
                       call_args=(task,))


def do_node_inspect(task: Task) -> None:
    """Worker (node in INSPECTING)."""
    node = task.node
    node.inspection_started_at = _now()
    node.inspection_finished_at = None
    try:
        result = utils.interface(task, "inspect").inspect_hardware(task)
    except Exception as e:  # noqa: BLE001 - recorded on the node
        utils.fail(task, "fail", f"Failed to inspect hardware: {e}")
        return
    if result == states.INSPECTWAIT:
        task.process_event("wait")
        return
    node.inspection_finished_at = _now()
    task.process_event("done")


def start_continue(task: Task, inventory: dict, plugin_data: dict) -> None:
    """Inspection data from the ramdisk: processed in a worker when the
    node still waits for it."""
    if task.node.provision_state != states.INSPECTWAIT:
        # The API looked the node up in inspect wait; it moved on since.
        # Answer like a failed lookup.
        LOG.warning("Node %s: inspection data refused in state %s",
                    task.node.uuid, task.node.provision_state)
        raise exception.NotFound(inspection_lookup.LookupFailed().message)
    task.process_event("resume", callback=continue_inspection,
                       call_args=(task, inventory, plugin_data))


def continue_inspection(task: Task, inventory: dict,
                        plugin_data: dict) -> None:
    """Worker (node in INSPECTING after ``resume``): process the data the
    ramdisk posted and record it as the node's inventory."""
    node = task.node
    try:
        iface = utils.interface(task, "inspect")
        result = iface.continue_inspection(task, inventory, plugin_data)
        if result == states.INSPECTWAIT:
            task.process_event("wait")
            return
        # After the hooks, before the data is stored: rules may change
        # the plugin data, and a failing rule fails the inspection.
        rules.apply_rules(task, inventory, plugin_data)
        node_inventory.record(node.id, inventory, plugin_data)
    except Exception as e:  # noqa: BLE001 - recorded on the node
        utils.fail(task, "fail", f"Failed to process inspection data: {e}",
                   cleanup=clean_up)
        return
    node.inspection_finished_at = _now()
    task.process_event("done")
    LOG.info("Node %s: in-band inspection finished", node.uuid)


def clean_up(task: Task) -> None:
    """Undo what an asynchronous inspection set up (failure, timeout)."""
    iface = getattr(task.driver, "inspect", None)
    if iface is None:
        return
    try:
        iface.abort(task)
    except exception.UnsupportedDriverExtension:
        pass


def abort(task: Task) -> None:
    """Undo an inspection stopped in inspect wait (an abort or a
    timeout); the inspection ends now."""
    task.node.inspection_finished_at = _now()
    clean_up(task)
