"""/v1/nodes: the node Spec (fields, filters, sort keys, sub-resources,
renderer) and its item hooks; ``collection.controller`` serves it. A GET
of one node and a PATCH are the node's own handlers (a cached encoded
document; the conductor saves)."""

from __future__ import annotations

from typing import Any, Callable

from ironic.api import features, method, query
from ironic.api.controllers.v1 import (
    allocation,
    collection,
    descriptor,
    node_actions,
    node_data,
    node_edit,
    node_fields,
    node_list,
    node_policy,
    node_sub,
    node_vendor,
    node_vifs,
    node_vmedia,
    volume,
)
from ironic.api.controllers.v1 import port as port_api
from ironic.api.controllers.v1 import portgroup as portgroup_api
from ironic.api.controllers.v1.node_documents import (
    caller_document,
    node_document,
)
from ironic.api.controllers.v1.node_lookup import (
    IN_PATH,
    authorized_node,
    get_node,
)
from ironic.common import exception, states
from ironic.conductor import rpcapi
from ironic.objects.node import Node


def _conductor_api(node: Any) -> rpcapi.ConductorAPI:
    """The RPC client, once a conductor serves ``node`` (a node object or
    document; else 400: the
    client asked for a driver or group nobody serves)."""
    api = rpcapi.get_api()
    try:
        api.host_for(node)
    except exception.NoValidHost as e:
        raise exception.InvalidParameterValue(err=str(e)) from e
    return api


# The node's own handlers are named as the handlers they become (readers
# of the API's shape, such as the OpenAPI document, go by the name).

def _bare_subresource(name: str) -> Exception | None:
    """What Ironic 39 answers to ``GET /v1/nodes/<name>`` where ``name``
    names a node-last route of its own (its routing reaches that route
    with no node, never a node of that name)."""
    if name in ("states", "vendor_passthru"):
        return exception.MissingParameterValue(
            err="Missing mandatory parameter: node_ident")
    if name == "validate":
        return exception.InvalidParameterValue(
            err="Expected a logical name or UUID but received None.")
    if name in ("management", "maintenance"):
        return method.MethodNotAllowed()
    return None


def get_one(self, ident, **params):
    refusal = _bare_subresource(ident)
    if refusal is not None:
        raise refusal
    query.refuse_unexpected(params, ("fields",))
    try:
        # The encoded document, kept while the node is unchanged.
        return node_document(ident, params.get("fields"))
    except (exception.InvalidParameterValue, exception.NotAcceptable):
        # Ironic 39 finds the node before it reads ``fields``: a node
        # that is not there is 404 whatever ``fields`` names.
        authorized_node(ident, "baremetal:node:get")
        raise


def _authorize(verb: str) -> None:
    # Only a create has a rule of its own; the other verbs' rules target
    # the node (see node_policy).
    if verb == "create":
        node_policy.check_may_create()


def _create(body: dict, ver: int) -> Node:
    values = node_edit.create_values(body, ver)
    node_policy.claim_for_project(values)
    if values.get("uuid") is None:
        values.pop("uuid", None)
    node = Node(**values)
    if not node.instance_name and (node.instance_info or {}).get(
            "display_name"):
        node.instance_name = node.instance_info["display_name"]
    node.provision_state = states.ENROLL \
        if features.ENROLL_ON_CREATE.available(ver) else states.AVAILABLE
    node.provision_updated_at = None
    node.create()
    return node


def patch(self, ident, **params):
    # The node's own handler: the query (reset_interfaces) and the patch's
    # versions are read before the node, the rules the patch touches after.
    ver = method.version()
    reset = node_edit.check_patch_params(params, ver)
    patch = method.json_body(list, what="patch")
    node_edit.check_patch_versions(patch, ver)
    node = get_node(ident, path_arg=IN_PATH)
    node_policy.check_update(patch, node)
    node.load_traits()
    changes, values = node_edit.patched_columns(node, patch, ver, reset)
    if changes:
        # The conductor serving the node as patched takes the lock,
        # checks the state rules and saves.
        target = {"uuid": node.uuid,
                  "driver": values.get("driver", node.driver),
                  "conductor_group": values.get(
                      "conductor_group", node.conductor_group)}
        _conductor_api(target).update_node(method.context(), target,
                                           changes)
    # The node as the conductor saved it, read back as a GET would.
    return caller_document(node.uuid)


def _to_delete(ident: str, verb: str) -> Node:
    # The generic item hook serves DELETE only: GET and PATCH are the
    # node's own handlers.
    node = get_node(ident, path_arg=IN_PATH)
    node_policy.check_delete(node)
    return node


def _delete(node: Node) -> None:
    # The owning conductor takes the lock, checks that the node is not in
    # use and deletes it.
    _conductor_api(node).destroy_node(method.context(), node)


def _for_node(factory: Callable[[str], Any]) -> Callable[[str, dict], Any]:
    """A sub-resource controller built for the node alone."""
    return lambda ident, scope: factory(ident)


#: /v1/nodes/{node}/<name>: the controller built for the node.
_SUBCONTROLLERS: dict[str, Callable[[str], Any]] = {
    **node_sub.SUBCONTROLLERS,
    "ports": lambda ident: port_api.PortsController(f"nodes/{ident}",
                                                    node=ident),
    "portgroups": lambda ident: portgroup_api.PortgroupsController(
        f"nodes/{ident}", node=ident),
    "volume": volume.VolumeController,
    "bios": node_data.BIOSController,
    "history": node_data.HistoryController,
    "firmware": node_data.FirmwareController,
    "inventory": node_data.InventoryController,
    "allocation": allocation.NodeAllocationController,
    "vendor_passthru": node_vendor.NodeVendorPassthruController,
    "vmedia": node_vmedia.VmediaController,
    # states (provision, power), management, validate: via conductors.
    **node_actions.SUBCONTROLLERS,
    **node_vifs.SUBCONTROLLERS,
}

#: Sub-resources added after 1.1, with the feature that added each:
#: before it they do not exist, whatever the method (404, not 405).
_SUB_SINCE = {
    "vifs": features.VIFS, "portgroups": features.PORTGROUP_SUBRESOURCES,
    "volume": features.VOLUME, "bios": features.BIOS,
    "allocation": features.NODE_ALLOCATION,
    "history": features.NODE_HISTORY, "inventory": features.INVENTORY,
    "children": features.CHILD_NODES, "firmware": features.FIRMWARE,
    "vmedia": features.VMEDIA,
}


SPEC = descriptor.Spec(
    singular="node", collection="nodes", obj_cls=Node,
    api_fields=node_fields.RELATION_SINCE,
    default_fields=node_fields.DEFAULT_LIST_FIELDS,
    filters=node_list.FILTERS, sort_keys=node_list.SORT_KEYS,
    sort_too_new=node_list.sort_too_new,
    read_fields=node_fields.parse_node_fields,
    # Unknown parameters first, then the caller's project; the marker and
    # sort direction once the filters are (node_list.fetch).
    params_first=True, page_read_late=True,
    subresources={name: descriptor.SubResource(
        _for_node(factory), _SUB_SINCE.get(name, features.ALWAYS))
        for name, factory in _SUBCONTROLLERS.items()},
    item_last=frozenset({"states", "management", "maintenance"}),
    list_scope=node_list.list_scope, columns=node_list.columns,
    fetch=node_list.fetch, narrow=node_list.narrow,
    render=node_list.render,
    authorize=_authorize, create=_create,
    shown=lambda node: caller_document(node.uuid),
    item=_to_delete, delete=_delete,
    handlers={"get_one": get_one, "patch": patch})

NodesController = collection.controller(SPEC, "NodesController")
