"""/v1/ports: network interfaces of nodes.

Also served as ``/v1/nodes/{node}/ports`` and (from 1.24)
``/v1/portgroups/{portgroup}/ports``; those views only list.
"""

from __future__ import annotations

import re
from typing import Any

import pecan
from pecan import rest

from ironic.api import features, method, schemas
from ironic.api.controllers.v1 import node_policy, resource
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, utils
from ironic.objects.base import Field
from ironic.objects.port import Port
from ironic.objects.portgroup import Portgroup

SPEC = resource.Spec(
    singular="port", collection="ports", obj_cls=Port,
    api_fields={"node_uuid": features.ALWAYS,
                "portgroup_uuid": features.PORTGROUP_SUBRESOURCES,
                "links": features.ALWAYS},
    default_fields=("uuid", "address"),
    sources={"node_uuid": "node_id", "portgroup_uuid": "portgroup_id"})

#: The port's fields as a client writes them: the object's, with its node
#: and port group by UUID (and, from 1.94, its node by name).
FIELDS: dict[str, Field] = {
    **Port.fields,
    "node_uuid": schemas.reference("The node it belongs to.",
                                   nullable=False),
    "node_name": Field(94, nullable=False,
                       doc="The node it belongs to, by name (create)."),
    "portgroup_uuid": schemas.reference("The port group it is a member of."),
}
_CREATABLE = schemas.creatable(FIELDS)
_PATCHABLE = schemas.patchable(FIELDS)
_FILTERS = ("node", "node_uuid", "address", "portgroup", "shard",
            "conductor_groups")
_PORT_SCHEMA: dict[str, Any] = schemas.body(
    FIELDS, _CREATABLE | {"node_name"}, required=["address"])

# Keys of local_link_connection -> the feature that accepts each.
_LLC_KEYS = {
    "switch_id": features.LOCAL_LINK_CONNECTION,
    "port_id": features.LOCAL_LINK_CONNECTION,
    "switch_info": features.LOCAL_LINK_CONNECTION,
    "hostname": features.SMARTNIC,
    "network_type": features.LLC_NETWORK_TYPE,
    # OVN VTEP switches: accepted from 1.90, withdrawn again in 1.105.
    "vtep-logical-switch": features.LLC_VTEP,
    "vtep-physical-switch": features.LLC_VTEP,
}
_LLC_SCHEMA = {"type": "object",
               **Port.fields["local_link_connection"].schema}
# A switch is named by its MAC or by an OpenFlow datapath id (64 bits).
_DATAPATH_ID_RE = r"^(0x)?([0-9a-fA-F]{2}:?){7}[0-9a-fA-F]{2}$"


def _check_llc(llc: dict, ver: int | None, is_smartnic: bool) -> None:
    """Validate local_link_connection as a whole.

    ``ver`` None skips the version check of the keys (a patch that does not
    touch the field keeps what an earlier, newer client stored).
    """
    api_utils.validate(_LLC_SCHEMA, llc, "local_link_connection")
    for key in llc:
        if ver is not None and not _LLC_KEYS[key].available(ver):
            raise exception.NotAcceptable(
                f"The local_link_connection key '{key}' is not supported "
                f"in API version 1.{ver}.")
    if not llc or llc.get("network_type") == "unmanaged":
        return
    switch_id = llc.get("switch_id")
    if switch_id is not None and not (
            utils.is_valid_mac(switch_id) or
            re.fullmatch(_DATAPATH_ID_RE, switch_id)):
        raise exception.InvalidParameterValue(
            err=f"Invalid switch_id {switch_id!r} in local_link_connection: "
                f"expected a MAC address or an OpenFlow datapath id.")
    needed: tuple[str, ...]
    if is_smartnic:
        needed = ("port_id", "hostname")
    elif "vtep-logical-switch" in llc or "vtep-physical-switch" in llc:
        needed = ("port_id", "vtep-logical-switch", "vtep-physical-switch")
    else:
        needed = ("switch_id", "port_id")
    missing = [k for k in needed if not llc.get(k)]
    if missing:
        raise exception.InvalidParameterValue(
            err=f"local_link_connection is missing {', '.join(missing)}: "
                f"it needs {', '.join(needed)}.")


def _check_name(name: Any) -> None:
    # A UUID-shaped name could never be told apart from a UUID in a URL.
    if name is not None and utils.is_uuid_like(name):
        raise exception.InvalidName(name=name)


def _node_ref(doc: dict, ver: int):
    ident = doc.get("node_name") or doc.get("node_uuid")
    if ident is None:
        raise exception.MissingParameterValue(
            err="A port needs the node it belongs to (node_uuid).")
    return resource.node_for_body(
        ident, allow_name=features.PORT_NODE_NAME.available(ver))


def _portgroup_ref(pg_uuid: str | None, node_id: int) -> Portgroup | None:
    if pg_uuid is None:
        return None
    if not utils.is_uuid_like(pg_uuid):
        raise exception.InvalidUUID(uuid=pg_uuid)
    try:
        pg = Portgroup.get(pg_uuid)
    except exception.PortgroupNotFound as e:
        raise exception.InvalidParameterValue(err=str(e)) from e
    if pg.node_id != node_id:
        raise exception.InvalidParameterValue(
            err=f"Port can not be added to portgroup {pg.uuid}: it belongs "
                f"to a different node.")
    return pg


def _check_membership(pg: Portgroup, values: dict,
                      port_id: int | None) -> None:
    """A member must fit its port group (standalone use, physnet)."""
    if values["pxe_enabled"] and not pg.standalone_ports_supported:
        raise exception.Conflict(
            f"Port group {pg.uuid} does not support standalone ports, so a "
            f"port with pxe_enabled set can not be one of its members.")
    criteria = [("portgroup_id", pg.id)]
    if port_id is not None:
        criteria.append(("!id", port_id))
    rows = Port.list_rows(criteria,
                          columns=["id", "uuid", "physical_network"])
    physnets = {r["physical_network"] for r in rows}
    if physnets and physnets != {values.get("physical_network")}:
        raise exception.Conflict(
            f"Port with physical network "
            f"{values.get('physical_network')} can not be a member of port "
            f"group {pg.uuid}, whose ports are on physical network(s) "
            f"{', '.join(sorted(str(p) for p in physnets))}.")


def _validate(doc: dict, ver: int, port_id: int | None = None,
              changed: set[str] | None = None) -> dict:
    """Check a whole port document and turn it into column values.

    ``changed`` (on PATCH) names the fields the patch touched; the others
    keep their stored values even if this version could not set them.
    """
    api_utils.validate(_PORT_SCHEMA, doc, "port")
    values = {k: v for k, v in doc.items()
              if k not in ("node_uuid", "node_name", "portgroup_uuid")}
    values["address"] = resource.normalize_mac(doc["address"])
    if doc.get("uuid") is not None:
        if not utils.is_uuid_like(doc["uuid"]):
            raise exception.InvalidUUID(uuid=doc["uuid"])
        values["uuid"] = utils.normalize_uuid(doc["uuid"])
    values["node_id"] = _node_ref(doc, ver).id
    for key in ("pxe_enabled", "is_smartnic"):
        if doc.get(key) is not None:
            values[key] = resource.as_bool(doc[key], key)
        else:
            values[key] = Port.fields[key].default
    for key in ("extra", "local_link_connection"):
        if values.get(key) is None:
            values[key] = {}
    values.setdefault("available_for_dynamic_portgroup",
                      Port.fields["available_for_dynamic_portgroup"].default)
    llc_ver = ver if changed is None or \
        "local_link_connection" in changed else None
    _check_llc(values["local_link_connection"], llc_ver,
               values["is_smartnic"])
    _check_name(values.get("name"))
    pg = _portgroup_ref(doc.get("portgroup_uuid"), values["node_id"])
    values["portgroup_id"] = pg.id if pg else None
    if pg is not None:
        _check_membership(pg, values, port_id)
    return values


def _check_no_null_flag(patch: Any) -> None:
    """available_for_dynamic_portgroup is true or false, never null; a
    remove restores the default (true)."""
    for op in patch if isinstance(patch, list) else ():
        if isinstance(op, dict) and op.get("op") in ("add", "replace") \
                and op.get("path") == "/available_for_dynamic_portgroup" \
                and "value" in op and not isinstance(op["value"], bool):
            raise exception.InvalidParameterValue(
                err=f"available_for_dynamic_portgroup must be true or "
                    f"false, not {op['value']!r}.")


class _Relations:
    """UUIDs of the nodes and port groups of a page of ports, in bulk."""

    def __init__(self, rows: list[dict], fields: list[str]):
        # {id: UUID}, looked up with a row's id, which may be None
        self.nodes: dict[Any, str] = resource.node_uuids(rows) \
            if "node_uuid" in fields else {}
        self.portgroups: dict[Any, str] = resource.portgroup_uuids(rows) \
            if "portgroup_uuid" in fields else {}


def port_view(row: dict, fields: list[str], url: str,
              rel: _Relations) -> dict:
    """The API document of one port, with only ``fields``."""
    out: dict[str, Any] = {}
    for name in fields:
        if name == "node_uuid":
            out[name] = rel.nodes.get(row.get("node_id"))
        elif name == "portgroup_uuid":
            out[name] = rel.portgroups.get(row.get("portgroup_id"))
        elif name == "links":
            out[name] = api_utils.link("ports", row["uuid"], url)
        elif name in ("created_at", "updated_at"):
            out[name] = resource.iso(row.get(name))
        else:
            out[name] = row.get(name)
    return out


def show_port(port: Port, fields: list[str] | None = None) -> dict:
    fields = fields or SPEC.visible(method.version())
    row = dict(port.as_dict(), id=port.id)
    return port_view(row, fields, method.public_url(),
                     _Relations([row], fields))


def get_port(ident: str) -> Port:
    """A port by UUID, or by name from 1.88."""
    if utils.is_uuid_like(ident):
        return Port.get(utils.normalize_uuid(ident))
    if features.PORT_NAME.available(method.version()):
        return Port.get(ident)
    raise exception.InvalidUUID(uuid=ident)


def _conductor_groups(value: str) -> list[str]:
    return [g.strip().lower() for g in value.split(",") if g.strip()]


def _authorized(ident: str, rule: str) -> Port:
    port = get_port(ident)
    resource.check_node_item("port", rule, port.node_id,
                             exception.PortNotFound(port=ident))
    return port


class PortsController(api_utils.ItemLookup, rest.RestController):
    _custom_actions = {"detail": ["GET"]}

    def __init__(self, node_ident: str | None = None,
                 portgroup_ident: str | None = None):
        self.node_ident = node_ident
        self.portgroup_ident = portgroup_ident

    def _check_top_level(self) -> None:
        # Items are managed at /v1/ports only; the nested views just list.
        if self.node_ident or self.portgroup_ident:
            raise exception.OperationNotPermitted()

    def _filters(self, params: dict, ver: int) -> list[tuple[str, Any]]:
        conds: list[tuple[str, Any]] = []
        node_ident = self.node_ident or params.get("node_uuid") or \
            params.get("node")
        if params.get("node_uuid") and not self.node_ident and \
                not utils.is_uuid_like(params["node_uuid"]):
            raise exception.InvalidUUID(uuid=params["node_uuid"])
        if node_ident:
            node = resource.find_node(node_ident, ver)
            if self.node_ident:
                # As Ironic 39 answers: the ports of a node the caller may
                # not see are a 404, not an empty list.
                node_policy.check("baremetal:node:get",
                                  node_policy.target(node.owner, node.lessee),
                                  node_ident)
            conds.append(("node_id", node.id))
        pg_ident = self.portgroup_ident or params.get("portgroup")
        if pg_ident:
            resource.need_version(ver, features.PORTGROUP_SUBRESOURCES,
                                  "The 'portgroup' filter")
            conds.append(("portgroup_id", Portgroup.get(pg_ident).id))
        if params.get("address"):
            addr = params["address"]
            if not utils.is_valid_mac(addr):
                raise exception.InvalidParameterValue(
                    err=f"Expected valid MAC address for address: {addr}")
            conds.append(("address", utils.normalize_mac(addr)))
        if params.get("shard"):
            resource.need_version(ver, features.SHARDS,
                                  "The 'shard' filter")
            shards = [x.strip() for x in params["shard"].split(",")
                      if x.strip()]
            conds.append(("node.shard", shards))
        if params.get("conductor_groups"):
            resource.need_version(ver, features.CONDUCTOR_GROUPS_FILTER,
                                  "The 'conductor_groups' filter")
            groups = _conductor_groups(params["conductor_groups"])
            conds.append(("node.conductor_group", groups))
        return conds

    def _list(self, params: dict, detail: bool, url: str) -> dict:
        ver = method.version()
        visible = resource.project_filter("port")
        if self.portgroup_ident and \
                not features.PORTGROUP_SUBRESOURCES.available(ver):
            raise exception.NotFound()
        args = resource.list_args(SPEC, params, detail=detail, ver=ver,
                                  filters=_FILTERS)
        rows = Port.list_rows(
            self._filters(params, ver) + visible,
            columns=SPEC.columns_for(args.fields), limit=args.limit,
            marker=args.marker, sort_key=args.sort_key,
            sort_dir=args.sort_dir,
            marker_not_found=exception.PortNotFound(port=args.marker))
        base = method.public_url()
        rel = _Relations(rows, args.fields)
        items = [port_view(r, args.fields, base, rel) for r in rows]
        return api_utils.collection("ports", items, args.limit, url, params,
                                    rows[-1]["uuid"] if rows else None)

    def _url(self, detail: bool) -> str:
        if self.portgroup_ident:
            url = f"portgroups/{self.portgroup_ident}/ports"
        elif self.node_ident:
            url = f"nodes/{self.node_ident}/ports"
        else:
            url = "ports"
        return url + ("/detail" if detail else "")

    @expose()
    @api_method()
    def get_all(self, **params):
        return self._list(params, False, self._url(False))

    @expose()
    @api_method()
    def detail(self, **params):
        if "detail" in params:
            raise exception.InvalidParameterValue(
                err="The 'detail' parameter can not be used with /detail.")
        return self._list(params, True, self._url(True))

    @expose()
    @api_method()
    def get_one(self, ident, **params):
        self._check_top_level()
        fields = resource.one_args(SPEC, params, method.version())
        port = _authorized(ident, "baremetal:port:get")
        return show_port(port, fields)

    @expose()
    @api_method(status=201)
    def post(self):
        self._check_top_level()
        ver = method.version()
        body = method.json_body()
        names = dict(body)
        if features.PORT_NODE_NAME.available(ver):
            names.pop("node_name", None)
        resource.check_body(SPEC, names, _CREATABLE, ver)
        port = Port(**_validate(body, ver))
        resource.authorize_for_node("baremetal:port:create", port.node_id)
        resource.check_unlocked(port.node_id)
        port.create()
        pecan.response.location = \
            f"{method.public_url()}/v1/ports/{port.uuid}"
        return show_port(port)

    @expose()
    @api_method()
    def patch(self, ident):
        self._check_top_level()
        ver = method.version()
        patch = method.json_body(list)
        _check_no_null_flag(patch)
        port = _authorized(ident, "baremetal:port:update")
        current = show_port(port, SPEC.known())
        doc, changed = resource.patch_values(
            SPEC, current, patch, ver=ver, patchable=_PATCHABLE,
            required=("address", "node_uuid"))
        values = _validate({k: v for k, v in doc.items() if v is not None},
                           ver, port.id, changed)
        resource.check_unlocked(port.node_id, values["node_id"])
        columns = {"node_uuid": "node_id", "portgroup_uuid": "portgroup_id"}
        for name in changed:
            col = columns.get(name, name)
            setattr(port, col, values.get(col))
        port.save()
        return show_port(port)

    @expose()
    @api_method(status=204)
    def delete(self, ident):
        self._check_top_level()
        port = _authorized(ident, "baremetal:port:delete")
        resource.check_unlocked(port.node_id)
        port.destroy()
