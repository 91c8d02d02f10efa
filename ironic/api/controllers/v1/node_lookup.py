"""Finding the node a request names: by UUID or (from 1.5) logical name,
once the caller may act on it."""

from __future__ import annotations

from ironic.api import features, method, query
from ironic.api.controllers.v1 import node_policy
from ironic.common import exception, policy, utils
from ironic.objects.node import Node

#: ``path_arg`` of a node named in the URL: Ironic 39's node routes
#: refuse a malformed one in a plain HTTP error body; its states,
#: management, maintenance and vendor passthru routes as their
#: ``node_ident`` argument.
IN_PATH = "node"


def _malformed(ident: str, path_arg: str | None) -> Exception:
    if path_arg == IN_PATH:
        return method.malformed_in_path("node", ident)
    if path_arg is not None:
        return query.expected("UUID or name", path_arg, ident)
    return exception.InvalidUuidOrName(name=ident)


def stored_ident(ident: str, path_arg: str | None = None) -> str:
    """The node identifier a client of this request's version means, as
    stored: a normalized UUID or a name (404 or 400 when it can name no
    node, worded after ``path_arg`` when the URL names it)."""
    ver = method.version()
    if utils.is_uuid_like(ident):
        return utils.normalize_uuid(ident)
    if features.NODE_NAMES.available(ver):
        if utils.is_valid_logical_name(ident):
            return ident
        # Neither a UUID nor a possible name: the request is malformed.
        raise _malformed(ident, path_arg)
    raise exception.NodeNotFound(node=ident)


def get_node(ident: str, with_traits: bool = False,
             path_arg: str | None = None) -> Node:
    """Look a node up by UUID or (from 1.5) logical name."""
    return Node.get(stored_ident(ident, path_arg), with_traits=with_traits)


def authorized_node(ident: str, rule: str, with_traits: bool = False,
                    path_arg: str | None = None) -> Node:
    """The node ``ident`` names, once the caller may do ``rule`` to it
    (404 when it may not even see it, see ``node_policy``)."""
    node = get_node(ident, with_traits, path_arg)
    node_policy.check(rule, policy.node_target(node), ident)
    return node


def node_uuid_of(ident: str, what: str) -> str:
    """UUID of the node named or identified by ``ident`` (400 if none)."""
    try:
        return get_node(ident).uuid
    except exception.NodeNotFound as e:
        raise exception.InvalidParameterValue(
            err=f"{what}: {e}") from e


def check_not_locked(node: Node) -> None:
    if node.reservation:
        raise exception.NodeLocked(node=node.uuid, host=node.reservation)
