"""Nodes through the unmodified openstacksdk against the running service."""

from __future__ import annotations

import pytest
from openstack import exceptions as sdk_exc

MASK = "******"


def _create(conn, unique, **fields):
    fields.setdefault("driver", "fake-hardware")
    fields.setdefault("name", f"node-{unique}")
    return conn.baremetal.create_node(**fields)


def test_create_returns_the_node_with_secrets_masked(conn, unique):
    node = _create(
        conn, unique,
        driver_info={"ipmi_address": "192.0.2.1", "ipmi_username": "admin",
                     "ipmi_password": "hunter2"},
        properties={"cpus": 8, "memory_mb": 16384, "cpu_arch": "x86_64"},
        extra={"rack": "r1", "slot": 4},
        instance_info={"image_source": "http://192.0.2.9/img.qcow2"},
        resource_class="baremetal-gold")
    assert node.name == f"node-{unique}"
    assert node.driver == "fake-hardware"
    assert node.driver_info == {"ipmi_address": "192.0.2.1",
                                "ipmi_username": "admin",
                                "ipmi_password": MASK}
    assert node.properties == {"cpus": 8, "memory_mb": 16384,
                               "cpu_arch": "x86_64"}
    assert node.extra == {"rack": "r1", "slot": 4}
    assert node.instance_info == {
        "image_source": "http://192.0.2.9/img.qcow2"}
    assert node.resource_class == "baremetal-gold"
    assert node.provision_state == "enroll"
    assert node.is_maintenance is False
    assert node.traits == []
    assert len(node.id) == 36


def test_get_by_uuid_and_by_name_agree(conn, unique):
    created = _create(conn, unique, driver_info={"ipmi_password": "pw"},
                      extra={"k": "v"})
    by_id = conn.baremetal.get_node(created.id)
    by_name = conn.baremetal.get_node(f"node-{unique}")
    assert by_id.id == by_name.id == created.id
    assert by_id.name == by_name.name == f"node-{unique}"
    assert by_name.driver_info == {"ipmi_password": MASK}
    assert by_name.extra == {"k": "v"}
    assert by_name.created_at == created.created_at


def test_create_with_ownership_fields(conn, unique, needs_version):
    needs_version(65)  # lessee is the newest of these fields
    node = _create(conn, unique, owner="proj-o", lessee="proj-l",
                   description="rack 7, top")
    fetched = conn.baremetal.get_node(node.id)
    for got in (node, fetched):
        assert got.owner == "proj-o"
        assert got.lessee == "proj-l"
        assert got.description == "rack 7, top"


def test_create_in_a_group_no_conductor_serves_is_refused(conn, unique):
    # As Ironic 39: the node could never be managed, so it is not created.
    with pytest.raises(sdk_exc.BadRequestException,
                       match='conductor group "Group-A"'):
        _create(conn, unique, conductor_group="Group-A")


def test_list_shows_the_node_in_both_views(conn, unique):
    node = _create(conn, unique, driver_info={"ipmi_password": "pw"},
                   resource_class=f"rc-{unique}")
    brief = {n.id: n for n in conn.baremetal.nodes()}
    assert brief[node.id].name == f"node-{unique}"
    assert brief[node.id].provision_state == "enroll"
    detailed = {n.id: n for n in conn.baremetal.nodes(details=True)}
    assert detailed[node.id].driver_info == {"ipmi_password": MASK}
    assert detailed[node.id].resource_class == f"rc-{unique}"


def test_list_filters_and_fields(conn, unique):
    rc = f"rc-{unique}"
    ids = {_create(conn, f"{unique}-{i}", resource_class=rc).id
           for i in range(3)}
    _create(conn, f"{unique}-other", resource_class=f"{rc}-other")
    listed = list(conn.baremetal.nodes(resource_class=rc,
                                       fields=["uuid", "name"]))
    assert {n.id for n in listed} == ids
    assert all(n.name.startswith(f"node-{unique}-") for n in listed)
    # Fields left out of ``fields`` are not sent at all.
    assert all(n.resource_class is None for n in listed)
    assert list(conn.baremetal.nodes(resource_class=rc,
                                     driver="manual-management")) == []


def test_paginated_list_follows_next_links(conn, unique):
    rc = f"page-{unique}"
    ids = [_create(conn, f"{unique}-{i}", resource_class=rc).id
           for i in range(5)]
    seen = [n.id for n in conn.baremetal.nodes(resource_class=rc, limit=2)]
    assert sorted(seen) == sorted(ids)
    assert len(seen) == len(set(seen))


def test_update_node_changes_fields(conn, unique):
    node = _create(conn, unique, extra={"old": 1},
                   driver_info={"ipmi_password": "pw", "ipmi_username": "u"})
    updated = conn.baremetal.update_node(
        node, extra={"new": 2}, properties={"cpus": 2},
        name=f"renamed-{unique}")
    assert updated.extra == {"new": 2}
    assert updated.properties == {"cpus": 2}
    assert updated.name == f"renamed-{unique}"
    fetched = conn.baremetal.get_node(f"renamed-{unique}")
    assert fetched.id == node.id
    assert fetched.extra == {"new": 2}
    # The masked password shown to the client is not written back.
    assert fetched.driver_info == {"ipmi_password": MASK,
                                   "ipmi_username": "u"}
    with pytest.raises(sdk_exc.NotFoundException):
        conn.baremetal.get_node(f"node-{unique}")


def test_patch_node_applies_every_operation(conn, unique):
    node = _create(conn, unique, extra={"a": 1, "b": 2},
                   properties={"cpus": 4})
    patched = conn.baremetal.patch_node(node, [
        {"op": "add", "path": "/extra/c", "value": {"nested": [1, 2]}},
        {"op": "remove", "path": "/extra/a"},
        {"op": "replace", "path": "/properties/cpus", "value": 16},
        {"op": "add", "path": "/instance_info/root_gb", "value": 10},
    ])
    assert patched.extra == {"b": 2, "c": {"nested": [1, 2]}}
    assert patched.properties == {"cpus": 16}
    assert patched.instance_info == {"root_gb": 10}
    assert conn.baremetal.get_node(node.id).extra == patched.extra


def test_patch_secret_is_stored_but_masked(conn, unique):
    node = _create(conn, unique)
    patched = conn.baremetal.patch_node(node, [
        {"op": "add", "path": "/driver_info/redfish_password",
         "value": "s3cret"},
        {"op": "add", "path": "/driver_info/redfish_username",
         "value": "root"}])
    assert patched.driver_info == {"redfish_password": MASK,
                                   "redfish_username": "root"}


def test_rejected_patch_changes_nothing(conn, unique):
    node = _create(conn, unique, extra={"keep": True})
    with pytest.raises(sdk_exc.BadRequestException):
        conn.baremetal.patch_node(node, [
            {"op": "add", "path": "/extra/lost", "value": 1},
            {"op": "remove", "path": "/driver"}])
    with pytest.raises(sdk_exc.BadRequestException):
        conn.baremetal.patch_node(node, [
            {"op": "replace", "path": "/provision_state",
             "value": "active"}])
    fetched = conn.baremetal.get_node(node.id)
    assert fetched.extra == {"keep": True}
    assert fetched.driver == "fake-hardware"
    assert fetched.provision_state == "enroll"


def test_duplicate_name_is_a_conflict(conn, no_retry_conn, unique):
    _create(conn, unique)
    with pytest.raises(sdk_exc.ConflictException) as err:
        _create(no_retry_conn, unique)
    assert f"node-{unique}" in str(err.value)


def test_unknown_node_error_is_parsed(conn, unique):
    with pytest.raises(sdk_exc.NotFoundException) as err:
        conn.baremetal.get_node(f"missing-{unique}")
    # openstacksdk lifts the faultstring out of the error body.
    assert f"missing-{unique}" in str(err.value)


def test_bad_driver_is_rejected(conn, unique):
    with pytest.raises(sdk_exc.BadRequestException):
        _create(conn, unique, driver="no-such-hardware")
    assert conn.baremetal.find_node(f"node-{unique}") is None


def test_delete_node(conn, unique):
    node = _create(conn, unique)
    conn.baremetal.delete_node(node)
    with pytest.raises(sdk_exc.NotFoundException):
        conn.baremetal.get_node(node.id)
    assert node.id not in {n.id for n in conn.baremetal.nodes()}
    assert conn.baremetal.delete_node(node.id, ignore_missing=True) is None
    with pytest.raises(sdk_exc.NotFoundException):
        conn.baremetal.delete_node(node.id, ignore_missing=False)


def test_traits_add_set_remove(conn, unique):
    node = _create(conn, unique)
    conn.baremetal.add_node_trait(node, "CUSTOM_GPU")
    conn.baremetal.add_node_trait(node, "HW_CPU_X86_AVX2")
    assert sorted(conn.baremetal.get_node(node.id).traits) == [
        "CUSTOM_GPU", "HW_CPU_X86_AVX2"]
    conn.baremetal.set_node_traits(node, ["CUSTOM_A", "CUSTOM_B"])
    assert sorted(conn.baremetal.get_node(node.id).traits) == [
        "CUSTOM_A", "CUSTOM_B"]
    conn.baremetal.remove_node_trait(node, "CUSTOM_A")
    assert conn.baremetal.get_node(node.id).traits == ["CUSTOM_B"]
    # A trait the node lacks is a 404, as in the reference API (the SDK's
    # ignore_missing=True looks for a 400 and so does not apply).
    with pytest.raises(sdk_exc.NotFoundException):
        conn.baremetal.remove_node_trait(node, "CUSTOM_A",
                                         ignore_missing=False)


def test_invalid_trait_is_rejected(conn, unique):
    node = _create(conn, unique)
    with pytest.raises(sdk_exc.BadRequestException):
        conn.baremetal.add_node_trait(node, "not-a-trait")
    with pytest.raises(sdk_exc.BadRequestException):
        conn.baremetal.set_node_traits(node, ["CUSTOM_OK", "lower_case"])
    assert conn.baremetal.get_node(node.id).traits == []
