"""The typed answers of ``/v1/openapi.json`` for the operations that show
no stored resource: a node's traits, VIFs and indicators, the lookup
answer, the shards, the index documents...

Each document is declared once as typed members (the same ``Field`` the
objects use), with the version that brought a member where it came after
the operation (``ironic.api.documents``). A node's states and management
answers and the hardware types are declared where their handlers render
them from the declaration (``ironic.api.controllers.v1.answers``); the
others here, the handlers' own tables saying which members a version
shows wherever they keep one. The stored records a node carries (BIOS
settings, history, firmware) are typed beside their reads
(``ironic.objects.node_records``) and documented as resources
(``ironic.api.openapi_resources``).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from ironic.api import features, schemas
from ironic.api.controllers.v1 import (
    answers,
    driver,
    node_actions,
    node_data,
    node_indicators,
    node_sub,
    node_vendor,
    node_vifs,
    node_vmedia,
    ramdisk,
    runbook,
    shard,
    volume,
)
from ironic.api.documents import Document, list_field, map_field
from ironic.objects.base import BOOLEAN, INTEGER, OBJECT, UUID, Field
from ironic.objects.node_records import INVENTORY_FIELDS


def _items(key: str, item: Document) -> Callable[[int], dict[str, Any]]:
    """``{key: [item...]}`` (no paging)."""
    return lambda ver: {"type": "object", "required": [key], "properties": {
        key: {"type": "array", "items": item.schema(ver)}}}


def _fixed(schema: dict[str, Any]) -> Callable[[int], dict[str, Any]]:
    return lambda ver: schema


# --- the documents ---------------------------------------------------------

def _v1_index() -> Document:
    """``GET /v1/``: the version and a link to each resource it routes."""
    from ironic.api.controllers.v1 import index
    return Document.of({
        "id": Field(None, nullable=False, doc="Always v1."),
        "links": schemas.LINKS,
        "media_types": Field(None, type=OBJECT, nullable=False,
                             doc="The media type served.",
                             schema={"properties": {
                                 "base": {"type": "string"},
                                 "type": {"type": "string"}}}),
        "version": Field(None, type=OBJECT, nullable=False,
                         doc="The versions this service answers.",
                         schema={"properties": {
                             "id": {"type": "string"},
                             "links": schemas.LINKS.value_schema(),
                             "status": {"type": "string"},
                             "min_version": {"type": "string"},
                             "version": {"type": "string"}}}),
        **dict.fromkeys(index._RESOURCES, schemas.LINKS)},
        index._RESOURCES)


#: ``GET /v1/volume`` (and a node's): links to the connectors and targets.
VOLUME_INDEX = Document.of(dict.fromkeys(
    ("links", "connectors", "targets"), schemas.LINKS))

#: ``GET /v1/openapi.json``.
OPENAPI = Document.of({
    "openapi": Field(None, nullable=False, doc="3.1.0."),
    "info": Field(None, type=OBJECT, nullable=False, doc="Title, version."),
    "security": list_field("The accepted credentials.", {"type": "object"}),
    "paths": map_field("The operations, by path.", {"type": "object"}),
    "components": Field(None, type=OBJECT, nullable=False,
                        doc="Shared parameters, answers and schemas."),
})

#: One indicator of ``GET .../management/indicators``.
INDICATOR = Document.of({
    "name": Field(None, nullable=False, doc="<indicator>@<component>."),
    "component": Field(None, nullable=False, doc="system, chassis..."),
    "readonly": Field(None, type=BOOLEAN, nullable=False,
                      doc="Whether its state can be set."),
    "states": list_field("The states it takes."),
    "links": schemas.LINKS,
})
#: ``GET .../indicators/{ident}``: one indicator's state, or (named by a
#: component) the indicators of the component.
INDICATOR_STATE = Document.of({
    "state": Field(None, nullable=False, doc="ON, OFF, BLINKING..."),
    "indicators": list_field("The indicators of the component.",
                        INDICATOR.schema(features.INDICATORS.minor)),
})

#: ``GET /v1/nodes/{node}/traits`` and a runbook's.
TRAITS = Document.of({"traits": list_field("The traits.")})

#: One VIF of ``GET /v1/nodes/{node}/vifs``.
VIF = Document.of({"id": Field(None, nullable=False, doc="The VIF's id.")})

#: One virtual drive of ``GET /v1/nodes/{node}/vmedia``.
VIRTUAL_DRIVE = Document.of({
    "media_types": list_field("What it can hold (CD, DVD, USBStick...)."),
    "inserted": Field(None, type=BOOLEAN, nullable=False,
                      doc="Whether media is inserted."),
    "image": Field(None, doc="The image URL (empty: none)."),
})

#: ``GET /v1/nodes/{node}/children``.
CHILDREN = Document.of({
    "children": list_field("The UUIDs of the nodes whose parent it is.",
                           {"type": "string", "format": "uuid"}),
    # One link object, not a list, as Ironic 39 answers.
    "links": Field(None, type=OBJECT, nullable=False,
                   doc="The node list filtered by this parent.",
                   schema={"properties": {"href": {"type": "string"},
                                          "rel": {"type": "string"}}}),
})

#: ``GET /v1/nodes/{node}/inventory``.
INVENTORY = Document.of(INVENTORY_FIELDS)

#: ``GET /v1/nodes/{node}/validate``: per interface type.
VALIDATION = map_field("The result of each interface's validation.", {
    "type": "object", "properties": {
        "result": {"type": "boolean"},
        "reason": {"type": ["string", "null"]}}})

#: One shard of ``GET /v1/shards``.
SHARD = Document.of({
    "name": Field(None, nullable=False, doc="The shard ('None': nodes in "
                                            "none)."),
    "count": Field(None, type=INTEGER, nullable=False,
                   doc="How many nodes it holds."),
})

#: ``.../vendor_passthru/methods``: each method's description (a node's
#: also says whether it takes the node's lock).
PASSTHRU_METHOD = Document.of({
    "http_methods": list_field("The HTTP methods it answers."),
    "async": Field(None, type=BOOLEAN, nullable=False,
                   doc="Whether it answers 202 and works on."),
    "description": Field(None, doc="What it does."),
    "attach": Field(None, type=BOOLEAN, nullable=False,
                    doc="Whether it answers a file."),
    "require_exclusive_lock": Field(None, type=BOOLEAN, nullable=False,
                                    doc="Whether it locks the node."),
})

#: ``GET /v1/lookup`` (and ``continue_inspection`` from 1.84): the node
#: as its agent sees it, and the agent's configuration.
LOOKUP = Document.of({
    "node": Field(None, type=OBJECT, nullable=False, doc="The node found.",
                  schema={"properties": {
                      "uuid": {"type": "string", "format": "uuid"},
                      "properties": {"type": "object"},
                      "instance_info": {"type": "object"},
                      "driver_internal_info": {"type": "object"},
                      "links": schemas.LINKS.value_schema()}}),
    "config": Field(None, type=OBJECT, nullable=False,
                    doc="What the agent should do.",
                    schema={"properties": {
                        "agent_token": {"type": ["string", "null"]},
                        "agent_token_required": {"type": "boolean"},
                        "heartbeat_timeout": {"type": "integer"}}}),
})
#: ``continue_inspection`` before 1.84 (or a node just discovered).
INSPECTED = Document.of({"uuid": Field(None, type=UUID, nullable=False,
                                    doc="The node inspected.")})


def _continued(ver: int) -> dict[str, Any]:
    return {"anyOf": [LOOKUP.schema(ver), INSPECTED.schema(ver)]} \
        if features.CONTINUE_INSPECTION.available(ver) \
        else INSPECTED.schema(ver)


#: A driver's passthru methods take no node to lock.
DRIVER_PASSTHRU_METHOD = Document.of({
    name: field for name, field in PASSTHRU_METHOD.fields.items()
    if name != "require_exclusive_lock"})


def _by_name(item: Document) -> Callable[[int], dict[str, Any]]:
    """A document of ``item`` documents, by name."""
    return lambda ver: {"type": "object",
                        "additionalProperties": item.schema(ver)}


#: The answer of each handler at a version.
ANSWERS: dict[Callable, Callable[[int], dict[str, Any]]] = {
    volume.VolumeController.get_all: VOLUME_INDEX.schema,
    node_sub.StatesController.get_all: answers.NODE_STATES.schema,
    node_sub.TraitsController.get_all: TRAITS.schema,
    node_sub.ChildrenController.get_all: CHILDREN.schema,
    runbook.RunbookTraitsController.get_all: TRAITS.schema,
    node_actions.StatesController.get_console: answers.CONSOLE.schema,
    node_actions.BootDeviceController.get_all: answers.BOOT_DEVICE.schema,
    node_actions.BootDeviceController.supported:
        answers.SUPPORTED_BOOT_DEVICES.schema,
    node_actions.ValidateController.get_all:
        _fixed(VALIDATION.value_schema()),
    node_indicators.IndicatorsController.get_all:
        _items("indicators", INDICATOR),
    node_indicators.IndicatorsController.get_one: INDICATOR_STATE.schema,
    node_vifs.VIFsController.get_all: _items("vifs", VIF),
    node_vmedia.VmediaController.get_all: lambda ver: {
        "type": "array", "items": VIRTUAL_DRIVE.schema(ver)},
    node_data.InventoryController.get_all: INVENTORY.schema,
    shard.ShardsController.get_all: _items("shards", SHARD),
    ramdisk.LookupController.get_all: LOOKUP.schema,
    ramdisk.ContinueInspectionController.post: _continued,
    driver.DriverProperties.get_all:
        _fixed(answers.DRIVER_PROPERTIES.value_schema()),
    driver.RaidController.logical_disk_properties:
        _fixed(answers.RAID_DISK_PROPERTIES.value_schema()),
    driver.DriverPassthruController.methods:
        _by_name(DRIVER_PASSTHRU_METHOD),
    node_vendor.NodeVendorPassthruController.methods:
        _by_name(PASSTHRU_METHOD),
}

#: Answers that are free-form on purpose: a vendor passthru method
#: answers whatever its driver returns (any JSON value, a string for an
#: attachment), so no schema can say more than "any JSON".
FREE_FORM: frozenset[Callable] = frozenset(
    getattr(node_vendor.PassthruVerbs, name) for name in
    ("get_all", "get_one", "post", "put", "patch", "delete"))


def answer(handler: Callable) -> Callable[[int], dict[str, Any]] | None:
    """How to make the answer schema of ``handler`` at a version (None:
    not one of these)."""
    return ANSWERS.get(handler) or _late_answers().get(handler)


@functools.cache
def _late_answers() -> dict[Callable, Callable[[int], dict[str, Any]]]:
    """The answers of the modules that serve the document itself (they
    import it: imported here when first asked)."""
    from ironic.api import openapi
    from ironic.api.controllers.v1 import index
    return {index.V1Controller.index: _v1_index().schema,
            openapi.DocumentController.get_all: OPENAPI.schema}
