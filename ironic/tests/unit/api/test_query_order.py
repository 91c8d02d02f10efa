"""What a list answers to a query it refuses, in the order Ironic 39
checks: the form of every parameter (an empty filter included), then the
marker, then the sort key and what the filters name or combine. Each
answer was read from a running Ironic 39."""

from __future__ import annotations

import json

import pytest

from ironic.api import openapi
from ironic.api.controllers.v1 import index, versions
from ironic.db import api as db_api

GHOST = "99999999-9999-9999-9999-999999999999"
PG_MAC = "52:54:00:00:00:01"
PORT_MAC = "52:54:00:00:00:11"


@pytest.fixture
def api(api_newest):
    api = api_newest
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "name": "n1",
                                  "shard": "s1"})
    assert resp.status_int == 201, resp.body
    api.node = resp.json["uuid"]
    resp = api.post("/v1/portgroups", {"node_uuid": api.node, "name": "pg1",
                                       "address": PG_MAC})
    assert resp.status_int == 201, resp.body
    api.portgroup = resp.json["uuid"]
    resp = api.post("/v1/ports", {"node_uuid": api.node, "address": PORT_MAC,
                                  "portgroup_uuid": api.portgroup})
    assert resp.status_int == 201, resp.body
    api.port = resp.json["uuid"]
    return api


def _answer(api, path: str) -> tuple[int, str]:
    resp = api.get(path.format(node=api.node, portgroup=api.portgroup,
                               port=api.port, ghost=GHOST))
    if resp.status_int == 200:
        return 200, ""
    return resp.status_int, json.loads(
        resp.json["error_message"])["faultstring"]


_PORT_NODE = "Expected UUID or name for node: "
_PG_NODE = ("Schema error: '' is not valid under any of the given schemas. "
            "Possible root cause: '' is not a 'uuid'")


@pytest.mark.parametrize("path,message", [
    ("/v1/ports?node=", _PORT_NODE),
    ("/v1/ports?node_uuid=", "Expected UUID for node_uuid: "),
    ("/v1/ports?portgroup=", "Expected UUID or name for portgroup: "),
    ("/v1/ports?address=", "Expected valid MAC address for address: "),
    ("/v1/ports/detail?address=", "Expected valid MAC address for address: "),
    # The nested views check them too, even those their URL names.
    ("/v1/nodes/{node}/ports?node=", _PORT_NODE),
    ("/v1/portgroups/{portgroup}/ports?portgroup=",
     "Expected UUID or name for portgroup: "),
    # Before the parent in the URL is looked up.
    ("/v1/nodes/{ghost}/ports?node=", _PORT_NODE),
    ("/v1/portgroups?node=", _PG_NODE),
    ("/v1/portgroups/detail?node=", _PG_NODE),
    ("/v1/portgroups?address=", "Schema error: '' is not a 'mac-address'"),
    ("/v1/nodes/{node}/portgroups?address=",
     "Schema error: '' is not a 'mac-address'"),
])
def test_an_empty_filter_is_refused(api, path, message):
    assert _answer(api, path) == (400, message)


@pytest.mark.parametrize("path", [
    "/v1/ports?shard=", "/v1/ports?conductor_groups=",
    "/v1/portgroups?shard=", "/v1/portgroups?conductor_groups="])
def test_empty_lists_of_shards_or_groups_filter_nothing(api, path):
    assert _answer(api, path) == (200, "")


@pytest.mark.parametrize("path,message", [
    ("/v1/ports?node=a%20b", "Expected UUID or name for node: a b"),
    ("/v1/ports?node=" + "x" * 256,
     "Expected UUID or name for node: " + "x" * 256),
    ("/v1/ports?portgroup=a,b", "Expected UUID or name for portgroup: a,b"),
    ("/v1/ports?node_uuid=n1", "Expected UUID for node_uuid: n1"),
    # Six colon-separated octets: no dashes, no InfiniBand GUID.
    ("/v1/ports?address=52-54-00-00-00-11",
     "Expected valid MAC address for address: 52-54-00-00-00-11"),
    ("/v1/ports?address=" + ":".join(["aa"] * 20),
     "Expected valid MAC address for address: " + ":".join(["aa"] * 20)),
    ("/v1/portgroups?address=notamac",
     "Schema error: 'notamac' is not a 'mac-address'"),
    ("/v1/portgroups?address=52-54-00-00-00-01",
     "Schema error: '52-54-00-00-00-01' is not a 'mac-address'"),
    ("/v1/portgroups/detail?address=zz",
     "Schema error: 'zz' is not a 'mac-address'"),
    # The form first, then the combination with the URL's node.
    ("/v1/nodes/{node}/portgroups?address=zz",
     "Schema error: 'zz' is not a 'mac-address'"),
    ("/v1/portgroups?node=a%20b",
     "Schema error: 'a b' is not valid under any of the given schemas. "
     "Possible root cause: 'a b' is not a 'uuid'"),
])
def test_a_filter_not_of_its_form_is_refused(api, path, message):
    assert _answer(api, path) == (400, message)


def test_addresses_match_in_either_case(api):
    for path in (f"/v1/ports?address={PORT_MAC.upper()}",
                 f"/v1/portgroups?address={PG_MAC.upper()}"):
        resp = api.get(path)
        assert resp.status_int == 200, resp.body
        assert len(next(iter(resp.json.values()))) == 1, path


_PORT_GONE = f"Port {GHOST} could not be found."
_PG_GONE = f"Portgroup {GHOST} could not be found."


@pytest.mark.parametrize("path,message", [
    ("/v1/ports?marker={ghost}&node=n1&portgroup=pg1", _PORT_GONE),
    ("/v1/ports?marker={ghost}&node=n1&shard=s1", _PORT_GONE),
    ("/v1/ports?marker={ghost}&conductor_groups=cg&address=" + PORT_MAC,
     _PORT_GONE),
    ("/v1/ports/detail?marker={ghost}&node=n1&portgroup=pg1", _PORT_GONE),
    ("/v1/nodes/{node}/ports?marker={ghost}&portgroup=pg1", _PORT_GONE),
    ("/v1/portgroups/{portgroup}/ports?marker={ghost}&conductor_groups=x",
     _PORT_GONE),
    ("/v1/ports?marker={ghost}&sort_key=bogus", _PORT_GONE),
    ("/v1/ports?marker={ghost}&node=nonode", _PORT_GONE),
    ("/v1/ports?marker={ghost}&portgroup=nopg", _PORT_GONE),
    ("/v1/portgroups?marker={ghost}&node=n1&address=" + PG_MAC, _PG_GONE),
    ("/v1/portgroups/detail?marker={ghost}&node=n1&shard=s1", _PG_GONE),
    ("/v1/nodes/{node}/portgroups?marker={ghost}&shard=s1", _PG_GONE),
    ("/v1/portgroups?marker={ghost}&node=nonode", _PG_GONE),
    ("/v1/allocations?marker={ghost}&node=nonode",
     f"Allocation {GHOST} could not be found."),
    ("/v1/allocations?marker={ghost}&state=bogus",
     f"Allocation {GHOST} could not be found."),
    ("/v1/chassis?marker={ghost}&sort_key=bogus",
     f"Chassis {GHOST} could not be found."),
    # Rows without an object: the database refuses the sort key.
    ("/v1/volume/connectors?marker={ghost}&sort_key=bogus",
     f"Volume connector {GHOST} could not be found."),
    ("/v1/volume/targets?marker={ghost}&node=nonode",
     f"Volume target {GHOST} could not be found."),
    ("/v1/deploy_templates?marker={ghost}&sort_key=bogus",
     f"Deploy template {GHOST} could not be found."),
])
def test_an_unknown_marker_comes_before_what_the_query_means(
        api, path, message):
    assert _answer(api, path) == (404, message)


@pytest.mark.parametrize("path,answer", [
    # A known marker leaves the refusal as it was.
    ("/v1/ports?marker={port}&node=n1&portgroup=pg1",
     (403, "Operation not permitted.")),
    ("/v1/portgroups?marker={portgroup}&node=n1&shard=s1",
     (400, "Filtering by node, address, or shard simultaneously is not "
           "supported.")),
    # The form of the page and of the filters comes before the marker.
    ("/v1/ports?marker={ghost}&limit=0&node=n1&portgroup=pg1",
     (400, "Limit must be positive")),
    ("/v1/ports?marker={ghost}&sort_dir=up&sort_key=bogus",
     (400, "Invalid sort direction: up. Acceptable values are 'asc' or "
           "'desc'")),
    ("/v1/ports?marker={ghost}&address=zz",
     (400, "Expected valid MAC address for address: zz")),
    ("/v1/ports?marker={ghost}&node_uuid=n1",
     (400, "Expected UUID for node_uuid: n1")),
])
def test_what_the_marker_does_not_change(api, path, answer):
    assert _answer(api, path) == answer


def test_a_filter_too_new_is_406_before_the_marker(api):
    resp = api.get(f"/v1/ports?marker={GHOST}&portgroup=pg1", version="1.23")
    assert resp.status_int == 406


# --- one BIOS setting, one history event: no query parameter -----------------

def _event(api) -> str:
    dbapi = db_api.get_instance()
    node_id = dbapi.get_node_by_uuid(api.node).id
    dbapi.set_bios_settings(node_id, [{"name": "ProcTurbo", "value": "on"}])
    return dbapi.add_node_history(node_id, {
        "conductor": "c1", "event_type": "deploying", "severity": "ERROR",
        "event": "it broke", "user": "u1"}).uuid


def test_a_bios_setting_takes_no_fields(api):
    _event(api)
    url = f"/v1/nodes/{api.node}/bios/ProcTurbo"
    assert api.get(url).status_int == 200
    for query, names in (("fields=name", "'fields' was"),
                         ("fields=", "'fields' was"),
                         ("zz=1&fields=name", "'fields', 'zz' were")):
        assert _answer(api, f"{url}?{query}") == (
            400, f"Schema error: Additional properties are not allowed "
                 f"({names} unexpected)")
    assert _answer(api, f"/v1/nodes/{api.node}/bios/nope") == (
        404, f"Node {api.node} doesn't have a BIOS setting 'nope'")


def test_a_history_event_takes_no_fields(api):
    url = f"/v1/nodes/{api.node}/history/{_event(api)}"
    assert api.get(url).status_int == 200
    assert _answer(api, f"{url}?fields=uuid") == (
        400, "Unexpected arguments: fields")
    assert _answer(api, f"{url}?fields=uuid&zz=1") == (
        400, "Unexpected arguments: fields, zz")
    assert _answer(api, f"/v1/nodes/{api.node}/history/{GHOST}") == (
        404, f"Node history record {GHOST} could not be found.")


def test_the_document_lists_no_fields_for_them():
    doc = json.loads(openapi.encoded(index.V1Controller,
                                     versions.MAX_VERSION))

    def query(path):
        return {p.get("name") for p in doc["paths"][path]["get"][
            "parameters"] if p.get("in") == "query"}

    assert query("/v1/nodes/{node_ident}/bios/{bios_name}") == set()
    assert query("/v1/nodes/{node_ident}/history/{event_uuid}") == set()
    assert "fields" in query("/v1/ports/{port_ident}")
    assert "fields" in query("/v1/nodes/{node_ident}/bios")
