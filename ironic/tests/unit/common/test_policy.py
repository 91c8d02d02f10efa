"""Policy enforcement as the keystone strategy sees it: contexts built from
keystonemiddleware's headers, the default rules, and operator overrides."""

import os

import pytest

from ironic.api.middleware import auth
from ironic.common import exception, policy

RULES = {r.name: r for r in policy.list_rules()}
# The ramdisk's endpoints. Lookup and heartbeat: unauthenticated agents
# call them, so everyone; continue_inspection: public API callers only.
PUBLIC_RULES = {name for name, r in RULES.items() if r.check_str == ""}
# What only a public (unauthenticated) request matches.
RAMDISK_RULES = {"public_api"}
# validate is a GET but makes the conductor talk to the BMC, and the
# console's GET shows how to reach it: neither is a read.
READ_RULES = {name for name, r in RULES.items()
              if all(op["method"] == "GET"
                     for op in getattr(r, "operations", [{"method": ""}]))
              } - {"baremetal:node:validate", "baremetal:node:get_console"
                   } - PUBLIC_RULES
WRITE_RULES = set(RULES) - READ_RULES - RAMDISK_RULES - PUBLIC_RULES


def _ctx(roles: str, system_scope: str | None = None,
         project: str | None = "p1"):
    # Exactly the headers keystonemiddleware sets after checking a token.
    environ = {"PATH_INFO": "/v1/nodes", "HTTP_X_ROLES": roles,
               "HTTP_X_USER_ID": "u1"}
    if system_scope:
        environ["HTTP_OPENSTACK_SYSTEM_SCOPE"] = system_scope
    elif project:
        environ["HTTP_X_PROJECT_ID"] = project
    seen = {}
    auth.KeystoneContextMiddleware(
        lambda env, _sr: seen.setdefault("ctx", env[auth.ENV_KEY]))(
        environ, None)
    return seen["ctx"]


def _allowed(ctx) -> set[str]:
    allowed = set()
    for name in RULES:
        try:
            policy.authorize(name, ctx)
            allowed.add(name)
        except exception.HTTPForbidden as e:
            assert e.code == 403 and name in str(e)
    return allowed


@pytest.fixture
def keystone(config):
    config(auth_strategy="keystone")
    policy.reset()
    yield
    policy.reset()


def test_rule_names_are_unique():
    # A name registered twice makes the Enforcer raise on first use, which
    # only keystone deployments would notice.
    names = [r.name for r in policy.list_rules()]
    assert len(names) == len(set(names))


def test_only_the_ramdisk_endpoints_are_public():
    assert PUBLIC_RULES == {"baremetal:driver:ipa_lookup",
                            "baremetal:node:ipa_heartbeat",
                            "baremetal:driver:ipa_continue_inspection"}


def test_there_are_read_and_write_rules():
    assert {"baremetal:node:get", "baremetal:port:list"} <= READ_RULES
    assert {"baremetal:node:create", "baremetal:node:delete"} <= WRITE_RULES


OWNED = {"node.owner": "p1", "node.lessee": "p2"}


def _may(ctx, target=None, *rules):
    return {rule for rule in rules if policy.allowed(rule, ctx, target)}


def test_system_readers_read_members_change_admins_create(keystone):
    reader, member = _ctx("reader", "all"), _ctx("member,reader", "all")
    admin = _ctx("admin,member,reader", "all")
    reads = {"baremetal:node:get", "baremetal:node:list_all",
             "baremetal:node:get:filter_threshold", "baremetal:port:get",
             "baremetal:chassis:get"}
    changes = {"baremetal:node:set_power_state", "baremetal:node:update",
               "baremetal:node:update:owner", "baremetal:chassis:update"}
    creates = {"baremetal:node:create", "baremetal:node:delete",
               "baremetal:chassis:create", "baremetal:node:vendor_passthru"}
    every = reads | changes | creates
    assert _may(reader, OWNED, *every) == reads
    assert _may(member, OWNED, *every) == reads | changes
    assert _may(admin, OWNED, *every) == every


@pytest.mark.parametrize("who, allowed", [
    (("member,reader", "p1"), {
        "baremetal:node:get", "baremetal:node:set_power_state",
        "baremetal:node:set_provision_state", "baremetal:node:vif:attach",
        "baremetal:node:update:name", "baremetal:node:update_instance_info",
        "baremetal:node:update_extra", "baremetal:node:get:driver_info"}),
    (("member,reader", "p2"), {
        "baremetal:node:get", "baremetal:node:set_power_state",
        "baremetal:node:update_extra"}),
    (("admin,member,reader", "p2"), {
        "baremetal:node:get", "baremetal:node:set_power_state",
        "baremetal:node:set_provision_state", "baremetal:node:vif:attach",
        "baremetal:node:update_instance_info",
        "baremetal:node:update_extra"}),
    (("admin,member,reader", "p1"), {
        "baremetal:node:get", "baremetal:node:set_power_state",
        "baremetal:node:set_provision_state", "baremetal:node:vif:attach",
        "baremetal:node:update:name", "baremetal:node:update_instance_info",
        "baremetal:node:update_extra", "baremetal:node:get:driver_info",
        "baremetal:node:traits:set", "baremetal:node:delete:self_owned_node"}),
    (("reader", "p1"), {"baremetal:node:get",
                        "baremetal:node:get:driver_info"}),
    (("reader", "p2"), {"baremetal:node:get"}),
    (("admin,member,reader", "p3"), set()),
])
def test_what_the_owner_and_lessee_projects_may_do(keystone, who, allowed):
    """p1 owns the node, p2 leases it, p3 is a stranger."""
    rules = {"baremetal:node:get", "baremetal:node:set_power_state",
             "baremetal:node:set_provision_state",
             "baremetal:node:vif:attach", "baremetal:node:update:name",
             "baremetal:node:update:owner", "baremetal:node:update_extra",
             "baremetal:node:update_instance_info",
             "baremetal:node:get:driver_info", "baremetal:node:traits:set",
             "baremetal:node:delete", "baremetal:node:delete:self_owned_node",
             "baremetal:node:get:filter_threshold"}
    roles, project = who
    assert _may(_ctx(roles, project=project), OWNED, *rules) == allowed


def test_service_role_of_the_service_project(keystone, config):
    ctx = _ctx("service", project="svc-id")
    ctx.project_name = "service"
    assert not policy.allowed("baremetal:node:list_all", ctx)
    # As a project's service account, it acts on the nodes it owns.
    assert policy.allowed("baremetal:node:set_provision_state", ctx,
                          {"node.owner": "svc-id"})
    config(rbac_service_role_elevated_access=True)
    assert policy.allowed("baremetal:node:list_all", ctx)
    assert policy.allowed("baremetal:node:set_power_state", ctx, OWNED)
    assert not policy.allowed("baremetal:node:delete", ctx, OWNED)
    ctx.project_name = "elsewhere"
    assert not policy.allowed("baremetal:node:list_all", ctx)


LIST_RULES = {name for name in RULES if name.endswith(":list")
              and name.count(":") == 2}


def test_roleless_and_unscoped_callers_get_nothing(keystone):
    for ctx in (_ctx(""), _ctx("  ,")):
        assert _may(ctx, OWNED, *RULES) == PUBLIC_RULES
    # A reader without a project may ask for a list; the API then finds
    # no project to list for (403).
    assert _may(_ctx("reader", project=None), OWNED, *RULES) == \
        PUBLIC_RULES | LIST_RULES


def test_public_paths_ignore_identity_headers(keystone):
    environ = {"PATH_INFO": "/v1/lookup", "HTTP_X_ROLES": "admin",
               "HTTP_OPENSTACK_SYSTEM_SCOPE": "all"}
    seen = {}
    auth.KeystoneContextMiddleware(
        lambda env, _sr: seen.setdefault("ctx", env[auth.ENV_KEY]))(
        environ, None)
    assert seen["ctx"].is_public_api and seen["ctx"].roles == []
    assert _allowed(seen["ctx"]) == RAMDISK_RULES | PUBLIC_RULES


@pytest.mark.parametrize("strategy", ["noauth", "http_basic"])
def test_single_operator_strategies_skip_policy(config, strategy):
    config(auth_strategy=strategy)
    policy.reset()
    assert _allowed(_ctx("")) == set(RULES)


def test_unknown_rule_is_a_programming_error(keystone):
    with pytest.raises(Exception, match="baremetal:nope"):
        policy.authorize("baremetal:nope", _ctx("admin", "all"))


def _write_policy(path, text, stamp):
    path.write_text(text)
    # oslo.policy notices changes by mtime; make each version distinct.
    os.utime(path, (stamp, stamp))


def test_policy_file_overrides_and_reloads(keystone, config, tmp_path):
    path = tmp_path / "policy.yaml"
    _write_policy(path, '"baremetal:node:create": "role:member"\n'
                        '"baremetal:node:get": "!"\n', 1_000_000)
    config("oslo_policy", policy_file=str(path))
    policy.reset()
    member = _ctx("member,reader")
    policy.authorize("baremetal:node:create", member)
    with pytest.raises(exception.HTTPForbidden):
        policy.authorize("baremetal:node:get", _ctx("admin,member,reader", "all"))
    # Rules the file does not name keep their defaults.
    with pytest.raises(exception.HTTPForbidden):
        policy.authorize("baremetal:node:delete", member)
    _write_policy(path, '"baremetal:node:create": "role:nobody"\n',
                  2_000_000)
    with pytest.raises(exception.HTTPForbidden):
        policy.authorize("baremetal:node:create", member)
    policy.authorize("baremetal:node:get", _ctx("admin,member,reader", "all"))


# --- node owner and lessee ---------------------------------------------------

class _Node:
    def __init__(self, owner=None, lessee=None):
        self.owner, self.lessee = owner, lessee


NODE_READS = ["baremetal:node:get", "baremetal:node:get_states",
              "baremetal:node:traits:list"]


def test_node_target_leaves_out_unset_projects():
    assert policy.node_target(_Node("p1", None)) == {"node.owner": "p1"}
    assert policy.node_target(_Node(None, "p2")) == {"node.lessee": "p2"}
    assert policy.node_target(_Node()) == {}


@pytest.mark.parametrize("node,project,expected", [
    (_Node(owner="p1"), "p1", True),
    (_Node(lessee="p1"), "p1", True),
    (_Node(owner="p2", lessee="p3"), "p1", False),
    (_Node(), "p1", False),
])
def test_owner_and_lessee_readers_see_their_node(keystone, node, project,
                                                 expected):
    ctx = _ctx("reader", project=project)
    target = policy.node_target(node)
    for rule in NODE_READS:
        assert policy.allowed(rule, ctx, target) is expected, rule
    # Reading is all they get.
    assert not policy.allowed("baremetal:node:update", ctx, target)
    assert not policy.allowed("baremetal:node:delete", ctx, target)


def test_unset_owner_never_matches_a_projectless_reader(keystone):
    # "None" % target must not equal a missing project id.
    ctx = _ctx("reader", project=None)
    assert not policy.allowed("baremetal:node:get", ctx,
                              {"node.owner": None})
    assert not policy.allowed("baremetal:node:get", ctx,
                              policy.node_target(_Node()))


def test_node_list_scope(keystone):
    assert policy.node_list_project(_ctx("reader", "all")) is None
    assert policy.node_list_project(_ctx("reader", project="p1")) == "p1"
    with pytest.raises(exception.HTTPForbidden):
        policy.node_list_project(_ctx("", project="p1"))


def test_runbook_use_by_the_owner_manager_or_system(keystone):
    rule = "baremetal:runbook:use"
    own, other = {"runbook.owner": "p1"}, {"runbook.owner": "p2"}
    policy.authorize(rule, _ctx("manager,member,reader", project="p1"), own)
    for ctx, target in ((_ctx("manager,member,reader", project="p1"), other),
                        (_ctx("member,reader", project="p1"), own)):
        with pytest.raises(exception.HTTPForbidden):
            policy.authorize(rule, ctx, target)
    policy.authorize(rule, _ctx("member,reader", "all"), other)
