"""/v1/nodes/{node}/vifs: list, attach and detach VIFs (1.28; 1.67 lets
an attach name the port or port group to use).

The conductor owning the node does the work through the node's network
interface, under the node's lock for attach and detach.
"""

from __future__ import annotations

from typing import Any

from ironic.api import features, method, schemas
from ironic.api.controllers.v1 import list_query, node_sub
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, utils
from ironic.conductor import rpcapi
from ironic.objects.base import UUID, Field
from ironic.objects.node import Node

#: The body of an attach, declared once (checked here, shown in the
#: OpenAPI document). Whatever else the caller records about the VIF goes
#: along.
VIF = schemas.Body({
    "id": Field(nullable=False, min_length=1, max_length=255,
                doc="The VIF's UUID or name."),
    "port_uuid": Field(features.VIF_ATTACH_TO_PORT.minor, type=UUID,
                       nullable=False, doc="The port to attach it to."),
    "portgroup_uuid": Field(features.VIF_ATTACH_TO_PORT.minor, type=UUID,
                            nullable=False,
                            doc="The port group to attach it to."),
}, required=("id",), extra=True)


def _check_vif_id(vif_id: Any) -> None:
    if not (utils.is_uuid_like(vif_id) or
            utils.is_valid_logical_name(vif_id)):
        raise exception.InvalidUuidOrName(name=vif_id)


def _check_target(body: dict, ver: int) -> None:
    """The port or port group an attach names (1.67), if any."""
    given = [k for k in ("port_uuid", "portgroup_uuid") if k in body]
    if not given:
        return
    if not features.VIF_ATTACH_TO_PORT.available(ver):
        raise exception.NotAcceptable(
            f"Attaching a VIF to a given port or port group needs API "
            f"version {features.VIF_ATTACH_TO_PORT.version} or newer.")
    if len(given) > 1:
        raise exception.InvalidParameterValue(
            err="Cannot specify both port_uuid and portgroup_uuid.")
    if not utils.is_uuid_like(body[given[0]]):
        raise exception.InvalidUUID(uuid=body[given[0]])
    body[given[0]] = utils.normalize_uuid(body[given[0]])


def _call(name: str, node: Node, **kwargs: Any) -> Any:
    try:
        return getattr(rpcapi.get_api(), name)(method.context(), node,
                                               **kwargs)
    except exception.NoValidHost as e:
        # The public API answers 400 here: the node's driver has no
        # conductor to serve it.
        raise exception.InvalidParameterValue(err=str(e)) from e


class VIFsController(node_sub._NodeSub):

    def _authorized_node(self, rule: str) -> Node:
        node = self._node(rule)
        return node

    @expose()
    @api_method(features.VIFS)
    def get_all(self, **params):
        list_query.check_params(params, ())
        node = self._authorized_node("baremetal:node:vif:list")
        return {"vifs": _call("vif_list", node)}

    @expose()
    @api_method(features.VIFS, status=204)
    def post(self):
        node = self._authorized_node("baremetal:node:vif:attach")
        body = method.json_body(what="vif")
        api_utils.validate(VIF, body, "vif")
        _check_vif_id(body["id"])
        _check_target(body, method.version())
        _call("vif_attach", node, vif_info=body)

    @expose()
    @api_method(features.VIFS, status=204)
    def delete(self, vif_id: str):
        node = self._authorized_node("baremetal:node:vif:detach")
        _check_vif_id(vif_id)
        _call("vif_detach", node, vif_id=vif_id)


SUBCONTROLLERS = {"vifs": VIFsController}
