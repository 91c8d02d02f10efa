"""API authorization with oslo.policy.

Rules are registered in code with their defaults; operators override them in
a policy file. With noauth and http_basic every authenticated caller is an
administrator, as in a single-operator lab.
"""

from __future__ import annotations

import threading

from oslo_policy import opts as policy_opts
from oslo_policy import policy

from ironic.common import exception
from ironic.common.context import RequestContext
from ironic.conf import CONF

SYSTEM_ADMIN = "role:admin and system_scope:all"
SYSTEM_READER = "(role:reader and system_scope:all) or " + SYSTEM_ADMIN
PROJECT_OWNER_READER = "role:reader and project_id:%(node.owner)s"
PROJECT_LESSEE_READER = "role:reader and project_id:%(node.lessee)s"
# Legacy admin without scope (deployments that predate scoped tokens).
LEGACY_ADMIN = "role:admin"

_READER = f"{SYSTEM_READER} or {LEGACY_ADMIN}"
_ADMIN = f"{SYSTEM_ADMIN} or {LEGACY_ADMIN}"
# Readers of the project owning or leasing the node; effective where the
# caller passes node_target(node).
_NODE_READER = (f"{_READER} or ({PROJECT_OWNER_READER}) or "
                f"({PROJECT_LESSEE_READER})")


def _rule(name: str, check: str, description: str, path: str,
          method: str) -> policy.DocumentedRuleDefault:
    return policy.DocumentedRuleDefault(
        name=name, check_str=check, description=description,
        operations=[{"path": path, "method": method}])


def _node_extra_rules() -> list[policy.RuleDefault]:
    """Node sub-resources and API-only resources (versions work)."""
    # maintenance and history rules live in _conductor_rules().
    rules = [
        _rule("baremetal:node:bios:get", _READER, "Read BIOS settings",
              "/nodes/{node_ident}/bios", "GET"),
        _rule("baremetal:node:inventory:get", _NODE_READER,
              "Read the inventory found by inspection",
              "/nodes/{node_ident}/inventory", "GET"),
        _rule("baremetal:node:ipa_continue_inspection",
              "is_public_api:True",
              "Post inspection data from the ramdisk (unauthenticated)",
              "/continue_inspection", "POST"),
        _rule("baremetal:node:firmware:get", _READER,
              "Read firmware components", "/nodes/{node_ident}/firmware",
              "GET"),
        _rule("baremetal:shards:get", _READER, "Read shards",
              "/shards", "GET"),
        _rule("baremetal:events:post", _ADMIN, "Post external events",
              "/events", "POST"),
    ]
    for verb, check, method in (("get", _READER, "GET"),
                                ("create", _ADMIN, "POST"),
                                ("update", _ADMIN, "PATCH"),
                                ("delete", _ADMIN, "DELETE")):
        rules.append(_rule(f"baremetal:volume:{verb}", check,
                           f"{verb.capitalize()} volume connectors and "
                           f"targets", "/volume", method))
        rules.append(_rule(f"baremetal:deploy_template:{verb}", check,
                           f"{verb.capitalize()} deploy templates",
                           "/deploy_templates", method))
        rules.append(_rule(f"baremetal:runbook:{verb}", check,
                           f"{verb.capitalize()} runbooks", "/runbooks",
                           method))
        rules.append(_rule(f"baremetal:inspection_rule:{verb}", check,
                           f"{verb.capitalize()} inspection rules",
                           "/inspection_rules", method))
    # Running a runbook (1.92): administrators, members of the project
    # owning it, anyone when it is public.
    rules.append(_rule(
        "baremetal:runbook:use",
        f"{_ADMIN} or (role:member and project_id:%(runbook.owner)s) or "
        f"('True':%(runbook.public)s)",
        "Run a runbook on a node (clean or service with 'runbook')",
        "/nodes/{node_ident}/states/provision", "PUT"))
    return rules


def list_rules() -> list[policy.RuleDefault]:
    rules = [
        _rule("baremetal:node:create", _ADMIN, "Create a node",
              "/nodes", "POST"),
        # Project readers may be let in once the list is filtered through
        # node_list_project(); until then listing stays system-wide only.
        _rule("baremetal:node:list", _READER, "List nodes", "/nodes",
              "GET"),
        _rule("baremetal:node:list_all", _READER,
              "List nodes of every project", "/nodes", "GET"),
        _rule("baremetal:node:get", _NODE_READER, "Show a node",
              "/nodes/{node_ident}", "GET"),
        _rule("baremetal:node:update", _ADMIN, "Update a node",
              "/nodes/{node_ident}", "PATCH"),
        _rule("baremetal:node:delete", _ADMIN, "Delete a node",
              "/nodes/{node_ident}", "DELETE"),
        _rule("baremetal:node:get_states", _NODE_READER,
              "Show node states", "/nodes/{node_ident}/states", "GET"),
        _rule("baremetal:node:traits:list", _NODE_READER, "List node traits",
              "/nodes/{node_ident}/traits", "GET"),
        _rule("baremetal:node:traits:set", _ADMIN, "Set node traits",
              "/nodes/{node_ident}/traits", "PUT"),
        _rule("baremetal:node:traits:delete", _ADMIN, "Remove node traits",
              "/nodes/{node_ident}/traits", "DELETE"),
    ]
    rules += _conductor_rules()
    rules += _node_extra_rules()
    rules += _driver_rules()
    rules += _allocation_rules()
    rules += _ramdisk_rules()
    for res, path in (("port", "/ports"), ("portgroup", "/portgroups"),
                      ("chassis", "/chassis")):
        rules += [
            _rule(f"baremetal:{res}:get", _READER, f"Show or list {res}s",
                  path, "GET"),
            _rule(f"baremetal:{res}:list", _READER, f"List {res}s",
                  path, "GET"),
            _rule(f"baremetal:{res}:create", _ADMIN, f"Create a {res}",
                  path, "POST"),
            _rule(f"baremetal:{res}:update", _ADMIN, f"Update a {res}",
                  path + "/{ident}", "PATCH"),
            _rule(f"baremetal:{res}:delete", _ADMIN, f"Delete a {res}",
                  path + "/{ident}", "DELETE"),
        ]
    return rules


def _allocation_rules() -> list[policy.RuleDefault]:
    """Allocations (1.52): project readers see, and members manage, the
    allocations their project owns. The API passes the owner as the
    target (the caller's own project when it lists or creates as a
    project) and filters lists by owner for callers without list_all."""
    coll, one = "/allocations", "/allocations/{allocation_id}"
    project_reader = "role:reader and project_id:%(allocation.owner)s"
    project_member = "role:member and project_id:%(allocation.owner)s"
    return [
        _rule("baremetal:allocation:get",
              f"{_READER} or ({project_reader})", "Show an allocation",
              one, "GET"),
        _rule("baremetal:allocation:list",
              f"{_READER} or ({project_reader})",
              "List allocations (a project its own)", coll, "GET"),
        _rule("baremetal:allocation:list_all", _READER,
              "List allocations of every project", coll, "GET"),
        _rule("baremetal:allocation:create",
              f"{_ADMIN} or ({project_member})",
              "Create an allocation (a project for itself)", coll, "POST"),
        _rule("baremetal:allocation:create_restricted", _ADMIN,
              "Create an allocation for any owner", coll, "POST"),
        _rule("baremetal:allocation:update",
              f"{_ADMIN} or ({project_member})",
              "Change an allocation's name or extra", one, "PATCH"),
        _rule("baremetal:allocation:delete",
              f"{_ADMIN} or ({project_member})", "Delete an allocation",
              one, "DELETE"),
    ]


def _driver_rules() -> list[policy.RuleDefault]:
    """Rules of /drivers and of vendor passthru (driver composition)."""
    drv = "/drivers/{driver_name}"
    return [
        _rule("baremetal:driver:get", _READER, "Show or list drivers",
              "/drivers", "GET"),
        _rule("baremetal:driver:get_properties", _READER,
              "Show the driver_info properties of a driver",
              drv + "/properties", "GET"),
        _rule("baremetal:driver:get_raid_logical_disk_properties", _READER,
              "Show the RAID logical disk properties of a driver",
              drv + "/raid/logical_disk_properties", "GET"),
        _rule("baremetal:driver:vendor_passthru", _ADMIN,
              "Call or list driver vendor passthru methods",
              drv + "/vendor_passthru", "POST"),
        _rule("baremetal:node:vendor_passthru", _ADMIN,
              "Call or list node vendor passthru methods",
              "/nodes/{node_ident}/vendor_passthru", "POST"),
    ]


def _ramdisk_rules() -> list[policy.RuleDefault]:
    """The ramdisk's endpoints: callers are unauthenticated agents, so the
    rules let everyone in (what they may see is limited instead)."""
    return [
        _rule("baremetal:driver:ipa_lookup", "",
              "Look a node up from its ramdisk", "/lookup", "GET"),
        _rule("baremetal:node:ipa_heartbeat", "",
              "Receive a heartbeat from a node's ramdisk",
              "/heartbeat/{node_ident}", "POST"),
    ]


def _conductor_rules() -> list[policy.RuleDefault]:
    """Rules of the conductor-backed node actions and /conductors."""
    node = "/nodes/{node_ident}"
    return [
        _rule("baremetal:conductor:get", _READER, "Show or list conductors",
              "/conductors", "GET"),
        _rule("baremetal:node:set_provision_state", _ADMIN,
              "Change the provision state of a node",
              node + "/states/provision", "PUT"),
        _rule("baremetal:node:set_power_state", _ADMIN,
              "Change the power state of a node", node + "/states/power",
              "PUT"),
        _rule("baremetal:node:set_boot_device", _ADMIN,
              "Set the boot device of a node",
              node + "/management/boot_device", "PUT"),
        _rule("baremetal:node:get_boot_device", _READER,
              "Show the boot device of a node",
              node + "/management/boot_device", "GET"),
        _rule("baremetal:node:vif:list", _NODE_READER,
              "List the VIFs attached to a node", node + "/vifs", "GET"),
        _rule("baremetal:node:vif:attach", _ADMIN,
              "Attach a VIF to a node", node + "/vifs", "POST"),
        _rule("baremetal:node:vif:detach", _ADMIN,
              "Detach a VIF from a node", node + "/vifs/{node_vif_ident}",
              "DELETE"),
        _rule("baremetal:node:get_indicator_state", _NODE_READER,
              "List a node's indicators and read their states",
              node + "/management/indicators/{component}", "GET"),
        _rule("baremetal:node:set_indicator_state", _ADMIN,
              "Set the state of a node's indicator",
              node + "/management/indicators/{component}", "PUT"),
        _rule("baremetal:node:inject_nmi", _ADMIN,
              "Inject a non-maskable interrupt into a node",
              node + "/management/inject_nmi", "PUT"),
        _rule("baremetal:node:vmedia:attach", _ADMIN,
              "Attach an image as virtual media of a node",
              node + "/vmedia", "POST"),
        _rule("baremetal:node:vmedia:detach", _ADMIN,
              "Detach the virtual media of a node", node + "/vmedia",
              "DELETE"),
        _rule("baremetal:node:vmedia:get", _NODE_READER,
              "Read the virtual media of a node", node + "/vmedia", "GET"),
        _rule("baremetal:node:set_maintenance", _ADMIN,
              "Put a node in maintenance", node + "/maintenance", "PUT"),
        _rule("baremetal:node:clear_maintenance", _ADMIN,
              "Take a node out of maintenance", node + "/maintenance",
              "DELETE"),
        _rule("baremetal:node:set_raid_state", _ADMIN,
              "Set the target RAID configuration of a node",
              node + "/states/raid", "PUT"),
        _rule("baremetal:node:get_console", _ADMIN,
              "Show the console of a node", node + "/states/console",
              "GET"),
        _rule("baremetal:node:set_console_state", _ADMIN,
              "Enable or disable the console of a node",
              node + "/states/console", "PUT"),
        _rule("baremetal:node:set_boot_mode", _ADMIN,
              "Set the boot mode of a node", node + "/states/boot_mode",
              "PUT"),
        _rule("baremetal:node:set_secure_boot", _ADMIN,
              "Set secure boot on a node", node + "/states/secure_boot",
              "PUT"),
        _rule("baremetal:node:validate", _ADMIN,
              "Validate the interfaces of a node", node + "/validate",
              "GET"),
        _rule("baremetal:node:history:get", _READER,
              "List the history of a node", node + "/history", "GET"),
    ]


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


def authorize(rule: str, context: RequestContext,
              target: dict | None = None) -> None:
    """Raise HTTPForbidden unless ``context`` may do ``rule``."""
    if CONF.auth_strategy in ("noauth", "http_basic") and \
            not context.is_public_api:
        return
    creds = context.to_policy_values()
    # oslo.policy renders a None target value as "None", which equals the
    # str() of a missing project id: a project-less caller would "own"
    # every unowned node. Unset values must simply not match.
    target = {k: v for k, v in (target or {}).items() if v is not None}
    if not get_enforcer().authorize(rule, target, creds, do_raise=False):
        raise exception.HTTPForbidden(resource=rule)


def node_target(node) -> dict:
    """The policy target of a node: its owner and lessee projects.

    Unset ones are left out rather than passed as None, which oslo.policy
    would compare as the string "None".
    """
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
    if allowed("baremetal:node:list_all", context):
        return None
    authorize("baremetal:node:list", context)
    if not context.project_id:
        raise exception.HTTPForbidden(resource="baremetal:node:list")
    return context.project_id

