"""/v1/chassis: named groups of nodes, and ``/v1/chassis/{id}/nodes``."""

from __future__ import annotations

from typing import Any

from pecan import rest

from ironic.api import features, method, query, rest_routes, schemas
from ironic.api.controllers.v1 import (
    collection,
    descriptor,
    list_query,
    node,
    resource,
)
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, utils
from ironic.objects.chassis import Chassis

_CREATABLE = schemas.creatable(Chassis.fields)
_PATCHABLE = schemas.patchable(Chassis.fields)
_CHASSIS_SCHEMA: dict[str, Any] = schemas.body(Chassis.fields)
_LISTED = schemas.listed({*_PATCHABLE, "uuid"},
                         late=("uuid", "extra", "description"))


def _validate(doc: dict, what: str = "chassis") -> dict:
    api_utils.validate(_CHASSIS_SCHEMA, doc, what)
    values = dict(doc)
    if doc.get("uuid") is not None:
        if not utils.is_uuid_like(doc["uuid"]):
            raise query.expected("UUID", "uuid", doc["uuid"])
        values["uuid"] = utils.normalize_uuid(doc["uuid"])
    if values.get("extra") is None:
        values["extra"] = {}
    return values


def get_chassis(ident: str) -> Chassis:
    if not utils.is_uuid_like(ident):
        raise exception.InvalidUUID(uuid=ident)
    return Chassis.get(ident)


class ChassisNodesController(rest.RestController):
    """The nodes of one chassis: the node list, within the chassis."""

    _custom_actions = {"detail": ["GET"]}
    spec = node.SPEC

    def __init__(self, chassis_ident: str):
        self.chassis_ident = chassis_ident

    # A node named ``spec`` is still a node (refused here).
    _lookup_child = rest_routes.handler_child

    def _list(self, params: dict, detail: bool) -> dict:
        chassis = get_chassis(self.chassis_ident)
        url = f"chassis/{chassis.uuid}/nodes" + ("/detail" if detail
                                                  else "")
        return collection.list_items(
            node.SPEC, descriptor.Query(params, method.version()),
            detail=detail, url=url, within=[("chassis_id", chassis.id)])

    @expose()
    @api_method()
    def get_all(self, **params):
        return self._list(params, False)

    @expose()
    @api_method()
    def detail(self, **params):
        list_query.refuse_detail_param(params)
        return self._list(params, True)

    @expose()
    @api_method()
    def get_one(self, ident, **params):
        # Nodes are shown at /v1/nodes only.
        raise exception.MalformedRequestURI()

    @expose()
    @api_method(status=204)
    def delete(self, ident):
        # Nor deleted here: Ironic 39 answers as for a missing resource.
        raise exception.NotFound()


def _create(body: dict, ver: int) -> Chassis:
    resource.check_body(SPEC, body, _CREATABLE, ver, _CHASSIS_SCHEMA)
    chassis = Chassis(**_validate(body))
    chassis.create()
    return chassis


def _update(chassis: Chassis, patch: list, ver: int) -> Chassis:
    # The reference takes a patch of the uuid (and lists it first), to
    # refuse it once it is a UUID other than the chassis' own.
    doc, changed = resource.patch_values(
        SPEC, chassis, patch, ver=ver, patchable={*_PATCHABLE, "uuid"},
        required=(), listed=_LISTED)
    values = _validate(doc, "patch")
    if values.pop("uuid", chassis.uuid) != chassis.uuid:
        raise exception.InvalidParameterValue(
            err="Cannot overwrite UUID for an existing Chassis.")
    changed.discard("uuid")
    return resource.save_changed(SPEC, chassis, changed, values)


def _delete(chassis: Chassis) -> None:
    try:
        chassis.destroy()
    except exception.ChassisNotEmpty as e:
        raise exception.ChassisNotEmpty(chassis=chassis.uuid) from e


_CHASSIS_UUID = ("chassis_uuid", descriptor.IS_UUID)

SPEC = descriptor.Spec(
    # Ironic 39 checks the path argument's form first, in these words.
    ident_forms={"get": _CHASSIS_UUID, "delete": _CHASSIS_UUID,
                 "update": ("chassis_uuid", descriptor.SCHEMA_UUID)},
    singular="chassis", collection="chassis", obj_cls=Chassis,
    api_fields={"links": features.ALWAYS, "nodes": features.ALWAYS},
    default_fields=("uuid", "description"),
    subresources={"nodes": descriptor.SubResource(
        lambda ident, scope: ChassisNodesController(ident))},
    fetch=collection.object_fetch(
        Chassis, lambda marker: exception.ChassisNotFound(chassis=marker)),
    row=lambda chassis: chassis.as_dict(),
    item=lambda ident, verb: get_chassis(ident),
    create=_create, update=_update, delete=_delete,
    **collection.rule_hooks("chassis"))

ChassisController = collection.controller(SPEC, "ChassisController")
