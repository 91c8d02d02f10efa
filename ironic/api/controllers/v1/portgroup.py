"""/v1/portgroups (API 1.23+): bonds of a node's ports.

Also served as ``/v1/nodes/{node}/portgroups`` (1.24+, list only), with the
member ports at ``/v1/portgroups/{portgroup}/ports`` (1.24+).
"""

from __future__ import annotations

from typing import Any

import pecan
from pecan import rest

from ironic.api import features, method, schemas
from ironic.api.controllers.v1 import port as port_api
from ironic.api.controllers.v1 import resource
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, utils
from ironic.conf import CONF
from ironic.objects.base import Field
from ironic.objects.port import Port
from ironic.objects.portgroup import Portgroup

SPEC = resource.Spec(
    singular="portgroup", collection="portgroups", obj_cls=Portgroup,
    api_fields={"node_uuid": features.PORTGROUPS,
                "links": features.PORTGROUPS,
                "ports": features.PORTGROUP_SUBRESOURCES},
    default_fields=("uuid", "address", "name"),
    sources={"node_uuid": "node_id"})

#: The port group's fields as a client writes them: the object's, with
#: its node by UUID.
FIELDS: dict[str, Field] = {
    **Portgroup.fields,
    "node_uuid": schemas.reference("The node it belongs to.",
                                   nullable=False),
}
_CREATABLE = schemas.creatable(FIELDS)
_PATCHABLE = schemas.patchable(FIELDS)
_FILTERS = ("node", "address", "shard", "conductor_groups")

_PORTGROUP_SCHEMA: dict[str, Any] = schemas.body(
    FIELDS, required=["node_uuid"])

def _validate(doc: dict) -> dict:
    """Check a whole port group document and turn it into column values."""
    api_utils.validate(_PORTGROUP_SCHEMA, doc, "portgroup")
    values = {k: v for k, v in doc.items() if k != "node_uuid"}
    if doc.get("uuid") is not None:
        if not utils.is_uuid_like(doc["uuid"]):
            raise exception.InvalidUUID(uuid=doc["uuid"])
        values["uuid"] = utils.normalize_uuid(doc["uuid"])
    name = doc.get("name")
    if name is not None and not utils.is_valid_logical_name(name):
        raise exception.InvalidName(name=name)
    if doc.get("address") is not None:
        values["address"] = resource.normalize_mac(doc["address"])
    values["node_id"] = resource.node_for_body(
        doc["node_uuid"], allow_name=False).id
    sps = doc.get("standalone_ports_supported")
    values["standalone_ports_supported"] = True if sps is None else \
        resource.as_bool(sps, "standalone_ports_supported")
    values["mode"] = doc.get("mode") or CONF.default_portgroup_mode
    for key in ("extra", "properties"):
        if values.get(key) is None:
            values[key] = {}
    return values


def _member_ports(pg_id: int) -> list[dict]:
    return Port.list_rows([("portgroup_id", pg_id)],
                          columns=["id", "uuid", "pxe_enabled"])


def _check_update(pg: Portgroup, values: dict, changed: set[str]) -> None:
    """Changes that would strand or contradict the member ports."""
    if not changed & {"node_uuid", "standalone_ports_supported"}:
        return
    members = _member_ports(pg.id)
    if "node_uuid" in changed and members:
        raise exception.PortgroupNotEmpty(portgroup=pg.uuid)
    if not values["standalone_ports_supported"] and any(
            m["pxe_enabled"] for m in members):
        raise exception.Conflict(
            f"Port group {pg.uuid} has member ports with pxe_enabled set, "
            f"so it must keep supporting standalone ports.")


def portgroup_view(row: dict, fields: list[str], url: str,
                   nodes: dict[Any, str]) -> dict:
    """The API document of one port group, with only ``fields``."""
    out: dict[str, Any] = {}
    uuid = row["uuid"]
    for name in fields:
        if name == "node_uuid":
            out[name] = nodes.get(row.get("node_id"))
        elif name == "links":
            out[name] = api_utils.link("portgroups", uuid, url)
        elif name == "ports":
            out[name] = api_utils.link("portgroups", f"{uuid}/ports", url)
        elif name in ("created_at", "updated_at"):
            out[name] = resource.iso(row.get(name))
        else:
            out[name] = row.get(name)
    return out


def show_portgroup(pg: Portgroup, fields: list[str] | None = None) -> dict:
    fields = fields or SPEC.visible(method.version())
    row = dict(pg.as_dict(), id=pg.id)
    return portgroup_view(row, fields, method.public_url(),
                          resource.node_uuids([row]))


def get_portgroup(ident: str) -> Portgroup:
    if utils.is_uuid_like(ident) or utils.is_valid_logical_name(ident):
        return Portgroup.get(ident)
    raise exception.InvalidUuidOrName(name=ident)


def _authorized(ident: str, rule: str) -> Portgroup:
    pg = get_portgroup(ident)
    resource.check_node_item("portgroup", rule, pg.node_id,
                             exception.PortgroupNotFound(portgroup=ident))
    return pg


class PortgroupsController(rest.RestController):
    _custom_actions = {"detail": ["GET"]}
    #: The ports of a port group, listed from 1.24 (built by _lookup,
    #: which also passes the node the collection is under).
    _subcontrollers = {"ports": port_api.PortsController}
    _sub_since = {"ports": features.PORTGROUP_SUBRESOURCES}

    def __init__(self, node_ident: str | None = None):
        self.node_ident = node_ident

    @expose()
    def _lookup(self, ident, sub=None, *remainder):
        if sub is None:
            return api_utils.item_without_handler(self, ident)
        if sub not in self._subcontrollers or \
                not self._sub_since[sub].available(method.version()):
            pecan.abort(404)
        return port_api.PortsController(portgroup_ident=ident,
                                        node_ident=self.node_ident), \
            remainder

    def _check_top_level(self) -> None:
        if self.node_ident:
            raise exception.OperationNotPermitted()

    def _filters(self, params: dict, ver: int) -> list[tuple[str, Any]]:
        conds: list[tuple[str, Any]] = []
        node_ident = self.node_ident or params.get("node")
        if node_ident:
            conds.append(("node_id", resource.find_node(node_ident, ver).id))
        if params.get("address"):
            addr = params["address"]
            conds.append(("address", utils.normalize_mac(addr)
                          if utils.is_valid_mac(addr) else addr))
        if params.get("shard"):
            resource.need_version(ver, features.PORTGROUP_SHARD_FILTER,
                                  "The 'shard' filter")
            shards = [x.strip() for x in params["shard"].split(",")
                      if x.strip()]
            conds.append(("node.shard", shards))
        if params.get("conductor_groups"):
            resource.need_version(ver, features.CONDUCTOR_GROUPS_FILTER,
                                  "The 'conductor_groups' filter")
            groups = [g.strip().lower()
                      for g in params["conductor_groups"].split(",")
                      if g.strip()]
            conds.append(("node.conductor_group", groups))
        return conds

    def _list(self, params: dict, detail: bool) -> dict:
        ver = method.version()
        visible = resource.project_filter("portgroup")
        if self.node_ident and \
                not features.PORTGROUP_SUBRESOURCES.available(ver):
            raise exception.NotFound()
        args = resource.list_args(SPEC, params, detail=detail, ver=ver,
                                  filters=_FILTERS)
        rows = Portgroup.list_rows(
            self._filters(params, ver) + visible,
            columns=SPEC.columns_for(args.fields), limit=args.limit,
            marker=args.marker, sort_key=args.sort_key,
            sort_dir=args.sort_dir,
            marker_not_found=exception.PortgroupNotFound(
                portgroup=args.marker))
        base = method.public_url()
        nodes = resource.node_uuids(rows) if "node_uuid" in args.fields \
            else {}
        items = [portgroup_view(r, args.fields, base, nodes) for r in rows]
        url = f"nodes/{self.node_ident}/portgroups" if self.node_ident \
            else "portgroups"
        url += "/detail" if detail else ""
        return api_utils.collection("portgroups", items, args.limit, url,
                                    params,
                                    rows[-1]["uuid"] if rows else None)

    @expose()
    @api_method(features.PORTGROUPS)
    def get_all(self, **params):
        return self._list(params, False)

    @expose()
    @api_method(features.PORTGROUPS)
    def detail(self, **params):
        if "detail" in params:
            raise exception.InvalidParameterValue(
                err="The 'detail' parameter can not be used with /detail.")
        return self._list(params, True)

    @expose()
    @api_method(features.PORTGROUPS)
    def get_one(self, ident, **params):
        self._check_top_level()
        fields = resource.one_args(SPEC, params, method.version())
        return show_portgroup(_authorized(ident, "baremetal:portgroup:get"),
                              fields)

    @expose()
    @api_method(features.PORTGROUPS, status=201)
    def post(self):
        self._check_top_level()
        ver = method.version()
        body = method.json_body()
        resource.check_body(SPEC, body, _CREATABLE, ver)
        pg = Portgroup(**_validate(body))
        resource.authorize_for_node("baremetal:portgroup:create", pg.node_id)
        resource.check_unlocked(pg.node_id)
        pg.create()
        pecan.response.location = \
            f"{method.public_url()}/v1/portgroups/{pg.uuid}"
        return show_portgroup(pg)

    @expose()
    @api_method(features.PORTGROUPS)
    def patch(self, ident):
        self._check_top_level()
        ver = method.version()
        patch = method.json_body(list)
        pg = _authorized(ident, "baremetal:portgroup:update")
        current = show_portgroup(pg, SPEC.known())
        doc, changed = resource.patch_values(
            SPEC, current, patch, ver=ver, patchable=_PATCHABLE,
            required=("node_uuid",))
        values = _validate({k: v for k, v in doc.items() if v is not None})
        _check_update(pg, values, changed)
        resource.check_unlocked(pg.node_id, values["node_id"])
        for name in changed:
            col = "node_id" if name == "node_uuid" else name
            setattr(pg, col, values.get(col))
        pg.save()
        return show_portgroup(pg)

    @expose()
    @api_method(features.PORTGROUPS, status=204)
    def delete(self, ident):
        self._check_top_level()
        pg = _authorized(ident, "baremetal:portgroup:delete")
        resource.check_unlocked(pg.node_id)
        try:
            pg.destroy()
        except exception.PortgroupNotEmpty as e:
            raise exception.PortgroupNotEmpty(portgroup=pg.uuid) from e
