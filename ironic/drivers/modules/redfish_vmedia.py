"""Virtual media of a Redfish system: find, insert, eject by device type.

The API's device types map to Redfish media types: ``cdrom`` to CD/DVD,
``floppy`` to Floppy/USBStick and ``disk`` to USBStick. The BMC downloads
the image itself from the URL it is given.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

import sushy

from ironic.common import boot_devices, exception
from ironic.drivers.modules import redfish_client

MEDIA_TYPES = {
    boot_devices.CDROM: (sushy.VIRTUAL_MEDIA_CD, sushy.VIRTUAL_MEDIA_DVD),
    boot_devices.FLOPPY: (sushy.VIRTUAL_MEDIA_FLOPPY,
                          sushy.VIRTUAL_MEDIA_USBSTICK),
    boot_devices.DISK: (sushy.VIRTUAL_MEDIA_USBSTICK,),
}
#: The device types of the vmedia API, in its order.
DEVICE_TYPES = (boot_devices.CDROM, boot_devices.FLOPPY, boot_devices.DISK)


def check_url(value: Any, field: str) -> str:
    """``value`` when it is an http(s) URL; a 400 naming ``field`` else."""
    if not value:
        raise exception.MissingParameterValue(
            err=f"{field} is required to boot the node from virtual media.")
    parsed = urlparse(value) if isinstance(value, str) else None
    if parsed is None or parsed.scheme not in ("http", "https") \
            or not parsed.netloc:
        raise exception.InvalidParameterValue(
            err=f"{field} must be an http(s) URL the BMC can download, "
                f"got {value!r}.")
    return value


def devices(system, device_type: str) -> list:
    """The virtual media devices of ``system`` for ``device_type``."""
    wanted = MEDIA_TYPES.get(device_type)
    if wanted is None:
        raise exception.InvalidParameterValue(
            err=f"Unknown virtual media device type {device_type!r}; "
                f"known: {', '.join(DEVICE_TYPES)}.")
    try:
        members = system.virtual_media.get_members()
    except sushy.exceptions.SushyError as e:
        raise exception.IronicException(
            f"The BMC does not offer virtual media: {e}") from e
    return [m for m in members
            if any(t in wanted for t in (m.media_types or []))]


def describe(system) -> list[dict]:
    """Every virtual drive of ``system``: its media types (Redfish names),
    whether something is inserted and the image URL ("" when none)."""
    try:
        members = system.virtual_media.get_members()
    except sushy.exceptions.MissingAttributeError as e:
        raise exception.InvalidParameterValue(
            err=f"The BMC has no virtual media devices: {e}") from e
    except sushy.exceptions.SushyError as e:
        raise exception.IronicException(
            f"Redfish virtual media listing failed: {e}") from e
    return [{"media_types": [getattr(t, "value", t)
                             for t in m.media_types or []],
             "inserted": bool(m.inserted), "image": m.image or ""}
            for m in members]


def insert(system, device_type: str, url: str) -> None:
    """Eject what the devices of ``device_type`` hold, insert ``url``."""
    found = devices(system, device_type)
    if not found:
        raise exception.InvalidParameterValue(
            err=f"The BMC has no virtual media device for {device_type} "
                f"images.")
    _eject(found)
    redfish_client.call("virtual media insert", found[0].insert_media, url,
                        inserted=True, write_protected=True)


def _eject(found: list) -> int:
    ejected = 0
    for device in found:
        if device.inserted or device.image:
            redfish_client.call("virtual media eject", device.eject_media)
            ejected += 1
    return ejected


def eject(system, device_types: list[str] | tuple[str, ...] | None = None
          ) -> int:
    """Eject the media of ``device_types`` (all when None); how many."""
    seen: dict[str, Any] = {}
    for device_type in device_types or DEVICE_TYPES:
        for device in devices(system, device_type):
            seen.setdefault(device.path, device)
    return _eject(list(seen.values()))
