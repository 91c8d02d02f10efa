"""/v1/chassis: named groups of nodes, and ``/v1/chassis/{id}/nodes``."""

from __future__ import annotations

from typing import Any

import pecan
from pecan import rest

from ironic.api import features, method, schemas
from ironic.api.controllers.v1 import node_list, resource
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, policy, utils
from ironic.objects.chassis import Chassis

SPEC = resource.Spec(
    singular="chassis", collection="chassis", obj_cls=Chassis,
    api_fields={"links": features.ALWAYS, "nodes": features.ALWAYS},
    default_fields=("uuid", "description"))

_CREATABLE = schemas.creatable(Chassis.fields)
_PATCHABLE = schemas.patchable(Chassis.fields)
_CHASSIS_SCHEMA: dict[str, Any] = schemas.body(Chassis.fields)

def _validate(doc: dict) -> dict:
    api_utils.validate(_CHASSIS_SCHEMA, doc, "chassis")
    values = dict(doc)
    if doc.get("uuid") is not None:
        if not utils.is_uuid_like(doc["uuid"]):
            raise exception.InvalidUUID(uuid=doc["uuid"])
        values["uuid"] = utils.normalize_uuid(doc["uuid"])
    if values.get("extra") is None:
        values["extra"] = {}
    return values


def chassis_view(row: dict, fields: list[str], url: str) -> dict:
    out: dict[str, Any] = {}
    uuid = row["uuid"]
    for name in fields:
        if name == "links":
            out[name] = api_utils.link("chassis", uuid, url)
        elif name == "nodes":
            out[name] = api_utils.link("chassis", f"{uuid}/nodes", url)
        elif name in ("created_at", "updated_at"):
            out[name] = resource.iso(row.get(name))
        else:
            out[name] = row.get(name)
    return out


def show_chassis(chassis: Chassis, fields: list[str] | None = None) -> dict:
    fields = fields or SPEC.visible(method.version())
    return chassis_view(chassis.as_dict(), fields, method.public_url())


def get_chassis(ident: str) -> Chassis:
    if not utils.is_uuid_like(ident):
        raise exception.InvalidUUID(uuid=ident)
    return Chassis.get(ident)


class ChassisNodesController(rest.RestController):
    """The nodes of one chassis: a node list with a chassis filter."""

    _custom_actions = {"detail": ["GET"]}

    def __init__(self, chassis_ident: str):
        self.chassis_ident = chassis_ident

    def _list(self, params: dict, detail: bool) -> dict:
        chassis = get_chassis(self.chassis_ident)
        url = f"chassis/{chassis.uuid}/nodes" + ("/detail" if detail
                                                  else "")
        return node_list.list_nodes(
            params, detail=detail, resource_url=url,
            extra_criteria=[("chassis_id", chassis.id)])

    @expose()
    @api_method()
    def get_all(self, **params):
        return self._list(params, False)

    @expose()
    @api_method()
    def detail(self, **params):
        if "detail" in params:
            raise exception.InvalidParameterValue(
                err="The 'detail' parameter can not be used with /detail.")
        return self._list(params, True)

    @expose()
    @api_method()
    def get_one(self, ident, **params):
        # Nodes are shown at /v1/nodes only.
        raise exception.OperationNotPermitted()


class ChassisController(rest.RestController):
    _custom_actions = {"detail": ["GET"]}
    _subcontrollers = {"nodes": ChassisNodesController}

    @expose()
    def _lookup(self, ident, sub=None, *remainder):
        if sub is None:
            return api_utils.item_without_handler(self, ident)
        if sub not in self._subcontrollers:
            pecan.abort(404)
        return self._subcontrollers[sub](ident), remainder

    def _list(self, params: dict, detail: bool) -> dict:
        policy.authorize("baremetal:chassis:list", method.context())
        ver = method.version()
        args = resource.list_args(SPEC, params, detail=detail, ver=ver,
                                  filters=())
        rows = Chassis.list_rows(
            columns=SPEC.columns_for(args.fields), limit=args.limit,
            marker=args.marker, sort_key=args.sort_key,
            sort_dir=args.sort_dir,
            marker_not_found=exception.ChassisNotFound(chassis=args.marker))
        base = method.public_url()
        items = [chassis_view(r, args.fields, base) for r in rows]
        url = "chassis/detail" if detail else "chassis"
        return api_utils.collection("chassis", items, args.limit, url,
                                    params,
                                    rows[-1]["uuid"] if rows else None)

    @expose()
    @api_method()
    def get_all(self, **params):
        return self._list(params, False)

    @expose()
    @api_method()
    def detail(self, **params):
        if "detail" in params:
            raise exception.InvalidParameterValue(
                err="The 'detail' parameter can not be used with /detail.")
        return self._list(params, True)

    @expose()
    @api_method()
    def get_one(self, ident, **params):
        policy.authorize("baremetal:chassis:get", method.context())
        fields = resource.one_args(SPEC, params, method.version())
        return show_chassis(get_chassis(ident), fields)

    @expose()
    @api_method(status=201)
    def post(self):
        policy.authorize("baremetal:chassis:create", method.context())
        body = method.json_body()
        resource.check_body(SPEC, body, _CREATABLE, method.version())
        chassis = Chassis(**_validate(body))
        chassis.create()
        pecan.response.location = \
            f"{method.public_url()}/v1/chassis/{chassis.uuid}"
        return show_chassis(chassis)

    @expose()
    @api_method()
    def patch(self, ident):
        policy.authorize("baremetal:chassis:update", method.context())
        ver = method.version()
        patch = method.json_body(list)
        chassis = get_chassis(ident)
        current = show_chassis(chassis, SPEC.known())
        doc, changed = resource.patch_values(
            SPEC, current, patch, ver=ver, patchable=_PATCHABLE,
            required=())
        values = _validate(doc)
        for name in changed:
            setattr(chassis, name, values.get(name))
        chassis.save()
        return show_chassis(chassis)

    @expose()
    @api_method(status=204)
    def delete(self, ident):
        policy.authorize("baremetal:chassis:delete", method.context())
        chassis = get_chassis(ident)
        try:
            chassis.destroy()
        except exception.ChassisNotEmpty as e:
            raise exception.ChassisNotEmpty(chassis=chassis.uuid) from e
