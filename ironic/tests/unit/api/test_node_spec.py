"""Nodes are served like every other resource: ``collection.controller``
builds their controller from the node Spec, whose fields, filters, sort
keys and sub-resource routes are data."""

from __future__ import annotations

import pytest

from ironic.api import features, openapi
from ironic.api.controllers.v1 import (
    chassis,
    collection,
    index,
    node,
    node_fields,
    node_list,
    versions,
)
from ironic.tests.builders import make_node
from ironic.tests.fixtures import error_message


def test_nodes_are_served_by_the_generic_controller_from_their_spec():
    assert issubclass(node.NodesController, collection.CollectionController)
    assert node.NodesController.spec is node.SPEC
    assert isinstance(index.V1Controller().nodes, node.NodesController)
    # The chassis' node list reads the same Spec.
    assert chassis.ChassisNodesController.spec is node.SPEC
    # The handlers of a node's own (its cached GET, its PATCH through the
    # conductor) are declared in the Spec and bounded like the others.
    assert set(node.SPEC.handlers) == {"get_one", "patch"}
    assert node.NodesController.get_one.__wrapped__ is node.get_one


def test_the_node_list_is_declared_as_data():
    spec = node.SPEC
    assert spec.filters is node_list.FILTERS
    assert spec.sort_keys == node_list.SORT_KEYS
    assert "name" in spec.sort_keys and "extra" not in spec.sort_keys
    assert spec.default_fields == node_fields.DEFAULT_LIST_FIELDS
    doc = openapi.document(index.V1Controller(), versions.NEWEST_KNOWN)
    params = {p.get("name") for p in
              doc["paths"]["/v1/nodes"]["get"]["parameters"]}
    assert set(spec.filters) <= params


@pytest.mark.parametrize("ver", range(1, versions.NEWEST_KNOWN + 1))
def test_the_spec_shows_the_fields_a_node_document_shows(ver):
    # The list reads the Spec's fields, a GET node_fields' cached ones.
    assert node.SPEC.visible(ver) == list(node_fields.visible_names(ver))


def test_sub_resource_routes_are_data_in_the_spec():
    subs = node.SPEC.subresources
    assert {"ports", "portgroups", "states", "management", "maintenance",
            "traits", "vifs", "volume", "bios", "history", "firmware",
            "inventory", "children", "allocation", "vendor_passthru",
            "vmedia", "validate"} <= set(subs)
    assert subs["vifs"].feature is features.VIFS
    assert subs["children"].feature is features.CHILD_NODES
    assert subs["ports"].feature is features.ALWAYS
    assert node.SPEC.item_last == {"states", "management", "maintenance"}
    # What the OpenAPI document walks comes from the same table.
    assert set(node.NodesController._subcontrollers) == set(subs)
    assert node.NodesController._sub_since == {
        name: sub.feature for name, sub in subs.items()}


def test_a_sub_resource_before_its_version_does_not_exist(api):
    made = make_node()
    resp = api.get(f"/v1/nodes/{made.uuid}/children", version="1.82")
    assert resp.status_int == 404
    assert api.get(f"/v1/nodes/{made.uuid}/children").status_int == 200


def test_the_legacy_routes_name_the_node_last(api):
    made = make_node(name="last")
    assert api.get("/v1/nodes/states/last").json == \
        api.get("/v1/nodes/last/states").json
    assert api.put("/v1/nodes/maintenance/last").status_int == 202
    assert api.get("/v1/nodes/last").json["maintenance"] is True
    assert made.uuid


@pytest.mark.parametrize("name", ["spec", "scope", "parent"])
def test_a_node_named_like_an_attribute_of_the_controller(api, name):
    made = make_node(name=name)
    assert api.get(f"/v1/nodes/{name}").json["uuid"] == made.uuid
    # (nodes are shown at /v1/nodes only)
    resp = api.get(f"/v1/chassis/{made.uuid}/nodes/{name}")
    assert resp.status_int == 400, resp.body
    assert error_message(resp) == "Malformed request URI."
    assert api.delete(f"/v1/nodes/{name}").status_int == 204


def test_an_item_of_another_collection_named_spec(api):
    # Every collection's controller is the generic one: none routes a name
    # into its attributes.
    made = make_node()
    resp = api.post("/v1/ports", {"node_uuid": made.uuid, "name": "spec",
                                  "address": "52:54:00:00:00:01"})
    assert resp.status_int == 201, resp.body
    assert api.get("/v1/ports/spec").json["uuid"] == resp.json["uuid"]
    # A port is deleted by UUID only, as in Ironic 39.
    assert api.delete("/v1/ports/spec").status_int == 400
    assert api.delete(f"/v1/ports/{resp.json['uuid']}").status_int == 204


@pytest.mark.parametrize("path,status,message", [
    ("/v1/nodes/states", 400, "Missing mandatory parameter: node_ident"),
    ("/v1/nodes/vendor_passthru", 400,
     "Missing mandatory parameter: node_ident"),
    ("/v1/nodes/validate", 400,
     "Expected a logical name or UUID but received None."),
    ("/v1/nodes/management", 405, None),
    ("/v1/nodes/maintenance", 405, None),
])
def test_a_node_last_route_without_its_node(api, path, status, message):
    # As Ironic 39: these name its routes, never a node.
    make_node(name=path.rsplit("/", 1)[1])
    resp = api.get(path)
    assert resp.status_int == status, resp.body
    if message:
        assert error_message(resp) == message


def test_the_management_root_serves_no_method(api):
    made = make_node(name="m1")
    for path in ("/v1/nodes/m1/management", "/v1/nodes/m1/management/bad",
                 f"/v1/nodes/management/{made.uuid}"):
        assert api.get(path).status_int == 405, path
    assert api.get("/v1/nodes/m1/management/boot_device").status_int == 200
