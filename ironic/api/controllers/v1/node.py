"""/v1/nodes: create, list, show, update and delete nodes, and the routes
to their sub-resources."""

from __future__ import annotations

from typing import Any

import pecan
from pecan import rest

from ironic.api import features, method, rest_routes
from ironic.api.controllers.v1 import (
    allocation,
    collection,
    node_actions,
    node_data,
    node_edit,
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
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.controllers.v1.node_documents import (
    caller_document,
    node_document,
)
from ironic.api.controllers.v1.node_lookup import authorized_node, get_node
from ironic.api.method import api_method, expose
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


class NodesController(rest.RestController):

    @pecan.expose()
    def _route(self, args, request):
        # GET of the collection or of one item, and POST of the
        # collection, skip pecan's signature walk (see rest_routes); every
        # other request is pecan's to route.
        return rest_routes.direct(self, args, request) or \
            super()._route(args, request)

    _custom_actions = {"detail": ["GET"]}
    _subcontrollers = {
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
    _sub_since = {
        "vifs": features.VIFS, "portgroups": features.PORTGROUP_SUBRESOURCES,
        "volume": features.VOLUME, "bios": features.BIOS,
        "allocation": features.NODE_ALLOCATION,
        "history": features.NODE_HISTORY, "inventory": features.INVENTORY,
        "children": features.CHILD_NODES, "firmware": features.FIRMWARE,
        "vmedia": features.VMEDIA,
    }

    #: Sub-resources also reached by their legacy form, the node last:
    #: ``/v1/nodes/states/console/{node}`` is
    #: ``/v1/nodes/{node}/states/console``.
    _node_last = frozenset({"states", "management", "maintenance"})

    @expose()
    def _lookup(self, ident, sub=None, *remainder):
        if sub is None:
            return api_utils.item_without_handler(self, ident)
        if ident in self._node_last:
            *middle, node = (sub, *remainder)
            return self._subcontrollers[ident](node), middle
        factory = self._subcontrollers.get(sub)
        since = self._sub_since.get(sub, features.ALWAYS)
        if factory is None or not since.available(method.version()):
            pecan.abort(404)
        return factory(ident), remainder

    @expose()
    @api_method()
    def get_all(self, **params):
        return node_list.list_nodes(params, detail=False)

    @expose()
    @api_method()
    def detail(self, **params):
        collection.refuse_detail_param(params)
        return node_list.list_nodes(params, detail=True,
                                    resource_url="nodes/detail")

    @expose()
    @api_method()
    def get_one(self, ident, **params):
        unknown = set(params) - {"fields"}
        if unknown:
            raise exception.InvalidParameterValue(
                err=f"Unknown query parameter(s): {', '.join(unknown)}")
        try:
            return node_document(ident, params.get("fields"))
        except (exception.InvalidParameterValue, exception.NotAcceptable):
            # Ironic 39 finds the node before it reads ``fields``: a node
            # that is not there is 404 whatever ``fields`` names.
            authorized_node(ident, "baremetal:node:get")
            raise

    @expose()
    @api_method(status=201)
    def post(self):
        node_policy.check_may_create()
        ver = method.version()
        values = node_edit.create_values(method.json_body(), ver)
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
        pecan.response.location = f"{method.public_url()}/v1/nodes/" \
                                  f"{node.uuid}"
        # Read back, as a GET would: its document is stored for the GET
        # that usually follows a create.
        return caller_document(node.uuid)

    @expose()
    @api_method()
    def patch(self, ident, **params):
        ver = method.version()
        reset = node_edit.check_patch_params(params, ver)
        patch = method.json_body(list)
        node_edit.check_patch_versions(patch, ver)
        node = get_node(ident)
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

    @expose()
    @api_method(status=204)
    def delete(self, ident):
        node = get_node(ident)
        node_policy.check_delete(node)
        # The owning conductor takes the lock, checks that the node is not
        # in use and deletes it.
        _conductor_api(node).destroy_node(method.context(), node)
