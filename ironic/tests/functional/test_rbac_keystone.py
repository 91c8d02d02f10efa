"""Secure RBAC as Ironic 39 defines it, against a real Keystone.

The scenario of the API reference's "secure RBAC" pages: a node owned by
one project and leased to another; readers, members and admins of each,
a third project's member, a system reader and a service account. Every
caller uses openstacksdk with a token from Keystone (password auth, as
users do); the service runs ``auth_strategy = keystone``. Each allowed
and refused call is checked: who sees the node (404 for the others, so
nodes cannot be probed), who may power it, provision it, attach VIFs,
change which fields, and which fields of the node each one sees.
"""

from __future__ import annotations

import os
import types
import uuid

import openstack
import pytest
from openstack import exceptions as sdk_exc

from ironic.tests.functional import keystone as ks
from ironic.tests.functional import service as svc
from ironic.tests.functional.conftest import run_service, wait_for_node

PASSWORD = "user-secret"
# name -> (project or None for system scope, role)
USERS = {
    "owner-admin": ("owner", "admin"),
    "owner-member": ("owner", "member"),
    "owner-reader": ("owner", "reader"),
    "lessee-admin": ("lessee", "admin"),
    "lessee-member": ("lessee", "member"),
    "lessee-reader": ("lessee", "reader"),
    "other-member": ("other", "member"),
    "system-reader": (None, "reader"),
    "system-member": (None, "member"),
    "ironic": ("service", "service"),
}
REDACTED_ERROR = ("** Value Redacted - Requires "
                  "baremetal:node:get:last_error permission. **")


@pytest.fixture(scope="module")
def keystone(tmp_path_factory):
    if not ks.available():
        if os.environ.get("CI") == "true":
            pytest.fail("the keystone package is not installed")
        pytest.skip("the keystone package is not installed")
    server = ks.Keystone(tmp_path_factory.mktemp("keystone")).start()
    yield server
    server.stop()


def _connect(keystone, username, password, project=None, system=False,
             endpoint=None):
    scope = {"system_scope": "all"} if system else {
        "project_name": project, "project_domain_name": "Default"}
    kwargs = {"baremetal_endpoint_override": endpoint} if endpoint else {}
    return openstack.connection.Connection(
        auth_url=keystone.url, username=username, password=password,
        user_domain_name="Default", baremetal_status_code_retries=0,
        **scope, **kwargs)


@pytest.fixture(scope="module")
def identity(keystone):
    """Projects, users and role assignments, made by the bootstrap admin.
    """
    admin = _connect(keystone, "admin", ks.ADMIN_PASSWORD, system=True)
    idn = admin.identity
    roles = {r.name: r for r in idn.roles()}
    for name in ("service", "manager"):
        if name not in roles:
            roles[name] = idn.create_role(name=name)
    projects = {name: idn.create_project(name=name, domain_id="default")
                for name in ("owner", "lessee", "other", "service")}
    for name, (project, role) in USERS.items():
        user = idn.create_user(name=name, password=PASSWORD,
                               domain_id="default")
        if project is None:
            idn.assign_system_role_to_user(user, roles[role], "all")
        else:
            idn.assign_project_role_to_user(projects[project], user,
                                            roles[role])
    admin.close()
    return {name: p.id for name, p in projects.items()}


@pytest.fixture(scope="module")
def ironic(keystone, identity, tmp_path_factory):
    authtoken = {
        "www_authenticate_uri": keystone.url, "auth_url": keystone.url,
        "auth_type": "password", "username": "ironic",
        "password": PASSWORD, "user_domain_name": "Default",
        "project_name": "service", "project_domain_name": "Default"}
    drivers = {**svc.TEST_DRIVERS,
               "rbac_service_role_elevated_access": "true"}
    yield from run_service(tmp_path_factory, "aio-keystone",
                           auth_strategy="keystone", drivers=drivers,
                           sections={"keystone_authtoken": authtoken})


@pytest.fixture(scope="module")
def as_user(keystone, ironic):
    opened = {}

    def connect(name: str):
        if name not in opened:
            project, _role = USERS.get(name, (None, None))
            password = ks.ADMIN_PASSWORD if name == "admin" else PASSWORD
            opened[name] = _connect(keystone, name, password, project,
                                    system=name == "admin" or
                                    project is None,
                                    endpoint=ironic.endpoint)
        return opened[name].baremetal
    yield connect
    for conn in opened.values():
        conn.close()


@pytest.fixture
def leased(as_user, identity):
    """A node owned by "owner", leased to "lessee", with a last error and
    BMC credentials only the owner should read."""
    admin = as_user("admin")
    node = admin.create_node(
        driver="fake-hardware", name=f"rbac-{uuid.uuid4().hex[:8]}",
        owner=identity["owner"], lessee=identity["lessee"],
        driver_info={"bmc_address": "10.0.0.9"})
    return node


def _wait(sdk, node_id: str, **expected):
    return wait_for_node(types.SimpleNamespace(baremetal=sdk), node_id,
                         **expected)


def _denied(call, *args, status=sdk_exc.ForbiddenException, **kwargs):
    with pytest.raises(status):
        call(*args, **kwargs)


def test_who_sees_the_node(as_user, leased):
    for name in ("owner-reader", "lessee-reader", "owner-member",
                 "system-reader", "ironic"):
        sdk = as_user(name)
        assert sdk.get_node(leased.id).id == leased.id, name
        assert leased.id in {n.id for n in sdk.nodes()}, name
    # Another project's member is told the node does not exist.
    other = as_user("other-member")
    _denied(other.get_node, leased.id, status=sdk_exc.NotFoundException)
    assert leased.id not in {n.id for n in other.nodes()}
    _denied(other.set_node_power_state, leased.id, "power on",
            status=sdk_exc.NotFoundException)
    # Nor are its ports listed (an empty list would say the node exists).
    resp = other.get(f"/nodes/{leased.id}/ports", raise_exc=False)
    assert resp.status_code == 404, resp.text


def test_fields_by_project(as_user, leased):
    owner_view = as_user("owner-reader").get_node(leased.id)
    assert owner_view.driver_info == {"bmc_address": "10.0.0.9"}
    lessee_view = as_user("lessee-reader").get_node(leased.id)
    assert lessee_view.driver_info == {"content": (
        "** Redacted - requires baremetal:node:get:driver_info "
        "permission. **")}
    assert lessee_view.last_error == REDACTED_ERROR
    assert lessee_view.driver_internal_info == {"content": (
        "** Redacted - Requires baremetal:node:get:driver_internal_info "
        "permission. **")}
    # A list shows each node as its GET does.
    listed = {n.id: n for n in as_user("lessee-reader").nodes(
        details=True)}
    assert listed[leased.id].last_error == REDACTED_ERROR
    system_view = as_user("system-reader").get_node(leased.id)
    assert system_view.driver_info == {"bmc_address": "10.0.0.9"}


def test_cached_documents_follow_the_caller(as_user, leased):
    """The same node read in turn by callers allowed different fields:
    a document rendered for one is never served to the other."""
    for _ in range(2):
        owner = as_user("owner-reader").get_node(leased.id)
        lessee = as_user("lessee-reader").get_node(leased.id)
        assert owner.driver_info == {"bmc_address": "10.0.0.9"}
        assert "content" in lessee.driver_info
        assert lessee.last_error == REDACTED_ERROR
        assert owner.last_error is None


def test_readers_only_read(as_user, leased):
    for name in ("owner-reader", "lessee-reader", "system-reader"):
        sdk = as_user(name)
        _denied(sdk.set_node_power_state, leased.id, "power on")
        _denied(sdk.update_node, leased.id, name="renamed")
        _denied(sdk.set_node_provision_state, leased.id, "manage")


def test_members_operate_their_nodes(as_user, leased):
    owner = as_user("owner-member")
    lessee = as_user("lessee-member")
    owner.set_node_power_state(leased.id, "power on")
    lessee.set_node_power_state(leased.id, "power off")
    _wait(owner, leased.id, power_state="power off")
    owner.set_node_provision_state(leased.id, "manage")
    _wait(owner, leased.id, provision_state="manageable")
    assert owner.update_node(leased.id, name=f"{leased.name}-x").name == \
        f"{leased.name}-x"
    # extra: any member of either project; instance_info: not a lessee
    # member (the lessee's admin or manager).
    assert lessee.patch_node(leased.id, [
        {"op": "add", "path": "/extra/team", "value": "b"}]).extra == {
        "team": "b"}
    _denied(lessee.patch_node, leased.id, [
        {"op": "add", "path": "/instance_info/image_source",
         "value": "http://image"}])
    as_user("lessee-admin").patch_node(leased.id, [
        {"op": "add", "path": "/instance_info/image_source",
         "value": "http://image"}])
    # Only the system may give a node to another project, or delete it.
    _denied(owner.update_node, leased.id, owner="someone-else")
    _denied(owner.delete_node, leased.id)
    _denied(owner.create_node, driver="fake-hardware")


def test_provision_and_vifs(as_user, leased):
    admin = as_user("admin")
    mac = ":".join(["52", "54"] + [uuid.uuid4().hex[i:i + 2]
                                   for i in (0, 2, 4, 6)])
    port = admin.create_port(node_id=leased.id, address=mac)
    # The port is seen by the node's projects only.
    assert as_user("lessee-reader").get_port(port.id).address == mac
    _denied(as_user("other-member").get_port, port.id,
            status=sdk_exc.NotFoundException)
    assert port.id in {p.id for p in as_user("owner-reader").ports()}
    assert port.id not in {p.id for p in as_user("other-member").ports()}
    admin.set_node_provision_state(leased.id, "manage")
    _wait(admin, leased.id, provision_state="manageable")
    admin.set_node_provision_state(leased.id, "provide")
    _wait(admin, leased.id, provision_state="available")
    lessee_member = as_user("lessee-member")
    _denied(lessee_member.set_node_provision_state, leased.id, "active")
    _denied(lessee_member.attach_vif_to_node, leased.id, str(uuid.uuid4()))
    lessee_admin = as_user("lessee-admin")
    vif = str(uuid.uuid4())
    lessee_admin.attach_vif_to_node(leased.id, vif)
    assert as_user("lessee-reader").list_node_vifs(leased.id) == [vif]
    lessee_admin.detach_vif_from_node(leased.id, vif)
    lessee_admin.set_node_provision_state(leased.id, "active")
    # The lessee does not see the reservation: wait as the system does.
    _wait(admin, leased.id, provision_state="active")
    owner = as_user("owner-member")
    owner.set_node_provision_state(leased.id, "deleted")
    _wait(owner, leased.id, provision_state="available")


def test_project_admin_owns_what_it_creates(as_user, identity):
    owner_admin = as_user("owner-admin")
    node = owner_admin.create_node(driver="fake-hardware")
    assert node.owner == identity["owner"]
    _denied(owner_admin.create_node, driver="fake-hardware",
            owner=identity["other"])
    owner_admin.set_node_traits(node.id, ["CUSTOM_MINE"])
    assert as_user("owner-reader").get_node(node.id).owner == \
        identity["owner"]
    # Members of the owner may not delete; its admin may.
    _denied(as_user("owner-member").delete_node, node.id)
    owner_admin.delete_node(node.id)


def test_service_role_of_the_service_project(as_user, leased):
    """With rbac_service_role_elevated_access the service project's
    service accounts act as system members."""
    sdk = as_user("ironic")
    assert leased.id in {n.id for n in sdk.nodes()}
    sdk.set_node_power_state(leased.id, "power on")
    _wait(sdk, leased.id, power_state="power on")


def test_system_member_changes_but_does_not_delete(as_user, leased,
                                                    identity):
    sdk = as_user("system-member")
    assert sdk.update_node(leased.id, owner=identity["other"]).owner == \
        identity["other"]
    _denied(sdk.delete_node, leased.id)
    _denied(as_user("owner-reader").get_node, leased.id,
            status=sdk_exc.NotFoundException)
