"""Allocations through openstacksdk and ``openstack baremetal allocation``
against a running all-in-one."""

from __future__ import annotations

import pytest
from openstack import exceptions as sdk_exc

from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc

WAIT = 60  # a bound for the clients' own polling, not a tuned delay


@pytest.fixture(scope="module")
def alloc_service(tmp_path_factory):
    yield from fconf.run_service(tmp_path_factory, "aio-alloc")


@pytest.fixture(scope="module")
def aconn(alloc_service):
    connection = fconf.sdk_connection(alloc_service.endpoint)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def acli(alloc_service):
    return svc.Cli(alloc_service.endpoint, api_version="1.60")


def _available(conn, name, rc, traits=(), **fields):
    node = conn.baremetal.create_node(driver="fake-hardware", name=name,
                                      resource_class=rc,
                                      provision_state="enroll", **fields)
    conn.baremetal.set_node_provision_state(node, "manage", wait=True,
                                            timeout=WAIT)
    if traits:
        conn.baremetal.set_node_traits(node, list(traits))
    return conn.baremetal.set_node_provision_state(
        node, "provide", wait=True, timeout=WAIT)


def test_sdk_allocation_lifecycle(aconn, unique):
    rc = f"rc-{unique}"
    _available(aconn, f"plain-{unique}", rc)
    want = _available(aconn, f"gpu-{unique}", rc, ["CUSTOM_GPU"])
    alloc = aconn.baremetal.create_allocation(
        resource_class=rc, traits=["CUSTOM_GPU"], name=f"a-{unique}",
        extra={"purpose": "test"})
    done = aconn.baremetal.wait_for_allocation(alloc, timeout=WAIT)
    assert done.state == "active"
    assert done.node_id == want.id
    node = aconn.baremetal.get_node(want.id)
    assert node.instance_id == done.id
    assert node.allocation_id == done.id
    assert node.instance_info["traits"] == ["CUSTOM_GPU"]
    listed = {a.id for a in aconn.baremetal.allocations(
        resource_class=rc)}
    assert listed == {done.id}
    assert [a.id for a in aconn.baremetal.allocations(node=want.id)] == [
        done.id]
    fetched = aconn.baremetal.get_allocation(f"a-{unique}")
    assert fetched.extra == {"purpose": "test"}
    patched = aconn.baremetal.update_allocation(done, name=f"b-{unique}")
    assert patched.name == f"b-{unique}"
    aconn.baremetal.delete_allocation(done)
    node = aconn.baremetal.get_node(want.id)
    assert node.instance_id is None and node.allocation_id is None
    with pytest.raises(sdk_exc.NotFoundException):
        aconn.baremetal.get_allocation(done.id)


def test_sdk_allocation_without_match_fails(aconn, unique):
    alloc = aconn.baremetal.create_allocation(resource_class=f"none-{unique}")
    with pytest.raises(sdk_exc.ResourceFailure) as err:
        aconn.baremetal.wait_for_allocation(alloc, timeout=WAIT)
    assert "No available nodes" in str(err.value)
    failed = aconn.baremetal.get_allocation(alloc.id)
    assert failed.state == "error"
    aconn.baremetal.delete_allocation(failed)


def test_sdk_bad_input_is_400(aconn, unique):
    with pytest.raises(sdk_exc.BadRequestException):
        aconn.baremetal.create_allocation(resource_class="x",
                                          traits=["not-a-trait"])
    with pytest.raises(sdk_exc.BadRequestException):
        aconn.baremetal.create_allocation(resource_class="x",
                                          candidate_nodes=[f"no-{unique}"])


def test_cli_allocation_create_list_show_delete(aconn, acli, unique):
    rc = f"cli-{unique}"
    _available(aconn, f"cli-other-{unique}", rc)
    node = _available(aconn, f"cli-{unique}", rc, owner="proj")
    created = acli.json("allocation", "create", "--resource-class", rc,
                        "--name", f"cli-a-{unique}", "--owner", "proj",
                        "--wait", str(WAIT))
    assert created["state"] == "active", created
    assert created["node_uuid"] == node.id
    assert created["owner"] == "proj"
    rows = acli.json("allocation", "list", "--resource-class", rc)
    assert [r.get("UUID", r.get("uuid")) for r in rows] == [created["uuid"]]
    shown = acli.json("allocation", "show", f"cli-a-{unique}")
    assert shown["uuid"] == created["uuid"]
    acli.run("allocation", "delete", created["uuid"])
    assert acli.json("allocation", "list", "--resource-class", rc) == []
    result = acli.run("allocation", "show", created["uuid"], check=False)
    assert result.returncode != 0
