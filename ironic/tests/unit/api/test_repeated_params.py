"""A query parameter given twice, and the queries Ironic 39 checks with a
JSON schema (allocations, port groups, inspection rules): refused in
Ironic 39's words, each answer read from a running Ironic 39. A handler
that reads a parameter itself must not take the repetition as a value."""

from __future__ import annotations

import json

import pytest

from ironic.db import api as db_api

MAC = "52:54:00:00:00:31"


def _fault(resp) -> str:
    return json.loads(resp.json["error_message"])["faultstring"]


@pytest.fixture
def node(api_newest):
    resp = api_newest.post("/v1/nodes", {"driver": "fake-hardware",
                                         "name": "n1"})
    assert resp.status_int == 201, resp.body
    return resp.json["uuid"]


def test_a_repeated_maintenance_reason_is_refused(api_newest, node):
    api = api_newest
    resp = api.put(f"/v1/nodes/{node}/maintenance?reason=a&reason=b", None)
    assert resp.status_int == 400
    assert _fault(resp) == "Expected string for reason: ['a', 'b']"
    doc = api.get(f"/v1/nodes/{node}").json
    assert (doc["maintenance"], doc["maintenance_reason"]) == (False, None)


@pytest.mark.parametrize("path", [
    "/v1/nodes/{node}/vendor_passthru?method=a&method=b",
    "/v1/drivers/fake-hardware/vendor_passthru?method=a&method=b"])
def test_a_repeated_passthru_method_is_refused(api_newest, node, path):
    resp = api_newest.get(path.format(node=node))
    assert resp.status_int == 400
    assert _fault(resp) == "Expected string for method: ['a', 'b']"


def test_lookup_takes_every_repetition_of_addresses(api_newest, node,
                                                    config):
    api = api_newest
    config("api", restrict_lookup=False)
    db_api.get_instance().create_port(
        {"node_id": db_api.get_instance().get_node_by_uuid(node).id,
         "address": MAC})
    resp = api.get("/v1/lookup?addresses=52:54:00:00:00:99"
                   f"&addresses={MAC}")
    assert resp.status_int == 200, resp.body
    assert resp.json["node"]["uuid"] == node
    resp = api.get("/v1/lookup?node_uuid=bad")
    assert _fault(resp) == "Expected UUID for node_uuid: bad"
    resp = api.get("/v1/lookup")
    assert _fault(resp) == ("At least one of 'addresses' and 'node_uuid' "
                            "parameters is required")


@pytest.mark.parametrize("query,message", [
    ("allocations?sort_dir=bad",
     "Schema error: 'bad' is not one of ['asc', 'desc']"),
    ("allocations?sort_dir=a&sort_dir=b",
     "Schema error: ['a', 'b'] is not of type 'string'"),
    ("allocations?marker=bad", "Schema error: 'bad' is not a 'uuid'"),
    ("allocations?owner=a&owner=b",
     "Schema error: ['a', 'b'] is not of type 'string'"),
    ("portgroups?marker=bad", "Schema error: 'bad' is not a 'uuid'"),
    ("portgroups?sort_dir=a&sort_dir=b",
     "Schema error: ['a', 'b'] is not of type 'string'"),
    ("inspection_rules?phase=a&phase=b",
     "Schema error: ['a', 'b'] is not of type 'string'"),
    ("volume/connectors?node=bad!", "Expected UUID or name for node: bad!"),
    ("volume/targets?node=a&node=b",
     "Expected UUID or name for node: ['a', 'b']"),
])
def test_schema_checked_queries(api_newest, query, message):
    resp = api_newest.get(f"/v1/{query}")
    assert resp.status_int == 400
    assert _fault(resp) == message
