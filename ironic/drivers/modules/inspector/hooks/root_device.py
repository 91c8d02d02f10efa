"""``root-device``: pick the root disk and set ``local_gb``.

With root device hints (``properties.root_device``) the first disk of the
inventory matching every hint is the root disk; without hints the disk the
ramdisk chose (``root_disk`` in the plugin data) or else the smallest disk
of at least 4 GiB. ``local_gb`` is its size in GiB, less 1 GiB for
partitioning when ``[inspector]disk_partitioning_spacing`` is on. The
chosen disk is stored as ``root_disk`` in the plugin data.
"""

from __future__ import annotations

import logging
import operator
import re
from typing import Any

from ironic.common import exception
from ironic.conf import CONF
from ironic.drivers.modules.inspector.hooks import base
from ironic.task import Task

LOG = logging.getLogger(__name__)

GIB = 1024 ** 3
MIN_SIZE = 4 * GIB
_STRING_HINTS = ("model", "vendor", "serial", "wwn", "wwn_with_extension",
                 "wwn_vendor_extension", "hctl", "by_path", "name")
_SIZE_RE = re.compile(r"^\s*(==|!=|>=|<=|>|<)?\s*(\d+)\s*$")
_OPS = {"==": operator.eq, "!=": operator.ne, ">=": operator.ge,
        "<=": operator.le, ">": operator.gt, "<": operator.lt,
        None: operator.eq}


def _size_matches(hint: Any, size_gib: int) -> bool:
    if isinstance(hint, bool):
        return False
    if isinstance(hint, int):
        return size_gib == hint
    match = _SIZE_RE.match(str(hint))
    if not match:
        raise exception.HardwareInspectionFailure(
            error=f"invalid root device size hint {hint!r}")
    return _OPS[match.group(1)](size_gib, int(match.group(2)))


def _hint_matches(name: str, hint: Any, disk: dict) -> bool:
    if name == "size":
        return _size_matches(hint, (disk.get("size") or 0) // GIB)
    if name == "rotational":
        wanted = hint if isinstance(hint, bool) else \
            str(hint).lower() in ("1", "true", "yes", "on")
        return bool(disk.get("rotational")) == wanted
    value = disk.get(name)
    if value is None:
        return False
    if name == "name" and not str(hint).startswith("/dev/"):
        hint = f"/dev/{hint}"
    return str(value).lower() == str(hint).lower()


def matching_disk(hints: dict, disks: list[dict]) -> dict | None:
    unknown = set(hints) - set(_STRING_HINTS) - {"size", "rotational"}
    if unknown:
        raise exception.HardwareInspectionFailure(
            error=f"unsupported root device hints: "
                  f"{', '.join(sorted(unknown))}")
    for disk in disks:
        if all(_hint_matches(k, v, disk) for k, v in hints.items()):
            return disk
    return None


def choose_root_disk(task: Task, inventory: dict,
                     plugin_data: dict) -> dict:
    disks = [d for d in inventory.get("disks") or () if d.get("size")]
    hints = (task.node.properties or {}).get("root_device")
    if hints:
        disk = matching_disk(hints, disks)
        if disk is None:
            raise exception.HardwareInspectionFailure(
                error=f"no disk matches the root device hints {hints}")
        return disk
    chosen = plugin_data.get("root_disk")
    if isinstance(chosen, dict) and chosen.get("size"):
        return chosen
    big_enough = [d for d in disks if d["size"] >= MIN_SIZE]
    if not big_enough:
        raise exception.HardwareInspectionFailure(
            error="no disk of at least 4 GiB in the inventory")
    return min(big_enough, key=lambda d: d["size"])


class RootDeviceHook(base.InspectionHook):

    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        if not inventory.get("disks"):
            LOG.warning("Node %s: the inventory has no disks; local_gb "
                        "left unchanged", task.node.uuid)
            return
        disk = choose_root_disk(task, inventory, plugin_data)
        plugin_data["root_disk"] = disk
        local_gb = disk["size"] // GIB
        if CONF.inspector.disk_partitioning_spacing and local_gb > 0:
            local_gb -= 1
        base.set_properties(task, local_gb=local_gb)
        task.node.save()
