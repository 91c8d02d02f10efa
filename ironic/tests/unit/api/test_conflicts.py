"""A unique value taken by another row is 409 on create AND update.

The database's unique constraints are the last word (two requests may race
past any check the API makes first); their violation must come back as the
resource's conflict error, never a 500, and leave the rows as they were.
"""

import uuid

import pytest

from ironic.tests import fixtures as ifx


def _post(api, path, body):
    resp = api.post(path, body)
    assert resp.status_int == 201, resp.body
    return resp.json


def _assert_conflict(resp, *words):
    assert resp.status_int == 409, resp.body
    message = ifx.error_message(resp)
    for word in words:
        assert word in message, message


@pytest.fixture
def two_nodes(api_newest):
    api = api_newest
    inst = str(uuid.uuid4())
    a = _post(api, "/v1/nodes", {"driver": "fake-hardware", "name": "a"})
    b = _post(api, "/v1/nodes", {"driver": "fake-hardware", "name": "b",
                                 "instance_uuid": inst})
    return api, a, b, inst


def _replace(path, value):
    return [{"op": "replace", "path": path, "value": value}]


def test_node_patch_to_a_taken_name_is_409(two_nodes):
    api, a, _b, _inst = two_nodes
    before = api.get(f"/v1/nodes/{a['uuid']}").json
    _assert_conflict(api.patch("/v1/nodes/a", _replace("/name", "b")),
                     "name b already exists")
    assert api.get(f"/v1/nodes/{a['uuid']}").json == before


def test_node_patch_to_a_taken_instance_uuid_is_409(two_nodes):
    api, a, _b, inst = two_nodes
    before = api.get(f"/v1/nodes/{a['uuid']}").json
    _assert_conflict(api.patch("/v1/nodes/a", _replace("/instance_uuid",
                                                       inst)),
                     inst, "already associated")
    assert api.get(f"/v1/nodes/{a['uuid']}").json == before


def test_node_create_with_taken_instance_uuid_is_409(two_nodes):
    api, _a, _b, inst = two_nodes
    _assert_conflict(api.post("/v1/nodes", {"driver": "fake-hardware",
                                            "instance_uuid": inst}), inst)
    _assert_conflict(api.post("/v1/nodes", {"driver": "fake-hardware",
                                            "name": "a"}), "name a")


@pytest.fixture
def ports(two_nodes):
    api, a, b, _inst = two_nodes
    _post(api, "/v1/ports", {"node_uuid": a["uuid"], "name": "p1",
                             "address": "52:54:00:00:00:01"})
    p2 = _post(api, "/v1/ports", {"node_uuid": b["uuid"], "name": "p2",
                                  "address": "52:54:00:00:00:02"})
    return api, a, p2


def test_port_create_with_taken_address_or_name_is_409(ports):
    api, a, _p2 = ports
    _assert_conflict(api.post("/v1/ports", {
        "node_uuid": a["uuid"], "address": "52:54:00:00:00:01"}),
        "52:54:00:00:00:01")
    _assert_conflict(api.post("/v1/ports", {
        "node_uuid": a["uuid"], "address": "52:54:00:00:00:03",
        "name": "p1"}), "p1")


def test_port_patch_to_taken_address_or_name_is_409(ports):
    api, _a, p2 = ports
    before = api.get(f"/v1/ports/{p2['uuid']}").json
    _assert_conflict(api.patch(f"/v1/ports/{p2['uuid']}", _replace(
        "/address", "52:54:00:00:00:01")), "52:54:00:00:00:01")
    _assert_conflict(api.patch(f"/v1/ports/{p2['uuid']}", _replace(
        "/name", "p1")), "p1")
    assert api.get(f"/v1/ports/{p2['uuid']}").json == before


def test_portgroup_conflicts_on_create_and_patch(two_nodes):
    api, a, b, _inst = two_nodes
    _post(api, "/v1/portgroups", {"node_uuid": a["uuid"], "name": "g1",
                                  "address": "52:54:00:00:01:01"})
    g2 = _post(api, "/v1/portgroups", {"node_uuid": b["uuid"], "name": "g2",
                                       "address": "52:54:00:00:01:02"})
    _assert_conflict(api.post("/v1/portgroups", {
        "node_uuid": a["uuid"], "name": "g1"}), "g1")
    _assert_conflict(api.post("/v1/portgroups", {
        "node_uuid": a["uuid"], "address": "52:54:00:00:01:01"}),
        "52:54:00:00:01:01")
    before = api.get(f"/v1/portgroups/{g2['uuid']}").json
    _assert_conflict(api.patch(f"/v1/portgroups/{g2['uuid']}", _replace(
        "/name", "g1")), "g1")
    _assert_conflict(api.patch(f"/v1/portgroups/{g2['uuid']}", _replace(
        "/address", "52:54:00:00:01:01")), "52:54:00:00:01:01")
    assert api.get(f"/v1/portgroups/{g2['uuid']}").json == before


def test_chassis_create_with_taken_uuid_is_409(api_newest):
    api = api_newest
    c = _post(api, "/v1/chassis", {"description": "one"})
    _assert_conflict(api.post("/v1/chassis", {"uuid": c["uuid"]}),
                     c["uuid"])
    assert len(api.get("/v1/chassis").json["chassis"]) == 1


def test_node_port_portgroup_create_with_taken_uuid_is_409(two_nodes):
    api, a, _b, _inst = two_nodes
    _assert_conflict(api.post("/v1/nodes", {"driver": "fake-hardware",
                                            "uuid": a["uuid"]}), a["uuid"])
    p = _post(api, "/v1/ports", {"node_uuid": a["uuid"],
                                 "address": "52:54:00:00:02:01"})
    _assert_conflict(api.post("/v1/ports", {
        "node_uuid": a["uuid"], "uuid": p["uuid"],
        "address": "52:54:00:00:02:02"}), p["uuid"])
    g = _post(api, "/v1/portgroups", {"node_uuid": a["uuid"]})
    _assert_conflict(api.post("/v1/portgroups", {
        "node_uuid": a["uuid"], "uuid": g["uuid"]}), g["uuid"])


_STEP = {"interface": "bios", "step": "apply_configuration",
         "args": {"settings": [{"name": "P", "value": "E"}]}}


@pytest.mark.parametrize("collection,step_key", [
    ("deploy_templates", "priority"), ("runbooks", "order")])
def test_named_step_documents_conflict_on_create_and_patch(
        api_newest, collection, step_key):
    api = api_newest
    steps = [dict(_STEP, **{step_key: 10})]
    _post(api, f"/v1/{collection}", {"name": "CUSTOM_ONE", "steps": steps})
    two = _post(api, f"/v1/{collection}", {"name": "CUSTOM_TWO",
                                           "steps": steps})
    _assert_conflict(api.post(f"/v1/{collection}", {
        "name": "CUSTOM_ONE", "steps": steps}), "CUSTOM_ONE")
    _assert_conflict(api.post(f"/v1/{collection}", {
        "name": "CUSTOM_THREE", "uuid": two["uuid"], "steps": steps}),
        two["uuid"])
    _assert_conflict(api.patch(f"/v1/{collection}/{two['uuid']}", _replace(
        "/name", "CUSTOM_ONE")), "CUSTOM_ONE")
    assert api.get(f"/v1/{collection}/{two['uuid']}").json["name"] == \
        "CUSTOM_TWO"


def test_allocation_conflicts_on_create_and_patch(api_newest):
    api = api_newest
    _post(api, "/v1/allocations", {"resource_class": "x", "name": "al1"})
    two = _post(api, "/v1/allocations", {"resource_class": "x",
                                         "name": "al2"})
    _assert_conflict(api.post("/v1/allocations", {
        "resource_class": "x", "name": "al1"}), "al1")
    _assert_conflict(api.post("/v1/allocations", {
        "resource_class": "x", "uuid": two["uuid"]}), two["uuid"])
    _assert_conflict(api.patch(f"/v1/allocations/{two['uuid']}", _replace(
        "/name", "al1")), "al1")
    assert api.get(f"/v1/allocations/{two['uuid']}").json["name"] == "al2"
