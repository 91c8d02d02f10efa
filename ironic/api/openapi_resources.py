"""The typed documents of ``/v1/openapi.json``: request bodies and the
item and collection documents of the resources with typed fields, at one
microversion.

Each resource's fields are its object's typed fields plus the few the API
adds (``ironic.api.schemas``); which of them a version shows is what the
controllers themselves use (their ``Spec`` or field table), so the
document and the answers cannot drift apart.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterable, Mapping

from ironic.api import features, openapi_answers, schemas
from ironic.api.controllers.v1 import (
    allocation,
    answers,
    chassis,
    conductor,
    deploy_template,
    driver,
    inspection_rule,
    node,
    node_data,
    node_edit,
    node_fields,
    port,
    portgroup,
    runbook,
    volume,
)
from ironic.objects import node_records, records
from ironic.objects.base import ARRAY, BOOLEAN, Field
from ironic.objects.chassis import Chassis
from ironic.objects.conductor import Conductor
from ironic.objects.inspection_rule import InspectionRule

_LINKS = {"links": schemas.LINKS}


@dataclasses.dataclass(frozen=True)
class Resource:
    """What the document says of one kind of resource."""

    #: The member of a list document holding the items.
    key: str
    fields: Mapping[str, Field]
    #: The feature that introduced a field (None: the resource's own
    #: table does not know it; the typed field's ``since`` then says).
    feature: Callable[[str], features.Since | None]
    #: The fields an item shows at a version, in document order.
    shown: Callable[[int], Iterable[str]]

    def available(self, name: str, ver: int) -> bool:
        feature = self.feature(name)
        if feature is None:
            since = self.fields[name].since if name in self.fields else None
            feature = features.of_field(since) if since else features.ALWAYS
        return feature.available(ver)

    def item(self, ver: int) -> dict[str, Any]:
        return schemas.item(self.fields, self.shown(ver))

    def body(self, schema: dict[str, Any], ver: int) -> dict[str, Any]:
        """``schema`` (a body the handler checks) with only the members
        ``ver`` takes."""
        return {**schema, "properties": {
            name: value for name, value in schema["properties"].items()
            if self.available(name, ver)}}


def _sub_links(*names: str) -> dict[str, Field]:
    return dict.fromkeys(names, schemas.LINKS)


def _shown_from(table: Mapping[str, features.Since]
                ) -> Callable[[int], list[str]]:
    """The fields shown at a version, from a {field: feature} table."""
    return lambda ver: [name for name, since in table.items()
                        if since.available(ver)]


_NODES = Resource(
    "nodes",
    {**node_edit.FIELDS, **_LINKS,
     **_sub_links("ports", "portgroups", "states", "volume"),
     "conductor": Field(None, doc="Conductor serving the node."),
     "allocation_uuid": schemas.reference("Its allocation.", write=None),
     "chassis_uuid": node_edit.FIELDS["chassis_uuid"]},
    node_fields.field_feature, node_fields.visible_names)

_PORTS = Resource("ports", {**port.FIELDS, **_LINKS}, port.SPEC.feature,
                  port.SPEC.visible)

_PORTGROUPS = Resource(
    "portgroups", {**portgroup.FIELDS, **_LINKS, **_sub_links("ports")},
    portgroup.SPEC.feature, portgroup.SPEC.visible)

_CHASSIS = Resource(
    "chassis", {**Chassis.fields, **_LINKS, **_sub_links("nodes")},
    chassis.SPEC.feature, chassis.SPEC.visible)

_ALLOCATIONS = Resource(
    "allocations",
    {**allocation.FIELDS, **_LINKS,
     "node_uuid": schemas.reference("The node allocated.", write=None)},
    allocation._FIELDS.get, _shown_from(allocation._FIELDS))

_CONDUCTORS = Resource(
    "conductors",
    {**Conductor.fields, **_LINKS,
     "alive": Field(None, type=BOOLEAN, nullable=False,
                    doc="Whether it heartbeats in time.")},
    lambda name: features.CONDUCTORS,
    lambda ver: conductor._ALL_FIELDS)

_INSPECTION_RULES = Resource(
    "inspection_rules",
    {**InspectionRule.fields, **_LINKS,
     # A sensitive rule shows neither.
     **{name: dataclasses.replace(InspectionRule.fields[name],
                                  nullable=True)
        for name in ("conditions", "actions")}},
    inspection_rule.SPEC.feature, inspection_rule.SPEC.visible)

_DEPLOY_TEMPLATES = Resource(
    "deploy_templates", {**records.DEPLOY_TEMPLATE_FIELDS, **_LINKS},
    lambda name: features.DEPLOY_TEMPLATES,
    lambda ver: deploy_template._FIELDS)

_RUNBOOKS = Resource(
    "runbooks",
    {**records.RUNBOOK_FIELDS, **_LINKS,
     "traits": Field(None, type=ARRAY, nullable=False,
                     schema={"items": {"type": "string"}},
                     doc="Traits of the nodes that may run it.")},
    runbook._FIELDS.get, _shown_from(runbook._FIELDS))


_DRIVERS = Resource(
    "drivers", answers.DRIVER.fields,
    lambda name: None,
    driver.SPEC.visible)

_BIOS = Resource(
    "bios", {**node_records.BIOS_SETTING_FIELDS, **_LINKS},
    lambda name: None,
    node_data.BIOS_SPEC.visible)

_HISTORY = Resource(
    "history", {**node_records.HISTORY_EVENT_FIELDS, **_LINKS},
    lambda name: None, node_data.HISTORY_SPEC.visible)

_FIRMWARE = Resource(
    "firmware", node_records.FIRMWARE_COMPONENT_FIELDS,
    lambda name: None,
    node_data.FIRMWARE_SPEC.visible)


def _volume(kind: volume._Kind) -> Resource:
    fields = {**kind.typed, **_LINKS}
    return Resource(kind.key, fields, lambda name: features.VOLUME,
                    lambda ver: kind.fields)


#: The resource each controller serves (a subclass: the same).
RESOURCES: dict[type, Resource] = {
    node.NodesController: _NODES,
    chassis.ChassisNodesController: _NODES,
    port.PortsController: _PORTS,
    portgroup.PortgroupsController: _PORTGROUPS,
    chassis.ChassisController: _CHASSIS,
    allocation.AllocationsController: _ALLOCATIONS,
    conductor.ConductorsController: _CONDUCTORS,
    inspection_rule.InspectionRulesController: _INSPECTION_RULES,
    deploy_template.DeployTemplatesController: _DEPLOY_TEMPLATES,
    runbook.RunbooksController: _RUNBOOKS,
    volume.ConnectorsController: _volume(volume.CONNECTORS),
    volume.TargetsController: _volume(volume.TARGETS),
    driver.DriversController: _DRIVERS,
    node_data.BIOSController: _BIOS,
    node_data.HistoryController: _HISTORY,
    node_data.FirmwareController: _FIRMWARE,
}

#: Handlers answering a list document, and one item.
_LISTS = frozenset({"get_all", "detail"})
_ITEMS = frozenset({"get_one", "post", "patch"})


#: The body schema of a create, where one handler serves several
#: controllers.
_CREATE_BODIES: dict[type, dict[str, Any]] = {
    volume.ConnectorsController: volume.CONNECTORS.schema,
    volume.TargetsController: volume.TARGETS.schema,
}


def create_body(controller: type) -> dict[str, Any] | None:
    """The body schema of ``controller``'s create, when its handler is
    shared (None: not known here)."""
    return next((b for c, b in _CREATE_BODIES.items()
                 if issubclass(controller, c)), None)


def resource_of(controller: type) -> Resource | None:
    return next((r for c, r in RESOURCES.items()
                 if issubclass(controller, c)), None)


def response(controller: type, handler: Callable,
             ver: int) -> dict[str, Any]:
    """The schema of a success answer of ``handler`` ({}: any JSON)."""
    name = handler.__name__
    if handler is allocation.NodeAllocationController.get_all:
        # A node's allocation: one item, at a list handler.
        return _ALLOCATIONS.item(ver)
    if handler is node_data.BIOSController.get_one:
        # One setting, under its name.
        return {"type": "object", "additionalProperties": _BIOS.item(ver)}
    answer = openapi_answers.answer(handler)
    if answer is not None:
        return answer(ver)
    res = resource_of(controller)
    if res is None:
        return {}
    if name in _LISTS:
        return schemas.collection(res.key, res.item(ver))
    if name in _ITEMS:
        return res.item(ver)
    return {}


def request(controller: type, schema: dict[str, Any],
            ver: int) -> dict[str, Any]:
    """``schema``, a handler's body schema, as ``ver`` takes it."""
    res = resource_of(controller)
    if res is None or "properties" not in schema:
        return schema
    return res.body(schema, ver)
