"""/v1/portgroups (API 1.23+): bonds of a node's ports.

Also served as ``/v1/nodes/{node}/portgroups`` (1.24+, list only), with the
member ports at ``/v1/portgroups/{portgroup}/ports`` (1.24+).
"""

from __future__ import annotations

from typing import Any, Iterable

from ironic.api import features, method, query, schemas
from ironic.api.controllers.v1 import collection, descriptor, list_query, resource
from ironic.api.controllers.v1 import port as port_api
from ironic.api.controllers.v1 import utils as api_utils
from ironic.common import exception, utils
from ironic.conf import CONF
from ironic.objects.base import Field
from ironic.objects.port import Port
from ironic.objects.portgroup import Portgroup

#: The port group's fields as a client writes them: the object's, with
#: its node by UUID.
FIELDS: dict[str, Field] = {
    **Portgroup.fields,
    "node_uuid": schemas.reference("The node it belongs to.",
                                   nullable=False),
}
_CREATABLE = schemas.creatable(FIELDS)
_PATCHABLE = schemas.patchable(FIELDS)
_LISTED = schemas.listed(_PATCHABLE, late=("physical_network", "category"))
_PORTGROUP_SCHEMA: dict[str, Any] = schemas.body(
    FIELDS, required=["node_uuid"])


def _validate(doc: dict, pg: Portgroup | None = None,
              changed: Iterable[str] = ()) -> tuple[dict, resource.NodeRef]:
    """Check a whole port group document and turn it into column values;
    with the node it names, as read for the rest of the request. ``pg``:
    the port group a patch changes (its ``changed`` fields)."""
    api_utils.validate(_PORTGROUP_SCHEMA, doc,
                       "portgroup" if pg is None else "patch")
    values = {k: v for k, v in doc.items() if k != "node_uuid"}
    if doc.get("uuid") is not None:
        if not utils.is_uuid_like(doc["uuid"]):
            raise query.expected("UUID", "uuid", doc["uuid"])
        values["uuid"] = utils.normalize_uuid(doc["uuid"])
    name = doc.get("name")
    if name is not None and not utils.is_valid_logical_name(name):
        raise exception.InvalidParameterValue(
            err=f"Cannot create portgroup with invalid name '{name}'"
            if pg is None else f"Portgroup {pg.uuid}: Cannot change name "
                               f"to invalid name '{name}'")
    if doc.get("address") is not None:
        values["address"] = resource.normalize_mac(doc["address"])
    if pg is not None and "node_uuid" in changed:
        node = resource.node_for_patch(doc["node_uuid"])
    else:
        node = resource.node_for_body(doc["node_uuid"], allow_name=False)
    values["node_id"] = node.id
    sps = doc.get("standalone_ports_supported")
    values["standalone_ports_supported"] = True if sps is None else \
        resource.as_bool(sps, "standalone_ports_supported")
    values["mode"] = doc.get("mode") or CONF.default_portgroup_mode
    for key in ("extra", "properties"):
        if values.get(key) is None:
            values[key] = {}
    return values, node


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


def get_portgroup(ident: str) -> Portgroup:
    """The port group the URL names; a malformed name is refused in a
    plain HTTP error body, as Ironic 39's routing refuses it."""
    if utils.is_uuid_like(ident) or utils.is_valid_logical_name(ident):
        return Portgroup.get(ident)
    raise method.malformed_in_path("portgroup", ident)


def _authorized(ident: str, rule: str) -> Portgroup:
    pg = get_portgroup(ident)
    resource.check_node_item("portgroup", rule, pg.node_id,
                             exception.PortgroupNotFound(portgroup=ident))
    return pg


def _check_filters(q: descriptor.Query) -> None:
    """As Ironic 39: one of node, address, shard and conductor groups at a
    time."""
    if sum(list_query.given(q, name) for name in (
            "node", "address", "shard", "conductor_groups")) > 1:
        raise exception.InvalidParameterValue(
            err="Filtering by node, address, or shard simultaneously is "
                "not supported.")


def _list_scope(q: descriptor.Query) -> descriptor.Criteria:
    """The caller's projects, and the node in the URL."""
    conds = resource.project_filter("portgroup")
    if "node" in q.scope:
        if not features.PORTGROUP_SUBRESOURCES.available(q.ver):
            raise exception.NotFound()
        conds.append(("node_id",
                      resource.find_node(q.scope["node"], q.ver,
                                         in_path=True).id))
    return conds


def _create(body: dict, ver: int) -> resource.Created:
    resource.check_body(SPEC, body, _CREATABLE, ver, _PORTGROUP_SCHEMA)
    values, node = _validate(body)
    pg = Portgroup(**values)
    resource.authorize_for_node("baremetal:portgroup:create", node)
    resource.check_unlocked(node)
    pg.create()
    return resource.Created(pg, node.uuid)


def _update(pg: Portgroup, patch: list, ver: int) -> Portgroup:
    doc, changed = resource.patch_values(
        SPEC, pg, patch, ver=ver, patchable=_PATCHABLE,
        required=("node_uuid",), listed=_LISTED)
    values, node = _validate(
        {k: v for k, v in doc.items() if v is not None}, pg, changed)
    _check_update(pg, values, changed)
    resource.check_unlocked(pg.node_id, node)
    return resource.save_changed(SPEC, pg, changed, values)


def _delete(pg: Portgroup) -> None:
    resource.check_unlocked(pg.node_id)
    try:
        pg.destroy()
    except exception.PortgroupNotEmpty as e:
        raise exception.PortgroupNotEmpty(portgroup=pg.uuid) from e


def _member_ports_view(ident: str, scope: dict[str, str]) -> Any:
    """The ports of a port group, listed from 1.24 (also under a node)."""
    return port_api.PortsController(f"portgroups/{ident}", **scope,
                                    portgroup=ident)



SPEC = descriptor.Spec(
    # Ironic 39 checks these queries with a JSON schema, and words its
    # refusals after it.
    schema_query=True,
    singular="portgroup", collection="portgroups", obj_cls=Portgroup,
    api_fields={"node_uuid": features.PORTGROUPS,
                "links": features.PORTGROUPS,
                "ports": features.PORTGROUP_SUBRESOURCES},
    default_fields=("uuid", "address", "name"),
    sources={"node_uuid": "node_id"}, related={"node_uuid": "node"},
    bounds=descriptor.Bounds(features.PORTGROUPS),
    filters={
        # Ironic 39 checks these two with a JSON schema: its words.
        "node": descriptor.Filter(
            port_api.node_filter, check=descriptor.schema_format(
                "uuid", descriptor.is_uuid_or_name, alternatives=True)),
        "address": descriptor.Filter(
            port_api.address_filter, check=descriptor.schema_format(
                "mac-address", descriptor.is_query_mac)),
        "shard": descriptor.Filter(port_api.shard_filter,
                                   features.PORTGROUP_SHARD_FILTER),
        "conductor_groups": descriptor.Filter(
            port_api.conductor_groups_filter,
            features.CONDUCTOR_GROUPS_FILTER),
    },
    subresources={"ports": descriptor.SubResource(
        _member_ports_view, features.PORTGROUP_SUBRESOURCES)},
    list_scope=_list_scope, check_filters=_check_filters,
    fetch=collection.object_fetch(
        Portgroup,
        lambda marker: exception.PortgroupNotFound(portgroup=marker)),
    row=resource.item_row,
    item=lambda ident, verb: _authorized(ident,
                                         f"baremetal:portgroup:{verb}"),
    create=_create, update=_update, delete=_delete,
    refuse_nested=collection.list_only, nested_item_lookup=True)

PortgroupsController = collection.controller(SPEC, "PortgroupsController")
