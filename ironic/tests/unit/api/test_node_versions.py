"""Node fields, filters and PATCH rules at the versions that define them."""

from unittest import mock

import pytest

from ironic.db import api as db_api
from ironic.tests import fixtures as ifx
from ironic.tests.fixtures import error_message


def _create(api, version=None, **fields):
    body = {"driver": "fake-hardware", **fields}
    resp = api.post("/v1/nodes", body, version=version)
    assert resp.status_int == 201, resp.body
    return resp.json


def _db_update(uuid, **values):
    dbapi = db_api.get_instance()
    dbapi.update_node(dbapi.get_node_by_uuid(uuid).id, values)


def test_available_shown_as_null_before_1_2(api):
    node = _create(api, version="1.10")
    assert node["provision_state"] == "available"
    old = api.get(f"/v1/nodes/{node['uuid']}", version="1.1").json
    assert old["provision_state"] is None
    states = api.get(f"/v1/nodes/{node['uuid']}/states", version="1.1").json
    assert states["provision_state"] is None


def test_enroll_is_the_initial_state_from_1_11(api):
    assert _create(api, version="1.11")["provision_state"] == "enroll"


def test_fields_shown_only_from_their_version(api):
    node = _create(api)
    doc = api.get(f"/v1/nodes/{node['uuid']}", version="1.2").json
    assert "driver_internal_info" not in doc and "name" not in doc
    doc = api.get(f"/v1/nodes/{node['uuid']}", version="1.7").json
    assert {"driver_internal_info", "name", "clean_step"} <= set(doc)
    assert "raid_config" not in doc


def test_name_rules_change_at_1_10(api):
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "name": "a_b"},
                    version="1.9")
    assert resp.status_int == 400
    assert _create(api, version="1.9", name="host-1.example.org")
    assert _create(api, version="1.10", name="a_b~c")
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "name": "x"},
                    version="1.4")
    assert resp.status_int == 406


def test_name_lookup_needs_1_5(api):
    _create(api, name="named")
    assert api.get("/v1/nodes/named", version="1.4").status_int == 404
    assert api.get("/v1/nodes/named", version="1.5").status_int == 200


def test_json_suffix_is_stripped_before_1_91(api_newest):
    api = api_newest
    _create(api, name="srv")
    _create(api, name="srv.json")
    assert api.get("/v1/nodes/srv.json", version="1.90").json["name"] == \
        "srv"
    assert api.get("/v1/nodes/srv.json", version="1.91").json["name"] == \
        "srv.json"


def test_fields_param_needs_1_8_and_newer_fields_are_406(api):
    node = _create(api)
    url = f"/v1/nodes/{node['uuid']}?fields=uuid"
    assert api.get(url, version="1.7").status_int == 406
    assert api.get(url, version="1.8").json == {"uuid": node["uuid"],
                                                 "links": node["links"]}
    resp = api.get(f"/v1/nodes/{node['uuid']}?fields=owner", version="1.49")
    assert resp.status_int == 406
    resp = api.get("/v1/nodes?fields=owner", version="1.49")
    assert resp.status_int == 406
    assert api.get("/v1/nodes?fields=owner", version="1.50").json == {
        "nodes": [{"owner": None, "links": mock.ANY}]}
    resp = api.get("/v1/nodes?fields=bogus")
    assert resp.status_int == 400


def test_filters_are_version_gated(api):
    assert api.get("/v1/nodes?driver=x", version="1.15").status_int == 406
    assert api.get("/v1/nodes?driver=x", version="1.16").status_int == 200
    assert api.get("/v1/nodes?owner=p", version="1.49").status_int == 406
    assert api.get("/v1/nodes?owner=p", version="1.50").status_int == 200
    assert api.get("/v1/nodes?detail=true", version="1.42").status_int == 400
    assert api.get("/v1/nodes?detail=true", version="1.43").status_int == 200


def test_filters_select_nodes(api_newest):
    api = api_newest
    a = _create(api, owner="p1", lessee="l1", resource_class="gold",
                description="rack 12 top")
    ifx.register_test_conductor("cg1-conductor", "cg1")
    _create(api, owner="p2", conductor_group="CG1")
    uuids = lambda url: [n["uuid"] for n in api.get(url).json["nodes"]]  # noqa
    assert uuids("/v1/nodes?owner=p1") == [a["uuid"]]
    assert uuids("/v1/nodes?lessee=l1") == [a["uuid"]]
    assert uuids("/v1/nodes?resource_class=gold") == [a["uuid"]]
    assert uuids("/v1/nodes?description_contains=12%20top") == [a["uuid"]]
    assert len(uuids("/v1/nodes?conductor_group=cg1")) == 1
    assert len(uuids("/v1/nodes?driver=fake-hardware")) == 2
    assert uuids("/v1/nodes?driver=ipmi") == []


def test_state_instance_maintenance_and_fault_filters(api_newest):
    api = api_newest
    inst = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
    plain = _create(api)["uuid"]
    deployed = _create(api, instance_uuid=inst)["uuid"]
    broken = _create(api, maintenance=True)["uuid"]
    _db_update(deployed, provision_state="active")
    _db_update(broken, provision_state="manageable", fault="power failure")

    def uuids(query):
        resp = api.get(f"/v1/nodes?{query}")
        assert resp.status_int == 200, resp.body
        return sorted(n["uuid"] for n in resp.json["nodes"])

    assert uuids("provision_state=active") == [deployed]
    assert uuids("provision_state=manageable") == [broken]
    assert uuids("provision_state=enroll") == [plain]
    assert uuids("provision_state=deploying") == []
    assert uuids("associated=true") == [deployed]
    assert uuids("associated=False") == sorted([plain, broken])
    assert uuids(f"instance_uuid={inst}") == [deployed]
    # Any spelling of the UUID finds it.
    assert uuids(f"instance_uuid={inst.upper()}") == [deployed]
    assert uuids("instance_uuid=0c3b9f94-4d6e-4a7c-9a53-11ad2f2c6a10") == []
    assert uuids("maintenance=true") == [broken]
    assert uuids("maintenance=0") == sorted([plain, deployed])
    assert uuids("fault=power%20failure") == [broken]
    assert uuids("fault=clean%20failure") == []
    # Filters combine with AND.
    assert uuids("maintenance=false&associated=true") == [deployed]
    assert uuids("maintenance=true&fault=power%20failure"
                 "&provision_state=manageable") == [broken]
    assert uuids("maintenance=true&associated=true") == []


@pytest.mark.parametrize("query,status", [
    ("provision_state=active", 406), ("fault=power%20failure", 406),
    ("associated=maybe", 400), ("maintenance=maybe", 400),
    ("instance_uuid=not-a-uuid", 400)])
def test_state_instance_maintenance_and_fault_filter_errors(api, query,
                                                            status):
    # provision_state needs 1.9 and fault 1.42; bad values are 400.
    resp = api.get(f"/v1/nodes?{query}", version="1.8")
    assert resp.status_int == status, resp.body
    error_message(resp)


def test_sort_key_rules(api):
    for _ in range(3):
        _create(api)
    assert api.get("/v1/nodes?sort_key=driver_info").status_int == 400
    assert api.get("/v1/nodes?sort_key=chassis_id").status_int == 400
    assert api.get("/v1/nodes?sort_key=nope").status_int == 400
    assert api.get("/v1/nodes?sort_key=owner",
                   version="1.49").status_int == 406
    assert api.get("/v1/nodes?sort_key=owner",
                   version="1.50").status_int == 200
    resp = api.get("/v1/nodes?sort_key=uuid&sort_dir=desc")
    got = [n["uuid"] for n in resp.json["nodes"]]
    assert got == sorted(got, reverse=True)


def test_secrets_masked(api):
    node = _create(api, driver_info={"ipmi_password": "pw", "user": "u"},
                   instance_info={"configdrive": "blob", "image": "i"})
    _db_update(node["uuid"], driver_internal_info={
        "agent_secret_token": "tok", "x": 1})
    doc = api.get(f"/v1/nodes/{node['uuid']}").json
    assert doc["driver_info"] == {"ipmi_password": "******", "user": "u"}
    assert doc["instance_info"]["configdrive"] == "******"
    assert doc["driver_internal_info"] == {"agent_secret_token": "******",
                                           "x": 1}
    # Patching other keys keeps the real secret underneath.
    api.patch(f"/v1/nodes/{node['uuid']}", [
        {"op": "add", "path": "/driver_info/extra_key", "value": 1}])
    dbnode = db_api.get_instance().get_node_by_uuid(node["uuid"])
    assert dbnode.driver_info["ipmi_password"] == "pw"


def test_remove_resets_to_default(api):
    node = _create(api, extra={"a": 1})
    resp = api.patch(f"/v1/nodes/{node['uuid']}", [
        {"op": "remove", "path": "/extra"},
        {"op": "remove", "path": "/maintenance"}])
    assert resp.status_int == 200, resp.body
    assert resp.json["extra"] == {} and resp.json["maintenance"] is False


def test_patch_newer_field_is_406(api):
    node = _create(api)
    resp = api.patch(f"/v1/nodes/{node['uuid']}", [
        {"op": "add", "path": "/owner", "value": "p"}], version="1.49")
    assert resp.status_int == 406


def test_chassis_uuid_removal_needs_1_25(api):
    dbapi = db_api.get_instance()
    chassis = dbapi.create_chassis({"extra": {}})
    node = _create(api, chassis_uuid=chassis.uuid)
    assert node["chassis_uuid"] == chassis.uuid
    url = f"/v1/nodes/{node['uuid']}"
    rm = [{"op": "remove", "path": "/chassis_uuid"}]
    assert api.patch(url, rm, version="1.24").status_int == 406
    resp = api.patch(url, rm, version="1.25")
    assert resp.status_int == 200 and resp.json["chassis_uuid"] is None


def test_locked_node_refuses_changes(api):
    node = _create(api)
    _db_update(node["uuid"], reservation="cond-1")
    url = f"/v1/nodes/{node['uuid']}"
    resp = api.patch(url, [{"op": "add", "path": "/extra/a", "value": 1}])
    assert resp.status_int == 409 and "cond-1" in error_message(resp)
    assert api.delete(url).status_int == 409
    assert api.put(f"{url}/traits/CUSTOM_A").status_int == 409


def test_instance_uuid_cannot_be_replaced(api):
    node = _create(api, instance_uuid="11111111-2222-3333-4444-555555555555")
    resp = api.patch(f"/v1/nodes/{node['uuid']}", [
        {"op": "replace", "path": "/instance_uuid",
         "value": "66666666-2222-3333-4444-555555555555"}])
    assert resp.status_int == 409


def test_protected_rules(api_newest):
    api = api_newest
    node = _create(api)
    url = f"/v1/nodes/{node['uuid']}"
    resp = api.patch(url, [{"op": "replace", "path": "/protected",
                            "value": True}])
    # Only active (or rescued) nodes can be protected: a conflict.
    assert resp.status_int == 409
    assert "'active' or 'rescue'" in error_message(resp)
    _db_update(node["uuid"], provision_state="active")
    resp = api.patch(url, [{"op": "replace", "path": "/protected_reason",
                            "value": "why"}])
    assert resp.status_int == 400
    resp = api.patch(url, [
        {"op": "replace", "path": "/protected", "value": True},
        {"op": "replace", "path": "/protected_reason", "value": "prod"}])
    assert resp.status_int == 200
    assert resp.json["protected_reason"] == "prod"
    resp = api.patch(url, [{"op": "replace", "path": "/protected",
                            "value": False}])
    assert resp.json["protected"] is False
    assert resp.json["protected_reason"] is None


def test_retired_rules(api_newest):
    api = api_newest
    node = _create(api)
    url = f"/v1/nodes/{node['uuid']}"
    resp = api.patch(url, [
        {"op": "replace", "path": "/retired", "value": True},
        {"op": "replace", "path": "/retired_reason", "value": "old"}])
    assert resp.status_int == 200 and resp.json["retired_reason"] == "old"
    resp = api.patch(url, [{"op": "replace", "path": "/retired",
                            "value": False}])
    assert resp.json["retired_reason"] is None
    _db_update(node["uuid"], provision_state="available")
    resp = api.patch(url, [{"op": "replace", "path": "/retired",
                            "value": True}])
    assert resp.status_int == 409
    assert "can not have 'retired' set" in error_message(resp)


def test_instance_name_takes_display_name_only_while_empty(api_newest):
    api = api_newest
    node = _create(api, instance_info={"display_name": "vm-1"})
    assert node["instance_name"] == "vm-1"
    url = f"/v1/nodes/{node['uuid']}"

    def patch(*ops):
        resp = api.patch(url, list(ops))
        assert resp.status_int == 200, resp.body
        return resp.json["instance_name"]

    # Set once, it stays: a later display_name does not overwrite it...
    assert patch({"op": "add", "path": "/instance_info/display_name",
                  "value": "vm-2"}) == "vm-1"
    assert patch({"op": "replace", "path": "/instance_name",
                  "value": "explicit"}) == "explicit"
    assert patch({"op": "replace", "path": "/instance_info",
                  "value": {"display_name": "vm-3"}}) == "explicit"
    # ... and replacing instance_info does not null it.
    assert patch({"op": "replace", "path": "/instance_info",
                  "value": {}}) == "explicit"
    assert patch({"op": "remove", "path": "/instance_name"}) is None
    assert patch({"op": "add", "path": "/instance_info/display_name",
                  "value": "vm-4"}) == "vm-4"


def test_patch_key_with_slash_is_refused(api_newest):
    # The reference's paths are words and dashes only: no escapes.
    node = _create(api_newest)
    resp = api_newest.patch(f"/v1/nodes/{node['uuid']}", [
        {"op": "add", "path": "/extra/a~1b", "value": 1}])
    assert resp.status_int == 400
    assert error_message(resp) == (
        "Schema error for patch: '/extra/a~1b' does not match "
        "'^(/[\\\\w-]+)+$'")


def test_reset_interfaces_is_gated(api_newest):
    node = _create(api_newest)
    url = f"/v1/nodes/{node['uuid']}?reset_interfaces=true"
    patch = [{"op": "replace", "path": "/driver", "value": "ipmi"}]
    assert api_newest.patch(url, patch, version="1.44").status_int == 406
    assert api_newest.patch(url, patch).status_int == 400


def test_traits_put_body_and_limit(api):
    node = _create(api)
    url = f"/v1/nodes/{node['uuid']}/traits"
    traits = [f"CUSTOM_T{i}" for i in range(50)]
    assert api.put(url, {"traits": traits}).status_int == 204
    assert sorted(api.get(url).json["traits"]) == sorted(traits)
    assert api.put(f"{url}/CUSTOM_MORE").status_int == 400
    assert api.put(url, {"traits": traits + ["CUSTOM_X"]}).status_int == 400
    assert api.put(url, {"traits": ["lower"]}).status_int == 400
    # Custom traits are upper case, as the reference's schema says.
    assert api.put(url, {"traits": ["CUSTOM_lower"]}).status_int == 400
    assert api.put(url, {"nope": []}).status_int == 400
    # Before 1.37: GET not acceptable, PUT not allowed, DELETE not found.
    assert api.get(url, version="1.36").status_int == 406
    assert api.put(url, {"traits": []}, version="1.36").status_int == 405
    assert api.delete(url, version="1.36").status_int == 404
    doc = api.get(f"/v1/nodes/{node['uuid']}").json
    assert len(doc["traits"]) == 50
    assert api.delete(url).status_int == 204
    assert api.get(url).json["traits"] == []


def test_states_document(api_newest):
    node = _create(api_newest)
    url = f"/v1/nodes/{node['uuid']}/states"
    doc = api_newest.get(url).json
    assert doc["provision_state"] == "enroll"
    assert "boot_mode" in doc and "raid_config" in doc
    old = api_newest.get(url, version="1.11").json
    assert "raid_config" not in old and "boot_mode" not in old


def test_maintenance_endpoint(api):
    node = _create(api)
    url = f"/v1/nodes/{node['uuid']}/maintenance"
    assert api.put(url, {"reason": "broken fan"}).status_int == 202
    doc = api.get(f"/v1/nodes/{node['uuid']}").json
    assert doc["maintenance"] is True
    assert doc["maintenance_reason"] == "broken fan"
    assert api.put(url, {"reason": 5}).status_int == 400
    assert api.delete(url).status_int == 202
    doc = api.get(f"/v1/nodes/{node['uuid']}").json
    assert doc["maintenance"] is False and doc["maintenance_reason"] is None


def test_children_hidden_and_listed(api_newest):
    api = api_newest
    parent = _create(api, name="parent")
    child = _create(api, parent_node="parent")
    assert child["parent_node"] == parent["uuid"]
    listed = [n["uuid"] for n in api.get("/v1/nodes").json["nodes"]]
    assert listed == [parent["uuid"]]
    listed = api.get("/v1/nodes?include_children=true").json["nodes"]
    assert len(listed) == 2
    by_parent = api.get("/v1/nodes?parent_node=parent").json["nodes"]
    assert [n["uuid"] for n in by_parent] == [child["uuid"]]
    doc = api.get(f"/v1/nodes/{parent['uuid']}/children").json
    assert doc["children"] == [child["uuid"]]
    # As Ironic 39: one link object to the node list of the same children.
    assert doc["links"] == {
        "href": f"http://localhost/v1/nodes?parent_node={parent['uuid']}",
        "rel": "children"}
    resp = api.get(f"/v1/nodes/{parent['uuid']}/children", version="1.82")
    assert resp.status_int == 404


@pytest.mark.parametrize("version", ["1.1", "1.38"])
def test_list_default_fields(api, version):
    _create(api)
    node = api.get("/v1/nodes", version=version).json["nodes"][0]
    expected = {"uuid", "instance_uuid", "maintenance", "power_state",
                "provision_state", "links"}
    if version != "1.1":
        expected.add("name")
    assert set(node) == expected


def test_conductor_field_and_filter(api_newest, config):
    from ironic import hash_ring
    api = api_newest
    dbapi = db_api.get_instance()
    # c1 is the only conductor; nodes can only be created with a driver
    # a conductor serves, so b gets one nobody serves afterwards.
    dbapi.unregister_conductor("test-conductor")
    ifx.register_test_conductor("c1")
    hash_ring.reset()
    try:
        a = _create(api)
        b = _create(api)
        dbapi.update_node(dbapi.get_node_by_uuid(b["uuid"]).id,
                          {"driver": "ipmi"})
        assert api.get(f"/v1/nodes/{a['uuid']}").json["conductor"] == "c1"
        assert api.get(f"/v1/nodes/{b['uuid']}").json["conductor"] is None
        got = api.get("/v1/nodes?conductor=c1").json["nodes"]
        assert [n["uuid"] for n in got] == [a["uuid"]]
        assert api.get("/v1/nodes?conductor=c1&limit=1").json["nodes"]
        page = api.get("/v1/nodes?conductor=none&limit=1").json
        assert page["nodes"] == [] and "next" in page
        assert api.get("/v1/nodes?conductor=c1",
                       version="1.48").status_int == 406
    finally:
        hash_ring.reset()


def test_health_field_is_read_only_from_1_109(api_newest):
    api = api_newest
    node = _create(api)
    _db_update(node["uuid"], health="OK")
    url = f"/v1/nodes/{node['uuid']}"
    assert api.get(url).json["health"] == "OK"
    assert "health" not in api.get(url, version="1.108").json
    resp = api.patch(url, [{"op": "replace", "path": "/health",
                            "value": "Critical"}])
    assert resp.status_int == 400
    assert api.post("/v1/nodes", {"driver": "fake-hardware",
                                  "health": "OK"}).status_int == 400


def test_shard_list_and_instance_name_filters(api_newest):
    api = api_newest
    a = _create(api, shard="s1", instance_name="vm-a")
    b = _create(api, shard="s2")
    _create(api, shard="s3")

    def uuids(url):
        return sorted(n["uuid"] for n in api.get(url).json["nodes"])

    assert uuids("/v1/nodes?shard=s1,s2") == sorted([a["uuid"], b["uuid"]])
    assert uuids("/v1/nodes?instance_name=vm-a") == [a["uuid"]]
    assert api.get("/v1/nodes?instance_name=vm-a",
                   version="1.103").status_int == 406


def test_project_scoped_admin_owns_what_it_creates(database, config,
                                                   monkeypatch):
    from keystonemiddleware import auth_token

    from ironic.api import app as api_app
    from ironic.common import policy
    from ironic.conf import CONF
    from ironic.tests import fixtures as ifx
    for group, opts in auth_token.list_opts():
        CONF.register_opts(opts, group=group)
    config(auth_strategy="keystone")
    policy.reset()
    monkeypatch.setattr(auth_token, "AuthProtocol", lambda app, _conf: app)
    ifx.register_test_conductor()
    client = ifx.ApiClient(api_app.setup_app(), "1.80")
    p1 = {"X-Roles": "admin,member,reader", "X-Project-Id": "p1"}
    p2 = {"X-Roles": "admin,member,reader", "X-Project-Id": "p2"}
    node = client.post("/v1/nodes", {"driver": "fake-hardware"},
                       headers=p1)
    assert node.status_int == 201, node.body
    assert node.json["owner"] == "p1"
    other = client.post("/v1/nodes", {"driver": "fake-hardware",
                                      "owner": "p2"}, headers=p1)
    assert other.status_int == 403
    url = f"/v1/nodes/{node.json['uuid']}"
    # Another project does not even see the node.
    assert client.delete(url, headers=p2).status_int == 404
    assert client.delete(url, headers=p1).status_int == 204
    policy.reset()


def test_instance_info_image_url_is_masked(api_newest):
    node = _create(api_newest, instance_info={
        "image_url": "http://swift/temp?sig=abc", "image_source": "img"})
    assert node["instance_info"] == {"image_url": "******",
                                     "image_source": "img"}


def test_list_filters_the_reference_applies_at_any_version(api_newest):
    _create(api_newest, description="rack 7")
    assert api_newest.get("/v1/nodes?retired=true",
                          version="1.60").json["nodes"] == []
    found = api_newest.get("/v1/nodes?description_contains=rack",
                           version="1.50").json["nodes"]
    assert len(found) == 1
    # A parent that does not exist has no children.
    assert api_newest.get(
        "/v1/nodes?parent_node=1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
    ).json["nodes"] == []


def test_service_on_a_node_that_cannot_is_400_at_any_version(api_newest):
    node = _create(api_newest)
    url = f"/v1/nodes/{node['uuid']}/states/provision"
    for verb, version in (("service", "1.86"), ("unhold", "1.84")):
        resp = api_newest.put(url, {"target": verb}, version=version)
        assert resp.status_int == 400, resp.body
    resp = api_newest.put(url, {"target": "rescue", "rescue_password": "x"},
                          version="1.37")
    assert resp.status_int == 406
