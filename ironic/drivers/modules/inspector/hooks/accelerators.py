"""``accelerators``: the ``accelerators`` property from the PCI devices.

Devices listed in ``[inspector]known_accelerators`` (a YAML file with a
``pci_devices`` list of ``vendor_id``, ``device_id`` and free-form fields
such as ``type`` and ``device_info``; by default the list shipped here)
are recorded, each with its ``pci_address``. A node with PCI data but no
known device gets an empty list.
"""

from __future__ import annotations

import logging
import os

import yaml

from ironic.common import exception
from ironic.conf import CONF
from ironic.drivers.modules.inspector.hooks import base, pci_info
from ironic.task import Task

LOG = logging.getLogger(__name__)

SHIPPED = os.path.join(os.path.dirname(__file__), "known_accelerators.yaml")


def _load(path: str) -> dict[tuple[str, str], dict]:
    """{(vendor_id, device_id): description}; DriverLoadError when the
    file cannot be used."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        raise _bad(path, f"cannot be read: {e}") from e
    entries = doc.get("pci_devices") if isinstance(doc, dict) else None
    if not isinstance(entries, list):
        raise _bad(path, "has no 'pci_devices' list")
    known = {}
    for entry in entries:
        if not isinstance(entry, dict) or not entry.get("vendor_id") \
                or not entry.get("device_id"):
            raise _bad(path, f"entry {entry!r} lacks vendor_id or "
                             f"device_id")
        key = (str(entry["vendor_id"]).lower(),
               str(entry["device_id"]).lower())
        known[key] = {k: v for k, v in entry.items()}
    return known


def _bad(path: str, why: str) -> exception.DriverLoadError:
    return exception.DriverLoadError(
        driver="accelerators",
        reason=f"[inspector]known_accelerators file {path} {why}")


class AcceleratorsHook(base.InspectionHook):

    def __init__(self) -> None:
        self._known = _load(CONF.inspector.known_accelerators or SHIPPED)

    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        devices = pci_info.devices(inventory, plugin_data)
        if not devices:
            LOG.warning("Node %s: no PCI devices in the inspection data; "
                        "accelerators unknown", task.node.uuid)
            return
        found = [dict(self._known[key], pci_address=dev.get("bus"))
                 for dev in devices
                 if (key := (dev["vendor_id"], dev["product_id"]))
                 in self._known]
        LOG.info("Node %s: %d known accelerator(s)", task.node.uuid,
                 len(found))
        base.set_properties(task, accelerators=found)
        task.node.save()
