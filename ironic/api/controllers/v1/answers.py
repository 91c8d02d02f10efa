"""The answers of a node's states and management and of the hardware types
(``/v1/drivers``), declared once (see ``ironic.api.documents``): the
handlers render them from these declarations and ``/v1/openapi.json``
reads the same ones.
"""

from __future__ import annotations

from typing import Any

from ironic import interfaces
from ironic.api import features, schemas
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.controllers.v1.node_fields import state_for_version
from ironic.api.documents import Document, Member, list_field, map_field
from ironic.objects.base import BOOLEAN, OBJECT, Field
from ironic.objects.node import Node


def _node(name: str, since: features.Since = features.ALWAYS) -> Member:
    """A member showing the node's own field."""
    return Member(Node.fields[name], since)


def _state(name: str) -> Member:
    """A provision state, named as the version knows it."""
    return Member(Node.fields[name], read=lambda node, ver: state_for_version(
        getattr(node, name), ver))


#: ``GET /v1/nodes/{node}/states``: a summary of the node's own fields.
NODE_STATES = Document({
    "console_enabled": _node("console_enabled"),
    "last_error": _node("last_error"),
    "power_state": _node("power_state"),
    "provision_state": _state("provision_state"),
    "provision_updated_at": Member(
        Node.fields["provision_updated_at"],
        read=lambda node, ver: api_utils.iso(node.provision_updated_at)),
    "target_power_state": _node("target_power_state"),
    "target_provision_state": _state("target_provision_state"),
    "raid_config": _node("raid_config", features.RAID),
    "target_raid_config": _node("target_raid_config", features.RAID),
    "boot_mode": _node("boot_mode", features.BOOT_MODE),
    "secure_boot": _node("secure_boot", features.BOOT_MODE),
})

#: ``GET /v1/nodes/{node}/states/console`` (the conductor's answer).
CONSOLE = Document.of({
    "console_enabled": Field(None, type=BOOLEAN, nullable=False,
                             doc="Whether the console is on."),
    "console_info": Field(None, type=OBJECT,
                          doc="How to reach it (type, url)."),
})

#: ``GET /v1/nodes/{node}/management/boot_device`` (the conductor's).
BOOT_DEVICE = Document.of({
    "boot_device": Field(None, doc="pxe, disk, cdrom..."),
    "persistent": Field(None, type=BOOLEAN,
                        doc="Whether it stays past the next boot."),
})
#: ``.../boot_device/supported``, rendered from the conductor's list.
SUPPORTED_BOOT_DEVICES = Document({"supported_boot_devices": Member(
    list_field("The devices it can boot from."),
    read=lambda devices, ver: devices)})


# --- hardware types ---------------------------------------------------------

def _link(suffix: str = "") -> Any:
    return lambda hw, ver: api_utils.link("drivers", hw.name + suffix)


def _interfaces(kind: str, since: int) -> dict[str, Member]:
    """The default and enabled interfaces of one kind (detail only)."""
    feature = features.of_field(since)
    return {
        f"default_{kind}_interface": Member(
            Field(None, doc=f"The {kind} interface a node gets by "
                            f"default."),
            feature, lambda hw, ver: hw.defaults.get(kind)),
        f"enabled_{kind}_interfaces": Member(
            list_field(f"The {kind} interfaces a node may use."),
            feature, lambda hw, ver: list(hw.enabled.get(kind, []))),
    }


#: The members every hardware type shows by default.
DRIVER_BASE = ("name", "hosts", "links", "properties", "type")

#: A hardware type of ``GET /v1/drivers`` (``ironic.interface_catalog``'s
#: ``HardwareType``); its interfaces only in the detail.
DRIVER = Document({
    "name": Member(Field(None, nullable=False, doc="The hardware type."),
                   read=lambda hw, ver: hw.name),
    "hosts": Member(list_field("The conductors serving it."),
                    read=lambda hw, ver: sorted(hw.hosts)),
    "links": Member(schemas.LINKS, read=_link()),
    "properties": Member(schemas.LINKS, features.SUBRESOURCE_LINKS,
                         _link("/properties")),
    "type": Member(Field(None, nullable=False, doc="Always dynamic."),
                   features.HARDWARE_TYPES, lambda hw, ver: "dynamic"),
    # (sorted by name, as the detail shows them)
    **dict(sorted(
        (name, member)
        for kind, since in interfaces.DRIVER_DETAIL_SINCE.items()
        for name, member in _interfaces(kind, since).items())),
})

_STRING_MAP = map_field("Names and their descriptions.", {"type": "string"})
#: ``GET /v1/drivers/{name}/properties``: the driver_info keys of its
#: interfaces, as the interfaces describe them.
DRIVER_PROPERTIES = _STRING_MAP
#: ``GET /v1/drivers/{name}/raid/logical_disk_properties``: the members
#: of a logical disk, as its RAID interface's schema describes them.
RAID_DISK_PROPERTIES = _STRING_MAP
