"""/v1/ports: network interfaces of nodes.

Also served as ``/v1/nodes/{node}/ports`` and (from 1.24)
``/v1/portgroups/{portgroup}/ports``; those views only list.
"""

from __future__ import annotations

import re
from typing import Any

from ironic.api import features, method, query, schemas
from ironic.api.controllers.v1 import (
    collection,
    descriptor,
    list_query,
    node_policy,
    resource,
)
from ironic.api.controllers.v1 import utils as api_utils
from ironic.common import exception, utils
from ironic.objects.base import Field
from ironic.objects.port import Port
from ironic.objects.portgroup import Portgroup

#: The port's fields as a client writes them: the object's, with its node
#: and port group by UUID (and, from 1.94, its node by name).
FIELDS: dict[str, Field] = {
    **Port.fields,
    "node_uuid": schemas.reference("The node it belongs to.",
                                   nullable=False),
    "node_ident": Field(94, nullable=False,
                       doc="The node it belongs to, by name (create)."),
    "portgroup_uuid": schemas.reference("The port group it is a member of."),
}
_CREATABLE = schemas.creatable(FIELDS)
_PATCHABLE = schemas.patchable(FIELDS)
#: The reference lists ``node_ident`` too: a create's alternative to
#: ``node_uuid``.
_LISTED = schemas.listed(
    {*_PATCHABLE, "node_ident"},
    late=("name", "description", "vendor", "category",
          "available_for_dynamic_portgroup"))
_PORT_SCHEMA: dict[str, Any] = schemas.body(
    FIELDS, _CREATABLE | {"node_ident"}, required=["address"])

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


# The reference names a port's node by UUID or by its own ``node_ident``
# member, one of the two, and says so of a body giving neither.
_ONE_NODE = {"oneOf": [{"required": ["node_ident"]},
                       {"required": ["node_uuid"]}]}


def _node_ref(doc: dict, ver: int, patching: bool) -> resource.NodeRef:
    if doc.get("node_ident") is not None:
        return resource.node_for_body(
            doc["node_ident"],
            allow_name=features.PORT_NODE_NAME.available(ver))
    if doc.get("node_uuid") is None:
        api_utils.validate(_ONE_NODE, doc, "port")
    if patching:
        return resource.node_for_patch(doc["node_uuid"])
    return resource.node_for_body(doc["node_uuid"], allow_name=False)


def _portgroup_ref(pg_uuid: str | None, node_id: int, patching: bool
                   ) -> Portgroup | None:
    if pg_uuid is None:
        return None
    if not utils.is_uuid_like(pg_uuid) and not patching:
        raise query.expected("UUID", "portgroup_uuid", pg_uuid)
    try:
        if not utils.is_uuid_like(pg_uuid):
            # A patch's value is looked up as a UUID only, as the
            # reference does: any other names no port group.
            raise exception.PortgroupNotFound(portgroup=pg_uuid)
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
              changed: set[str] | None = None
              ) -> tuple[dict, resource.NodeRef]:
    """Check a whole port document and turn it into column values; with
    the node it names, as read for the rest of the request.

    ``changed`` (on PATCH) names the fields the patch touched; the others
    keep their stored values even if this version could not set them.
    """
    api_utils.validate(_PORT_SCHEMA, doc,
                       "port" if changed is None else "patch")
    values = {k: v for k, v in doc.items()
              if k not in ("node_uuid", "node_ident", "portgroup_uuid")}
    values["address"] = resource.normalize_mac(doc["address"])
    if doc.get("uuid") is not None:
        if not utils.is_uuid_like(doc["uuid"]):
            raise query.expected("UUID", "uuid", doc["uuid"])
        values["uuid"] = utils.normalize_uuid(doc["uuid"])
    node = _node_ref(doc, ver, patching=changed is not None
                     and "node_uuid" in changed)
    values["node_id"] = node.id
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
    pg = _portgroup_ref(doc.get("portgroup_uuid"), values["node_id"],
                        patching=changed is not None)
    values["portgroup_id"] = pg.id if pg else None
    if pg is not None:
        _check_membership(pg, values, port_id)
    return values, node


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


def get_port(ident: str) -> Port:
    """A port by UUID, or by name from 1.88."""
    if utils.is_uuid_like(ident):
        return Port.get(utils.normalize_uuid(ident))
    if features.PORT_NAME.available(method.version()):
        return Port.get(ident)
    raise exception.InvalidUUID(uuid=ident)


def _authorized(ident: str, rule: str) -> Port:
    port = get_port(ident)
    resource.check_node_item("port", rule, port.node_id,
                             exception.PortNotFound(port=ident))
    return port


# --- the list's filters ------------------------------------------------------

# Every value of these filters, an empty one too, is checked for its form
# (the Filter's check) before anything is looked up.

#: The forms of the port list's filter values, as Ironic 39 words them.
_MAC = descriptor.expected("valid MAC address", descriptor.is_query_mac)


def node_filter(ident: str, q: descriptor.Query) -> descriptor.Criteria:
    """Items of the node ``ident`` names (by UUID, or by name from 1.5)."""
    if "node" in q.scope:
        # The URL names the node (see the list scope).
        return []
    return [("node_id", resource.find_node(ident, q.ver).id)]


def _portgroup_filter(ident: str, q: descriptor.Query
                      ) -> descriptor.Criteria:
    if "portgroup" in q.scope:
        return []
    return [("portgroup_id", Portgroup.get(ident).id)]


def address_filter(addr: str, q: descriptor.Query) -> descriptor.Criteria:
    """Items with this MAC address (its form checked already)."""
    return [("address", utils.normalize_mac(addr))]


def shard_filter(value: str, q: descriptor.Query) -> descriptor.Criteria:
    """Items of nodes in any of these comma-separated shards."""
    shards = [x.strip() for x in value.split(",") if x.strip()]
    return [("node.shard", shards)] if value else []


def conductor_groups_filter(value: str, q: descriptor.Query
                            ) -> descriptor.Criteria:
    """Items of nodes in any of these comma-separated conductor groups."""
    groups = [g.strip().lower() for g in value.split(",") if g.strip()]
    return [("node.conductor_group", groups)] if value else []


def _check_filters(q: descriptor.Query) -> None:
    """As Ironic 39: the ports of one node, one port group or one shard at
    a time (403 for more), and conductor groups with none of node, port
    group or address (400)."""
    one_of = (list_query.given(q, "node", "node_uuid"),
              list_query.given(q, "portgroup"), list_query.given(q, "shard"))
    if sum(one_of) > 1:
        raise exception.OperationNotPermitted()
    if list_query.given(q, "conductor_groups") and list_query.given(
            q, "node", "node_uuid", "portgroup", "address"):
        raise exception.InvalidParameterValue(
            err="Filtering by conductor_groups cannot be combined with "
                "node_ident, portgroup_ident, or node address filters.")


def _list_scope(q: descriptor.Query) -> descriptor.Criteria:
    """The caller's projects, and the node or port group in the URL."""
    conds = resource.project_filter("port")
    if "portgroup" in q.scope:
        if not features.PORTGROUP_SUBRESOURCES.available(q.ver):
            raise exception.NotFound()
        ident = q.scope["portgroup"]
        if not descriptor.is_uuid_or_name(ident):
            raise method.malformed_in_path("portgroup", ident)
        conds.append(("portgroup_id", Portgroup.get(ident).id))
    if "node" in q.scope:
        node = resource.find_node(q.scope["node"], q.ver, in_path=True)
        # As Ironic 39 answers: the ports of a node the caller may not see
        # are a 404, not an empty list.
        node_policy.check("baremetal:node:get",
                          node_policy.target(node.owner, node.lessee),
                          q.scope["node"])
        conds.append(("node_id", node.id))
    return conds


# --- items ------------------------------------------------------------------

def _create(body: dict, ver: int) -> resource.Created:
    names = dict(body)
    if features.PORT_NODE_NAME.available(ver):
        names.pop("node_ident", None)
    resource.check_body(SPEC, names, _CREATABLE, ver, _PORT_SCHEMA)
    values, node = _validate(body, ver)
    port = Port(**values)
    resource.authorize_for_node("baremetal:port:create", node)
    resource.check_unlocked(node)
    port.create()
    return resource.Created(port, node.uuid)


def _update(port: Port, patch: list, ver: int) -> Port:
    _check_no_null_flag(patch)
    doc, changed = resource.patch_values(
        SPEC, port, patch, ver=ver, patchable=_PATCHABLE,
        required=("address", "node_uuid"), listed=_LISTED)
    values, node = _validate(
        {k: v for k, v in doc.items() if v is not None}, ver, port.id,
        changed)
    resource.check_unlocked(port.node_id, node)
    return resource.save_changed(SPEC, port, changed, values)


def _delete(port: Port) -> None:
    resource.check_unlocked(port.node_id)
    port.destroy()



_PORT_IDENT = ("port_ident", descriptor.UUID_OR_NAME)

SPEC = descriptor.Spec(
    # Ironic 39 checks the path argument's form first; a port is deleted
    # by UUID only.
    ident_forms={"get": _PORT_IDENT, "update": _PORT_IDENT,
                 "delete": ("port_uuid", descriptor.IS_UUID)},
    singular="port", collection="ports", obj_cls=Port,
    lookup_before_fields=True,
    api_fields={"node_uuid": features.ALWAYS,
                "portgroup_uuid": features.PORTGROUP_SUBRESOURCES,
                "links": features.ALWAYS},
    default_fields=("uuid", "address"),
    sources={"node_uuid": "node_id", "portgroup_uuid": "portgroup_id"},
    related={"node_uuid": "node", "portgroup_uuid": "portgroup"},
    filters={
        # node_uuid, when given too, says which node.
        "node": descriptor.Filter(
            lambda ident, q: [] if q.params.get("node_uuid")
            else node_filter(ident, q), check=descriptor.UUID_OR_NAME),
        "node_uuid": descriptor.Filter(node_filter, check=descriptor.IS_UUID),
        "address": descriptor.Filter(address_filter, check=_MAC),
        "portgroup": descriptor.Filter(_portgroup_filter,
                                       features.PORTGROUP_SUBRESOURCES,
                                       check=descriptor.UUID_OR_NAME),
        "shard": descriptor.Filter(shard_filter, features.SHARDS),
        "conductor_groups": descriptor.Filter(
            conductor_groups_filter, features.CONDUCTOR_GROUPS_FILTER),
    },
    list_scope=_list_scope, check_filters=_check_filters,
    fetch=collection.object_fetch(
        Port, lambda marker: exception.PortNotFound(port=marker)),
    row=resource.item_row,
    item=lambda ident, verb: _authorized(ident, f"baremetal:port:{verb}"),
    create=_create, update=_update, delete=_delete,
    refuse_nested=collection.list_only)

PortsController = collection.controller(SPEC, "PortsController")
