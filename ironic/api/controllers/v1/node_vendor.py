"""/v1/nodes/{node}/vendor_passthru/methods: what a node's vendor offers.

The list is static (declared with ``@passthru`` on the node's vendor
interface class), so the API answers it from the database and the class.
Calls themselves run on the node's conductor.
"""

from __future__ import annotations

from typing import Any

import pecan
from pecan import rest

from ironic import driver_registry
from ironic.api import method
from ironic.api import query as api_query
from ironic.api.controllers.v1 import node_lookup
from ironic.api.method import api_method, expose
from ironic.common import exception, policy


def call_args(path_name: str | None) -> tuple[str, dict]:
    """The passthru method and its arguments (the JSON body).

    The method is named by ``?method=`` (the API reference) or as the last
    path segment (what python-ironicclient sends). Only the query string
    counts: pecan also hands body fields to the handler.
    """
    query = pecan.request.GET
    api_query.refuse_unexpected(query, ("method",))
    name = path_name or api_query.single("method", query.get("method"))
    if not name:
        raise exception.MissingParameterValue(
            err="Method not specified: give ?method=<name>.")
    req = pecan.request
    info = method.json_body() if req.body and req.body.strip() else {}
    return name, info


def answer(result: dict) -> Any:
    """202 for an asynchronous call; the method's return value otherwise."""
    if result.get("async"):
        return method.ACCEPTED
    value = result.get("return")
    if result.get("attach") and isinstance(value, (str, bytes)):
        return {"return": value}
    return value


class PassthruVerbs(rest.RestController):
    """Routes every HTTP verb of a passthru resource to ``_call``.

    ``/vendor_passthru?method=x`` and ``/vendor_passthru/x`` both reach the
    method (python-ironicclient sends the second form).
    """

    def _call(self, http_method: str, params: dict,
              name: str | None = None) -> Any:
        raise NotImplementedError

    @expose()
    @api_method()
    def get_all(self, **params):
        return self._call("GET", params)

    @expose()
    @api_method()
    def get_one(self, name, **params):
        return self._call("GET", params, name)

    @expose()
    @api_method()
    def post(self, name=None, **params):
        return self._call("POST", params, name)

    @expose()
    @api_method()
    def put(self, name=None, **params):
        return self._call("PUT", params, name)

    @expose()
    @api_method()
    def patch(self, name=None, **params):
        return self._call("PATCH", params, name)

    @expose()
    @api_method()
    def delete(self, name=None, **params):
        return self._call("DELETE", params, name)


class NodeVendorPassthruController(PassthruVerbs):
    _custom_actions = {"methods": ["GET"]}

    def __init__(self, node_ident: str) -> None:
        self.node_ident = node_ident

    @expose()
    @api_method()
    def methods(self):
        policy.authorize("baremetal:node:vendor_passthru", method.context())
        node = node_lookup.get_node(self.node_ident,
                                    path_arg="node_ident")
        if not node.vendor_interface:
            raise exception.UnsupportedDriverExtension(
                driver=node.driver, extension="vendor passthru")
        cls = driver_registry.interface_class("vendor",
                                             node.vendor_interface)
        return {name: route.public() for name, (_attr, route) in
                sorted(cls.vendor_routes.items())}

    def _call(self, http_method: str, params: dict,
              path_name: str | None = None) -> Any:
        from ironic.conductor import rpcapi
        policy.authorize("baremetal:node:vendor_passthru", method.context())
        name, info = call_args(path_name)
        node = node_lookup.get_node(self.node_ident,
                                    path_arg="node_ident")
        return answer(rpcapi.get_api().vendor_passthru(
            method.context(), node, name, http_method, info))



__all__ = ["NodeVendorPassthruController"]
