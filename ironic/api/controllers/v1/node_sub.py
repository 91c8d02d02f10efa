"""Sub-resources of a node: traits, states, maintenance, children.

Each controller is built for one node identifier by ``NodesController``'s
lookup; the node itself is fetched through ``node_lookup.get_node`` so that
name and ``.json`` rules stay in one place.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import os_traits
from pecan import rest

from ironic.api import features, method, query
from ironic.api.controllers.v1 import (
    answers,
    descriptor,
    list_query,
    node_lookup,
)
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception
from ironic.objects.base import ARRAY, Body, Field
from ironic.objects.node import Node

TRAIT_LIMIT = 50
#: A custom trait: upper case letters, digits and underscores only.
_CUSTOM_TRAIT = re.compile(r"CUSTOM_[A-Z0-9_]+")


class _NodeSub(rest.RestController):
    #: How a malformed node in the URL is refused (``node_lookup``).
    path_arg = node_lookup.IN_PATH

    def __init__(self, node_ident: str):
        self.node_ident = node_ident

    def _node(self, rule: str | None = None) -> Node:
        """The node, once the caller may do ``rule`` to it (see
        ``node_policy``); no rule: the caller was checked otherwise."""
        if rule is None:
            return node_lookup.get_node(self.node_ident,
                                        path_arg=self.path_arg)
        return node_lookup.authorized_node(self.node_ident, rule,
                                           path_arg=self.path_arg)


#: A trait: a custom one, or a name os-traits knows. The alternatives'
#: order is the reference's: a refusal names the pattern as its cause.
TRAIT = Field(nullable=False, min_length=1, max_length=255,
              schema={"anyOf": [{"pattern": f"^{_CUSTOM_TRAIT.pattern}$"},
                                {"enum": os_traits.get_traits()}]},
              doc="A standard trait (os-traits) or CUSTOM_ followed by "
                  "upper case letters, digits and underscores.")


def _at_most(limit: int) -> Callable[[list[str]], None]:
    def check(traits: list[str]) -> None:
        if len(set(traits)) > limit:
            raise exception.InvalidParameterValue(
                err=f"A node can have at most {limit} traits.")
    return check


_NO_TRAITS = ("A single node trait may be added via PUT "
              "/v1/nodes/<node identifier>/traits/<trait> with no body, or "
              "all node traits may be replaced via PUT /v1/nodes/<node "
              "identifier>/traits with the list of traits specified in the "
              "request body.")
#: ``PUT /v1/nodes/{node}/traits`` (and a runbook's): the traits,
#: replaced.
TRAITS = Body({"traits": Field(
    type=ARRAY, nullable=False, items=TRAIT, check=_at_most(TRAIT_LIMIT),
    doc="The traits (duplicates count once).")})


def traits_body() -> list[str]:
    """The traits of a ``TRAITS`` request body, checked."""
    body = method.json_body(what="body")
    api_utils.validate(TRAITS, body, "body")
    if "traits" not in body:
        raise exception.InvalidParameterValue(err=_NO_TRAITS)
    return body["traits"]


def validate_trait(trait: Any, what: str | None = "trait") -> None:
    """400 unless ``trait`` is a trait (see ``TRAIT``); ``what``: the
    document named in the refusal."""
    api_utils.check_value(TRAIT, trait, what)


class TraitsController(_NodeSub):
    # Before 1.37 a GET is "not acceptable" (once the node is found) and
    # a PUT "not allowed", as the reference answers; a DELETE not found.
    @expose()
    @api_method(features.TRAITS, too_old=406, late=True)
    def get_all(self, **params):
        node = self._node("baremetal:node:traits:list")
        method.check_bound()
        list_query.check_params(params, ())
        return {"traits": node.load_traits()}

    @expose()
    @api_method(features.TRAITS, status=204, too_old=405)
    def put(self, trait: str | None = None):
        node = self._node("baremetal:node:traits:set")
        node_lookup.check_not_locked(node)
        if trait is None:
            node.set_traits(traits_body())
            return
        validate_trait(trait)
        current = node.load_traits()
        if trait not in current and len(current) >= TRAIT_LIMIT:
            raise exception.InvalidParameterValue(
                err=f"A node can have at most {TRAIT_LIMIT} traits.")
        node.add_trait(trait)

    @expose()
    @api_method(features.TRAITS, status=204)
    def delete(self, trait: str | None = None):
        node = self._node("baremetal:node:traits:delete")
        node_lookup.check_not_locked(node)
        if trait is None:
            node.set_traits([])
            return
        try:
            node.remove_trait(trait)
        except exception.NodeTraitNotFound as e:
            raise exception.NodeTraitNotFound(
                node=node.uuid, trait=trait) from e


class StatesController(_NodeSub):
    path_arg = "node_ident"

    @expose()
    @api_method()
    def get_all(self, **params):
        list_query.check_params(params, ())
        node = self._node("baremetal:node:get_states")
        return answers.NODE_STATES.render(node, method.version())


_REASON = Field(doc="Why the node is in maintenance.")
#: ``PUT /v1/nodes/{node}/maintenance``: the body is optional; its reason
#: wins over the query's.
MAINTENANCE = Body({"reason": _REASON}, optional=True, arguments=True)
#: Its query: the reason, for clients that send no body.
MAINTENANCE_QUERY = {"reason": _REASON}


class MaintenanceController(_NodeSub):
    path_arg = "node_ident"

    """PUT sets maintenance mode (with an optional reason); DELETE clears."""

    def _set(self, flag: bool, reason: str | None) -> None:
        node = self._node("baremetal:node:set_maintenance" if flag else
                          "baremetal:node:clear_maintenance")
        node_lookup.check_not_locked(node)
        node.maintenance = flag
        node.maintenance_reason = reason if flag else None
        if not flag:
            node.fault = None
        node.save()

    @expose()
    @api_method(status=202)
    def put(self, **params):
        reason = query.single("reason", params.pop("reason", None))
        query.refuse_unexpected(params, ())
        body = method.json_body(arguments=True) if _has_body() else {}
        api_utils.validate(MAINTENANCE, body, None)
        # (a query parameter is one string: the API refuses repeated ones)
        self._set(True, body.get("reason", reason))

    @expose()
    @api_method(status=202)
    def delete(self):
        self._set(False, None)


def _has_body() -> bool:
    from pecan import request
    return bool(request.body and request.body.strip())


#: The children are listed whole: the list takes no query parameters (the
#: reference takes none either).
CHILDREN_SPEC = descriptor.Spec(
    singular="child node", collection="children", obj_cls=None,
    api_fields={}, default_fields=(), params=(), detail_param=None,
    detail_action=False)


class ChildrenController(_NodeSub):
    """UUIDs of the nodes whose parent_node is this node (1.83)."""

    spec = CHILDREN_SPEC

    @expose()
    @api_method(features.CHILD_NODES)
    def get_all(self, **params):
        list_query.parse_list(CHILDREN_SPEC,
                              descriptor.Query(params, method.version()))
        node = self._node("baremetal:node:list")
        # Ironic 39 adds one link object (not a list) to the node list
        # that holds the same children.
        return {"children": node.child_uuids(),
                "links": {"href": f"{method.public_url()}/v1/nodes"
                                  f"?parent_node={node.uuid}",
                          "rel": "children"}}


SUBCONTROLLERS = {
    "traits": TraitsController,
    "states": StatesController,
    "maintenance": MaintenanceController,
    "children": ChildrenController,
}
