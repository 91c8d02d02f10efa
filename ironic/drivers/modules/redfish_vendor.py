"""The ``redfish`` vendor interface: virtual media ejection on demand.

``POST /v1/nodes/{node}/vendor_passthru?method=eject_vmedia`` ejects the
virtual media of one device type (``boot_device``: ``cdrom``, ``floppy``
or ``disk``) or of every virtual device, e.g. after an interrupted
operation left an ISO inserted.
"""

from __future__ import annotations

from typing import Any

from ironic.common import exception
from ironic.drivers import base
from ironic.drivers.modules import redfish_client, redfish_vmedia
from ironic.drivers.modules.redfish_client import system_of
from ironic.task import Task


class RedfishVendorPassthru(base.VendorInterface):
    def get_properties(self) -> dict[str, str]:
        return {}

    def validate(self, task: Task, method: str | None = None,
                 http_method: str | None = None, **kwargs: Any) -> None:
        redfish_client.parse_driver_info(task.node.driver_info or {})
        if method == "eject_vmedia":
            device = kwargs.get("boot_device")
            if device is not None and \
                    device not in redfish_vmedia.DEVICE_TYPES:
                raise exception.InvalidParameterValue(
                    err=f"eject_vmedia boot_device {device!r} is not one of "
                        f"{', '.join(redfish_vmedia.DEVICE_TYPES)}.")

    @base.passthru(["POST"], description="Eject the virtual media of "
                   "boot_device (cdrom, floppy or disk), or of every "
                   "virtual device when it is not given.")
    def eject_vmedia(self, task: Task, http_method: str,
                     boot_device: str | None = None, **kwargs: Any) -> None:
        redfish_vmedia.eject(system_of(task),
                             [boot_device] if boot_device else None)
