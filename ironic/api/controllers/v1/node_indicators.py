"""/v1/nodes/{node}/management/indicators (1.63): the node's LEDs.

* ``GET .../indicators``: every indicator as ``{"name": "<indicator>@
  <component>", "component", "readonly", "states", "links"}``;
* ``GET .../indicators/{component}``: the same, for one component;
* ``GET .../indicators/{indicator}@{component}``: ``{"state": ...}``;
* ``PUT .../indicators/{indicator}@{component}`` with ``{"state": ...}``
  (204).

The conductor owning the node asks the management interface.
"""

from __future__ import annotations

from ironic.api import features, method, schemas
from ironic.api.controllers.v1 import node_sub
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import components, exception, indicator_states
from ironic.conductor import rpcapi
from ironic.objects.base import Field
from ironic.objects.node import Node

#: The body of a PUT, declared once (checked here, shown in the OpenAPI
#: document).
STATE = schemas.Body({"state": Field(
    nullable=False, schema={"enum": list(indicator_states.SETTABLE)},
    doc="The state to set.")}, required=("state",), arguments=True)


def split_ident(ident: str) -> tuple[str, str]:
    """'<indicator>@<component>' -> (component, indicator)."""
    indicator, sep, component = ident.partition("@")
    if not sep or not indicator or not component:
        raise exception.InvalidParameterValue(
            err=f"Malformed indicator name {ident!r}: expected "
                f"<indicator>@<component>.")
    return component, indicator


def _items(node: Node, found: dict) -> list[dict]:
    url = method.public_url()
    items = []
    for component, indicators in found.items():
        for name, attrs in indicators.items():
            unique = f"{name}@{component}"
            items.append({
                "name": unique, "component": component,
                "readonly": attrs["readonly"], "states": attrs["states"],
                "links": api_utils.link(
                    "nodes", f"{node.uuid}/management/indicators/{unique}",
                    url)})
    return items


class IndicatorsController(node_sub._NodeSub):

    def _authorized(self, rule: str) -> Node:
        node = self._node(rule)
        return node

    @expose()
    @api_method(features.INDICATORS)
    def get_all(self):
        node = self._authorized("baremetal:node:get_indicator_state")
        found = rpcapi.get_api().get_supported_indicators(method.context(),
                                                          node)
        return {"indicators": _items(node, found)}

    @expose()
    @api_method(features.INDICATORS)
    def get_one(self, ident: str):
        node = self._authorized("baremetal:node:get_indicator_state")
        if "@" not in ident and ident in components.ALL:
            return self._component(node, ident)
        component, indicator = split_ident(ident)
        state = rpcapi.get_api().get_indicator_state(
            method.context(), node, component, indicator)
        return {"state": state}

    def _component(self, node: Node, component: str) -> dict:
        found = rpcapi.get_api().get_supported_indicators(
            method.context(), node, component)
        if not found.get(component):
            raise exception.NotFound(
                f"Node {node.uuid} has no indicators on component "
                f"{component}.")
        return {"indicators": _items(node, {component: found[component]})}

    @expose()
    @api_method(features.INDICATORS, status=204)
    def put(self, ident: str, **params):
        node = self._authorized("baremetal:node:set_indicator_state")
        component, indicator = split_ident(ident)
        # The state comes in the body; like the public API, a ?state=
        # query parameter is accepted instead.
        body = method.json_body(arguments=True) if node_sub._has_body() \
            else params
        api_utils.validate(STATE, body, None)
        rpcapi.get_api().set_indicator_state(
            method.context(), node, component, indicator, body["state"])
