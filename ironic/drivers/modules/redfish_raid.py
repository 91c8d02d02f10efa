"""The ``redfish`` RAID interface: logical disks as Redfish volumes.

``target_raid_config`` logical disks become volumes in the first Storage
resource of the system that has drives: ``raid_level`` maps to the
Redfish ``VolumeType`` (and ``RAIDType``), ``size_gb`` to
``CapacityBytes`` (``MAX``: the smallest member drive times the data
drives the level leaves). ``delete_configuration`` deletes every volume of
that storage. After each step the node's ``raid_config`` lists the volumes
the BMC reports. Volumes are created synchronously (a BMC answering with
an asynchronous task is followed to its end).
"""

from __future__ import annotations

import logging
from typing import Any

import sushy
from sushy import taskmonitor
from sushy.resources.system.storage import volume as sushy_volume

from ironic.common import exception
from ironic.drivers import base
from ironic.drivers.modules import redfish_client
from ironic.drivers.modules.redfish_client import system_of
from ironic.task import Task

LOG = logging.getLogger(__name__)
GiB = 1024 ** 3
#: How long an asynchronous volume task may take (seconds).
TASK_TIMEOUT = 1800

#: raid_level -> (VolumeType, RAIDType, minimum drives, data drives(n)).
LEVELS = {
    "0": ("NonRedundant", "RAID0", 1, lambda n: n),
    "1": ("Mirrored", "RAID1", 2, lambda n: 1),
    "5": ("StripedWithParity", "RAID5", 3, lambda n: n - 1),
    "6": ("StripedWithParity", "RAID6", 4, lambda n: n - 2),
    "1+0": ("SpannedMirrors", "RAID10", 4, lambda n: n // 2),
    "5+0": ("SpannedStripesWithParity", "RAID50", 6, lambda n: n - 2),
}

_CREATE_ARGS = {
    "create_root_volume": {"description": "Whether to create the root "
                           "volume (default true).", "required": False},
    "create_nonroot_volumes": {"description": "Whether to create the other "
                               "volumes (default true).", "required": False},
    "delete_existing": {"description": "Whether to delete the existing "
                        "volumes first (default false).", "required": False},
}
_APPLY_ARGS = {
    "raid_config": {"description": "The RAID configuration to apply "
                    "(logical_disks).", "required": True},
    "delete_existing": _CREATE_ARGS["delete_existing"],
}


def check_logical_disks(raid_config: Any) -> list[dict]:
    disks = raid_config.get("logical_disks") \
        if isinstance(raid_config, dict) else None
    if not isinstance(disks, list) or not disks:
        raise exception.InvalidParameterValue(
            err="A RAID configuration needs a non-empty 'logical_disks'.")
    for i, disk in enumerate(disks):
        level = disk.get("raid_level") if isinstance(disk, dict) else None
        size = disk.get("size_gb") if isinstance(disk, dict) else None
        if level not in LEVELS:
            raise exception.InvalidParameterValue(
                err=f"logical_disks[{i}]: raid_level {level!r} is not one "
                    f"of {', '.join(LEVELS)}.")
        if size != "MAX" and not (isinstance(size, int)
                                  and not isinstance(size, bool)
                                  and size > 0):
            raise exception.InvalidParameterValue(
                err=f"logical_disks[{i}]: size_gb must be a positive "
                    f"integer or 'MAX', got {size!r}.")
    return disks


def storage_of(system):
    """The first Storage of the system with drives."""
    try:
        members = system.storage.get_members()
    except sushy.exceptions.SushyError as e:
        raise exception.IronicException(
            f"The BMC does not report Redfish Storage: {e}") from e
    for storage in members:
        if storage.drives:
            return storage
    raise exception.IronicException(
        "The BMC reports no storage controller with drives.")


def _capacity(storage, disk: dict) -> int:
    volume_type, _, minimum, data = LEVELS[disk["raid_level"]]
    drives = storage.drives
    if len(drives) < minimum:
        raise exception.InvalidParameterValue(
            err=f"RAID {disk['raid_level']} needs {minimum} drives; the "
                f"storage has {len(drives)}.")
    if disk["size_gb"] != "MAX":
        return disk["size_gb"] * GiB
    smallest = min(d.capacity_bytes or 0 for d in drives)
    return smallest * data(len(drives))


def volumes_of(storage) -> list:
    """The volumes the BMC reports now. A fresh collection each time:
    refreshing sushy's cached one would re-read deleted members."""
    fresh = sushy_volume.VolumeCollection(
        storage._conn, storage.volumes.path,
        redfish_version=storage.redfish_version, root=storage.root)
    return fresh.get_members()


def current_config(storage) -> dict:
    by_type = {v[0]: k for k, v in LEVELS.items()}
    disks = []
    for volume in volumes_of(storage):
        vtype = getattr(volume.volume_type, "value", volume.volume_type)
        disks.append({"name": volume.name, "volume_id": volume.identity,
                      "size_gb": (volume.capacity_bytes or 0) // GiB,
                      "raid_level": by_type.get(vtype),
                      "controller": storage.identity})
    return {"logical_disks": disks}


class RedfishRAID(base.RAIDInterface):
    """RAID through the Redfish Storage and Volume resources."""

    def get_properties(self) -> dict[str, str]:
        return {}

    def validate(self, task: Task) -> None:
        redfish_client.parse_driver_info(task.node.driver_info or {})
        target = task.node.target_raid_config or {}
        if target:
            self.validate_raid_config(task, target)

    def validate_raid_config(self, task: Task, raid_config: dict) -> None:
        check_logical_disks(raid_config)

    def get_logical_disk_properties(self) -> dict[str, str]:
        return {"size_gb": "Size in GiB, or 'MAX' for what the drives hold.",
                "raid_level": f"One of {', '.join(LEVELS)}.",
                "is_root_volume": "Whether this is the root volume.",
                "volume_name": "Name of the volume on the BMC."}

    @base.clean_step(priority=0, argsinfo=_CREATE_ARGS,
                     requires_ramdisk=False)
    def create_configuration(self, task: Task, create_root_volume: bool = True,
                             create_nonroot_volumes: bool = True,
                             delete_existing: bool = False) -> None:
        target = task.node.target_raid_config or {}
        if not target:
            raise exception.MissingParameterValue(
                err=f"Node {task.node.uuid} has no target_raid_config.")
        disks = [d for d in check_logical_disks(target)
                 if (create_root_volume and d.get("is_root_volume"))
                 or (create_nonroot_volumes and not d.get("is_root_volume"))]
        self._apply(task, disks, delete_existing)

    @base.clean_step(priority=0, requires_ramdisk=False)
    def delete_configuration(self, task: Task) -> None:
        storage = storage_of(system_of(task))
        self._delete_all(storage)
        task.node.raid_config = current_config(storage)

    @base.deploy_step(priority=0, argsinfo=_APPLY_ARGS,
                      requires_ramdisk=False)
    def apply_configuration(self, task: Task, raid_config: dict,
                            delete_existing: bool = False) -> None:
        disks = check_logical_disks(raid_config)
        task.node.target_raid_config = raid_config
        self._apply(task, disks, delete_existing)

    def _apply(self, task: Task, disks: list[dict],
               delete_existing: bool) -> None:
        storage = storage_of(system_of(task))
        if delete_existing:
            self._delete_all(storage)
        for i, disk in enumerate(disks):
            volume_type, raid_type, _, _ = LEVELS[disk["raid_level"]]
            payload = {"Name": disk.get("volume_name") or f"ironic-{i}",
                       "VolumeType": volume_type, "RAIDType": raid_type,
                       "CapacityBytes": _capacity(storage, disk),
                       "Links": {"Drives": [{"@odata.id": d.path}
                                            for d in storage.drives]}}
            result = redfish_client.call("RAID volume creation",
                                         storage.volumes.create, payload)
            if isinstance(result, taskmonitor.TaskMonitor):
                result.wait(TASK_TIMEOUT)
        task.node.raid_config = current_config(storage)
        LOG.info("Node %s: %d RAID volume(s) created", task.node.uuid,
                 len(disks))

    @staticmethod
    def _delete_all(storage) -> None:
        for volume in volumes_of(storage):
            redfish_client.call("RAID volume deletion", volume.delete)

