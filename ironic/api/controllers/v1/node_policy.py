"""Who may see and change which node: the node policies applied.

* A caller that may not see a node (``baremetal:node:get`` with the node's
  owner and lessee as the target) is told the node does not exist (404),
  so projects cannot probe each other's nodes; one that sees it but may
  not do what it asks is refused (403).
* Below ``baremetal:node:get:filter_threshold`` (system readers pass it)
  each node document is checked field by field: ``last_error``,
  ``reservation``, ``driver_internal_info`` and ``driver_info`` are
  replaced by a note naming the rule that would show them.
* A PATCH needs the rule of every field it touches
  (``baremetal:node:update:<field>``, ``update_instance_info``,
  ``update_extra``, ...), and ``baremetal:node:update`` for the others.
"""

from __future__ import annotations

from typing import Any, Iterable

from ironic import interfaces
from ironic.api import method
from ironic.common import exception, policy, states

#: Per-field rules and what a caller without them sees instead.
_REDACTED: dict[str, Any] = {
    "last_error": "** Value Redacted - Requires "
                  "baremetal:node:get:last_error permission. **",
    "reservation": "** Redacted - requires "
                   "baremetal:node:get:reservation permission. **",
    "driver_internal_info": {
        "content": "** Redacted - Requires "
                   "baremetal:node:get:driver_internal_info permission. **"},
    "driver_info": {
        "content": "** Redacted - requires "
                   "baremetal:node:get:driver_info permission. **"},
}
NOTHING_HIDDEN: frozenset[str] = frozenset()


def target(owner: str | None, lessee: str | None) -> dict[str, str]:
    return {key: value for key, value in (("node.owner", owner),
                                          ("node.lessee", lessee)) if value}


def check(rule: str, node_target: dict[str, str], ident: str) -> None:
    """404 when the caller may not see the node, 403 when it may not do
    ``rule`` to it."""
    ctx = method.context()
    if not policy.enforced(ctx):
        return
    if not policy.allowed("baremetal:node:get", ctx, node_target):
        raise exception.NodeNotFound(node=ident)
    if rule != "baremetal:node:get":
        policy.authorize(rule, ctx, node_target)


def hidden_fields(node_target: dict[str, str]) -> frozenset[str]:
    """The fields of a node document this caller may not see."""
    ctx = method.context()
    if not policy.enforced(ctx) or policy.allowed(
            "baremetal:node:get:filter_threshold", ctx, node_target):
        return NOTHING_HIDDEN
    return frozenset(name for name in _REDACTED if not policy.allowed(
        f"baremetal:node:get:{name}", ctx, node_target))


def redact(doc: dict, hidden: frozenset[str]) -> dict:
    for name in hidden:
        if name in doc:
            doc[name] = _REDACTED[name]
    return doc


_SPECIFIC = ("instance_info", "extra", "driver_info", "properties",
             "chassis_uuid", "instance_uuid", "instance_name", "lessee",
             "owner", "driver", "network_data", "conductor_group", "name",
             "retired", "shard", "parent_node", "disable_power_off")
_RULE_OF = {"instance_info": "baremetal:node:update_instance_info",
            "instance_name": "baremetal:node:update_instance_info",
            "extra": "baremetal:node:update_extra",
            "driver": "baremetal:node:update:driver_interfaces"}


def _rule_for_path(path: str, op: dict) -> str | None:
    for field in _SPECIFIC:
        if path.startswith("/" + field):
            return _RULE_OF.get(field, f"baremetal:node:update:{field}")
    root = path.lstrip("/").split("/", 1)[0]
    if root in interfaces.COLUMNS:
        return "baremetal:node:update:driver_interfaces"
    if root == "automated_clean" and op.get("value") is False:
        return "baremetal:node:disable_cleaning"
    return None


def update_rules(patch: Iterable[Any], node: Any) -> list[str]:
    """The rules a PATCH of ``node`` needs, in the order they are checked.
    """
    rules: list[str] = []
    generic = False
    for op in patch:
        path = op.get("path") if isinstance(op, dict) else None
        rule = _rule_for_path(path, op) if isinstance(path, str) else None
        if rule is None:
            generic = True
        elif rule not in rules:
            rules.append(rule)
    if generic or not rules:
        rules.append("baremetal:node:update")
    if "baremetal:node:update:owner" in rules and \
            node.provision_state == states.ACTIVE:
        rules.append("baremetal:node:update_owner_provisioned")
    return rules


def check_update(patch: Iterable[Any], node: Any) -> None:
    node_target = policy.node_target(node)
    for rule in update_rules(patch, node):
        check(rule, node_target, node.uuid)


def caller_project() -> str | None:
    """The project of a project-scoped (not system-scoped) caller."""
    ctx = method.context()
    if ctx.system_scope or not ctx.project_id:
        return None
    return ctx.project_id


def check_may_create() -> None:
    """403 unless the caller may create nodes, for any project (system
    admins) or for its own (project admins)."""
    ctx = method.context()
    if not policy.allowed("baremetal:node:create", ctx):
        policy.authorize("baremetal:node:create:self_owned_node", ctx)


def claim_for_project(values: dict) -> None:
    """A node created by a project's admin is owned by that project."""
    ctx = method.context()
    if not policy.enforced(ctx) or \
            policy.allowed("baremetal:node:create", ctx):
        return
    project = caller_project()
    if project is None or values.get("owner") not in (None, project):
        raise exception.HTTPForbidden(resource="baremetal:node:create")
    values["owner"] = project


def check_delete(node: Any) -> None:
    node_target = policy.node_target(node)
    check("baremetal:node:get", node_target, node.uuid)
    ctx = method.context()
    if not policy.allowed("baremetal:node:delete", ctx, node_target):
        policy.authorize("baremetal:node:delete:self_owned_node", ctx,
                         node_target)
