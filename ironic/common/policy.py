"""API authorization with oslo.policy, with Ironic 39's default rules.

Rules are registered in code with their defaults; operators override them
by name in a policy file. The defaults are the "secure RBAC" ones:

* system-scoped readers read everything, members change it, admins create
  and delete it; a ``service`` role in system scope (or, when
  ``[DEFAULT]rbac_service_role_elevated_access`` is on, in the service
  project) acts as a system member;
* project-scoped callers act on the nodes their project owns (``owner``)
  or leases (``lessee``): readers read them, members power, provision and
  attach VIFs, and a few changes need the project's admin or manager;
* per-field rules (``baremetal:node:get:*``) decide which fields of a
  node a project sees, and ``baremetal:node:update:*`` which fields it may
  change.

With noauth and http_basic every authenticated caller is an administrator,
as in a single-operator lab.
"""

from __future__ import annotations

import threading

from oslo_policy import opts as policy_opts
from oslo_policy import policy

from ironic.common import exception
from ironic.common.context import RequestContext
from ironic.conf import CONF

# --- the building blocks of the default check strings ----------------------

SERVICE_ROLE = "rule:service_role"
SYSTEM_ADMIN = "role:admin and system_scope:all"
SYSTEM_SERVICE = "role:service and system_scope:all"
SYSTEM_MEMBER = f"(role:member and system_scope:all) or {SERVICE_ROLE}"
SYSTEM_READER = (f"(role:reader and system_scope:all) or ({SYSTEM_SERVICE})"
                 f" or {SERVICE_ROLE}")
ANY_READER = "(role:reader) or (role:service)"


def _of(role: str, *owners: str) -> str:
    """``role`` in the project named by one of the ``owners`` fields of the
    target (``node.owner``, ``allocation.owner``...)."""
    projects = [f"project_id:%({field})s" for field in owners]
    if len(projects) == 1:
        return f"role:{role} and {projects[0]}"
    return f"role:{role} and ({' or '.join(projects)})"


def _any(*checks: str) -> str:
    return " or ".join(f"({c})" for c in checks)


OWNER, LESSEE = "node.owner", "node.lessee"
# What a node's projects may do, from the broadest audience to the
# narrowest: every default below is one of these.
NODE_READ = _any(SYSTEM_READER, _of("reader", OWNER, LESSEE),
                 _of("service", OWNER))
NODE_OWNER_READ = _any(SYSTEM_READER, SYSTEM_SERVICE, _of("reader", OWNER),
                       _of("service", OWNER))
NODE_MEMBER_WRITE = _any(SYSTEM_MEMBER, _of("member", OWNER, LESSEE),
                         SYSTEM_SERVICE)
NODE_OPERATE = _any(SYSTEM_MEMBER, SYSTEM_SERVICE, _of("member", OWNER),
                    _of("admin", LESSEE), _of("manager", LESSEE),
                    _of("service", OWNER))
NODE_OWNER_WRITE = _any(SYSTEM_MEMBER, SYSTEM_SERVICE, _of("member", OWNER),
                        _of("service", OWNER))
NODE_OWNER_MANAGE = _any(SYSTEM_MEMBER, SYSTEM_SERVICE, _of("admin", OWNER),
                         _of("manager", OWNER), _of("service", OWNER))
NODE_OWNER_ADMIN = _any(SYSTEM_ADMIN, SYSTEM_SERVICE, _of("admin", OWNER),
                        _of("manager", OWNER), _of("service", OWNER))


def _rule(name: str, check: str, description: str, path: str,
          method: str) -> policy.DocumentedRuleDefault:
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{"path": path, "method": method}])


def _rules(check: str, path: str, method: str,
           names: dict[str, str]) -> list[policy.DocumentedRuleDefault]:
    """Rules sharing a default: {name: description}."""
    return [_rule(name, check, text, path, method)
            for name, text in names.items()]


def _base_rules() -> list[policy.RuleDefault]:
    return [
        policy.RuleDefault(
            "service_role",
            "role:service and project_name:%(config.service_project_name)s",
            description="A service account of the service project (only "
                        "with rbac_service_role_elevated_access)"),
        policy.RuleDefault("public_api", "is_public_api:True",
                           description="Requests to public endpoints"),
        policy.RuleDefault("show_password", "!",
                           description="Show secrets of driver_info"),
        policy.RuleDefault("show_instance_secrets", "!",
                           description="Show secrets of instance_info"),
    ]


_NODE = "/nodes/{node_ident}"


def _node_rules() -> list[policy.RuleDefault]:
    rules = [
        _rule("baremetal:node:create",
              f"({SYSTEM_ADMIN}) or ({SYSTEM_SERVICE})", "Create a node",
              "/nodes", "POST"),
        _rule("baremetal:node:create:self_owned_node",
              "(role:admin) or (role:service)",
              "Create a node owned by the caller's project", "/nodes",
              "POST"),
        _rule("baremetal:node:list", ANY_READER,
              "List the nodes the caller's project owns or leases",
              "/nodes", "GET"),
        _rule("baremetal:node:list_all", SYSTEM_READER,
              "List the nodes of every project", "/nodes", "GET"),
        _rule("baremetal:node:get:filter_threshold", SYSTEM_READER,
              "Show node documents without per-field checks", _NODE,
              "GET"),
        _rule("baremetal:node:delete", SYSTEM_ADMIN, "Delete a node",
              _NODE, "DELETE"),
        _rule("baremetal:node:delete:self_owned_node", _of("admin", OWNER),
              "Delete a node the caller's project owns", _NODE, "DELETE"),
    ]
    rules += _rules(NODE_READ, _NODE, "GET", {
        "baremetal:node:get": "Show a node",
        "baremetal:node:get_states": "Show node states",
        "baremetal:node:vif:list": "List the VIFs attached to a node",
        "baremetal:node:traits:list": "List node traits",
        "baremetal:node:bios:get": "Read BIOS settings",
        "baremetal:node:firmware:get": "Read firmware components",
        "baremetal:node:vmedia:get": "Read the virtual media of a node",
        "baremetal:node:get_indicator_state": "Read a node's indicators",
    })
    rules += _rules(NODE_OWNER_READ, _NODE, "GET", {
        "baremetal:node:get:last_error": "Show a node's last_error",
        "baremetal:node:get:reservation": "Show a node's reservation",
        "baremetal:node:get:driver_internal_info":
            "Show a node's driver_internal_info",
        "baremetal:node:get:driver_info": "Show a node's driver_info",
        "baremetal:node:history:get": "List the history of a node",
        "baremetal:node:inventory:get": "Read the inventory of a node",
    })
    return rules + _node_write_rules() + _node_field_rules()


def _node_write_rules() -> list[policy.RuleDefault]:
    rules = _rules(NODE_MEMBER_WRITE, _NODE, "PUT", {
        "baremetal:node:update": "Update the node fields without a rule "
                                 "of their own",
        "baremetal:node:update_extra": "Update a node's extra",
        "baremetal:node:set_power_state": "Change the power state",
        "baremetal:node:set_boot_mode": "Set the boot mode",
        "baremetal:node:set_secure_boot": "Set secure boot",
        "baremetal:node:vmedia:attach": "Attach virtual media",
        "baremetal:node:vmedia:detach": "Detach virtual media",
    })
    rules += _rules(NODE_OPERATE, _NODE, "PUT", {
        "baremetal:node:update_instance_info":
            "Update a node's instance_info",
        "baremetal:node:validate": "Validate the interfaces of a node",
        "baremetal:node:set_maintenance": "Put a node in maintenance",
        "baremetal:node:clear_maintenance": "Take a node out of "
                                            "maintenance",
        "baremetal:node:set_provision_state": "Change the provision state",
        "baremetal:node:set_provision_state:clean_steps":
            "Clean a node with explicit steps",
        "baremetal:node:set_provision_state:service_steps":
            "Service a node with explicit steps",
        "baremetal:node:vif:attach": "Attach a VIF to a node",
        "baremetal:node:vif:detach": "Detach a VIF from a node",
    })
    rules += _rules(NODE_OWNER_WRITE, _NODE, "PUT", {
        "baremetal:node:set_indicator_state": "Set an indicator's state",
        "baremetal:node:set_raid_state": "Set the target RAID "
                                         "configuration",
        "baremetal:node:get_console": "Show the console of a node",
        "baremetal:node:set_console_state": "Enable or disable the "
                                            "console",
    })
    rules += _rules(NODE_OWNER_MANAGE, _NODE, "PUT", {
        "baremetal:node:get_boot_device": "Show the boot device",
        "baremetal:node:set_boot_device": "Set the boot device",
        "baremetal:node:inject_nmi": "Inject a non-maskable interrupt",
        "baremetal:node:traits:set": "Set node traits",
        "baremetal:node:traits:delete": "Remove node traits",
    })
    rules += _rules(SYSTEM_ADMIN, _NODE, "PUT", {
        "baremetal:node:disable_cleaning": "Skip automated cleaning",
        "baremetal:node:vendor_passthru": "Call node vendor passthru",
        "baremetal:node:update_owner_provisioned":
            "Change the owner of a node with an instance",
    })
    return rules


#: PATCH paths with a rule of their own, and the rule's default.
FIELD_RULES = {
    "driver_info": NODE_OWNER_WRITE, "properties": NODE_OWNER_WRITE,
    "instance_uuid": NODE_OWNER_WRITE, "lessee": NODE_OWNER_WRITE,
    "network_data": NODE_OWNER_WRITE, "name": NODE_OWNER_WRITE,
    "retired": NODE_OWNER_WRITE,
    "driver_interfaces": NODE_OWNER_MANAGE,
    "owner": SYSTEM_MEMBER, "conductor_group": SYSTEM_MEMBER,
    "parent_node": SYSTEM_MEMBER,
    "chassis_uuid": SYSTEM_ADMIN, "shard": SYSTEM_ADMIN,
    "disable_power_off": SYSTEM_ADMIN,
}


def _node_field_rules() -> list[policy.RuleDefault]:
    return [_rule(f"baremetal:node:update:{field}", check,
                  f"Update a node's {field.replace('_', ' ')}", _NODE,
                  "PATCH")
            for field, check in FIELD_RULES.items()]


def _wiring_rules() -> list[policy.RuleDefault]:
    """Ports and port groups: the node's projects see them, its admins and
    managers create and delete them."""
    rules = []
    for res, path in (("port", "/ports"), ("portgroup", "/portgroups")):
        rules += [
            _rule(f"baremetal:{res}:get", NODE_READ, f"Show a {res}", path,
                  "GET"),
            _rule(f"baremetal:{res}:list", ANY_READER,
                  f"List the {res}s of the project's nodes", path, "GET"),
            _rule(f"baremetal:{res}:list_all", SYSTEM_READER,
                  f"List every {res}", path, "GET"),
            _rule(f"baremetal:{res}:create", NODE_OWNER_ADMIN,
                  f"Create a {res}", path, "POST"),
            _rule(f"baremetal:{res}:delete", NODE_OWNER_ADMIN,
                  f"Delete a {res}", path, "DELETE"),
            _rule(f"baremetal:{res}:update", NODE_OWNER_MANAGE,
                  f"Update a {res}", path, "PATCH"),
        ]
    volume_write = _any(SYSTEM_MEMBER, SYSTEM_SERVICE, _of("admin", OWNER),
                        _of("manager", OWNER), _of("admin", LESSEE),
                        _of("manager", LESSEE), _of("service", OWNER))
    rules += [
        _rule("baremetal:volume:list_all", SYSTEM_READER,
              "List every volume connector and target", "/volume", "GET"),
        _rule("baremetal:volume:list", ANY_READER,
              "List the volumes of the project's nodes", "/volume", "GET"),
        _rule("baremetal:volume:get", NODE_READ,
              "Show a volume connector or target", "/volume", "GET"),
        _rule("baremetal:volume:create", volume_write,
              "Create a volume connector or target", "/volume", "POST"),
        _rule("baremetal:volume:delete", volume_write,
              "Delete a volume connector or target", "/volume", "DELETE"),
        _rule("baremetal:volume:update",
              _any(SYSTEM_MEMBER, SYSTEM_SERVICE, _of("member", OWNER),
                   _of("admin", LESSEE), _of("manager", LESSEE),
                   _of("service", OWNER)),
              "Update a volume connector or target", "/volume", "PATCH"),
        _rule("baremetal:volume:view_target_properties",
              _any(SYSTEM_READER, "role:admin"),
              "Show the properties of volume targets", "/volume", "GET"),
    ]
    return rules


def _system_rules() -> list[policy.RuleDefault]:
    """Resources outside any project: system scope only."""
    rules = _rules(SYSTEM_READER, "/", "GET", {
        "baremetal:chassis:get": "Show or list chassis",
        "baremetal:driver:get": "Show or list drivers",
        "baremetal:driver:get_properties": "Show a driver's properties",
        "baremetal:driver:get_raid_logical_disk_properties":
            "Show a driver's RAID logical disk properties",
        "baremetal:conductor:get": "Show or list conductors",
        "baremetal:deploy_template:get": "Show or list deploy templates",
        "baremetal:inspection_rule:get": "Show inspection rules",
        "baremetal:inspection_rule:list_all": "List inspection rules",
        "baremetal:shards:get": "List shards",
    })
    rules += _rules(SYSTEM_ADMIN, "/", "POST", {
        "baremetal:chassis:create": "Create a chassis",
        "baremetal:chassis:delete": "Delete a chassis",
        "baremetal:driver:vendor_passthru": "Call driver vendor passthru",
        "baremetal:events:post": "Post external events",
        "baremetal:deploy_template:create": "Create a deploy template",
        "baremetal:deploy_template:delete": "Delete a deploy template",
        "baremetal:deploy_template:update": "Update a deploy template",
        "baremetal:inspection_rule:create": "Create an inspection rule",
        "baremetal:inspection_rule:update": "Update an inspection rule",
        "baremetal:inspection_rule:delete": "Delete an inspection rule",
    })
    rules.append(_rule("baremetal:chassis:update", SYSTEM_MEMBER,
                       "Update a chassis", "/chassis/{chassis}", "PATCH"))
    # The ramdisk's endpoints: unauthenticated agents call them, so the
    # rules let everyone in (what they may see is limited instead).
    rules += _rules("", "/", "POST", {
        "baremetal:driver:ipa_lookup": "Look a node up from its ramdisk",
        "baremetal:node:ipa_heartbeat": "Heartbeat from a node's ramdisk",
        "baremetal:driver:ipa_continue_inspection":
            "Inspection data from a node's ramdisk",
    })
    return rules


def _allocation_rules() -> list[policy.RuleDefault]:
    owner = "allocation.owner"
    coll, one = "/allocations", "/allocations/{allocation_id}"
    member = _any(SYSTEM_MEMBER, _of("member", owner))
    return [
        _rule("baremetal:allocation:get",
              _any(SYSTEM_READER, _of("reader", owner)),
              "Show an allocation", one, "GET"),
        _rule("baremetal:allocation:list", ANY_READER,
              "List the project's allocations", coll, "GET"),
        _rule("baremetal:allocation:list_all", SYSTEM_READER,
              "List the allocations of every project", coll, "GET"),
        _rule("baremetal:allocation:create",
              _any(SYSTEM_MEMBER, "role:member"),
              "Create an allocation (a project for itself)", coll, "POST"),
        _rule("baremetal:allocation:create_restricted", SYSTEM_MEMBER,
              "Create an allocation for any owner", coll, "POST"),
        _rule("baremetal:allocation:update", member,
              "Change an allocation's name or extra", one, "PATCH"),
        _rule("baremetal:allocation:delete", member,
              "Delete an allocation", one, "DELETE"),
    ]


def _runbook_rules() -> list[policy.RuleDefault]:
    owner = "runbook.owner"
    coll, one = "/runbooks", "/runbooks/{runbook_id}"
    manage = _any(SYSTEM_MEMBER, _of("manager", owner), "role:service")
    return [
        _rule("baremetal:runbook:get",
              _any(SYSTEM_READER, _of("reader", owner), "role:service"),
              "Show a runbook", one, "GET"),
        _rule("baremetal:runbook:list", ANY_READER,
              "List the project's and public runbooks", coll, "GET"),
        _rule("baremetal:runbook:list_all", SYSTEM_READER,
              "List every runbook", coll, "GET"),
        _rule("baremetal:runbook:create",
              _any(SYSTEM_MEMBER, "role:manager", "role:service"),
              "Create a runbook", coll, "POST"),
        _rule("baremetal:runbook:update", manage, "Update a runbook", one,
              "PATCH"),
        _rule("baremetal:runbook:delete", manage, "Delete a runbook", one,
              "DELETE"),
        _rule("baremetal:runbook:update:public", SYSTEM_MEMBER,
              "Make a runbook public or private", one, "PATCH"),
        _rule("baremetal:runbook:update:owner", SYSTEM_MEMBER,
              "Change a runbook's owner", one, "PATCH"),
        _rule("baremetal:runbook:use", manage,
              "Run a runbook on a node", _NODE + "/states/provision",
              "PUT"),
    ]


def list_rules() -> list[policy.RuleDefault]:
    return (_base_rules() + _node_rules() + _wiring_rules() +
            _system_rules() + _allocation_rules() + _runbook_rules())


# [oslo_policy] exists from import on, not only once an Enforcer was built,
# so policy_file can be read, overridden and listed before any request.
policy_opts.set_defaults(CONF)

_ENFORCER: policy.Enforcer | None = None
_LOCK = threading.Lock()


def get_enforcer() -> policy.Enforcer:
    global _ENFORCER
    with _LOCK:
        if _ENFORCER is None:
            enforcer = policy.Enforcer(CONF)
            enforcer.register_defaults(list_rules())
            _ENFORCER = enforcer
    return _ENFORCER


def reset() -> None:
    global _ENFORCER
    _ENFORCER = None


def enforced(context: RequestContext) -> bool:
    """Whether rules apply to ``context`` (keystone, or a public call)."""
    return CONF.auth_strategy not in ("noauth", "http_basic") or \
        context.is_public_api


def credentials(context: RequestContext) -> dict:
    creds = context.to_policy_values()
    if CONF.rbac_service_role_elevated_access and \
            CONF.rbac_service_project_name:
        creds["config.service_project_name"] = \
            CONF.rbac_service_project_name
    return creds


def authorize(rule: str, context: RequestContext,
              target: dict | None = None) -> None:
    """Raise HTTPForbidden unless ``context`` may do ``rule``."""
    if not enforced(context):
        return
    creds = credentials(context)
    # Rules may name the caller's own values (%(config....)s) as well as
    # the target's. oslo.policy renders a None value as "None", which
    # equals the str() of a missing project id: a project-less caller
    # would "own" every unowned node, so unset values are left out.
    merged = {**creds, **(target or {})}
    merged = {k: v for k, v in merged.items() if v is not None}
    if not get_enforcer().authorize(rule, merged, creds, do_raise=False):
        raise exception.HTTPForbidden(resource=rule)


def node_target(node) -> dict:
    """The policy target of a node: its owner and lessee projects."""
    return {f"node.{key}": value for key in ("owner", "lessee")
            if (value := getattr(node, key, None))}


def allowed(rule: str, context: RequestContext,
            target: dict | None = None) -> bool:
    try:
        authorize(rule, context, target)
    except exception.HTTPForbidden:
        return False
    return True


def node_list_project(context: RequestContext) -> str | None:
    """None when ``context`` may list every node, else the project whose
    owned or leased nodes alone it may see; HTTPForbidden if neither."""
    return list_project("node", context)


def list_project(resource: str, context: RequestContext) -> str | None:
    """None when ``context`` may list every ``resource``, else the project
    it may list for; HTTPForbidden if neither."""
    if allowed(f"baremetal:{resource}:list_all", context):
        return None
    authorize(f"baremetal:{resource}:list", context)
    if not context.project_id:
        raise exception.HTTPForbidden(resource=f"baremetal:{resource}:list")
    return context.project_id
