"""The answers of the API match the item and collection documents of
``/v1/openapi.json`` at the version asked for, and the request bodies the
document gives are the ones the handlers check (fields appear with their
version)."""

from __future__ import annotations

import json
import pathlib

import jsonschema
import pytest

from ironic.api import openapi, openapi_resources
from ironic.api.controllers.v1 import index, versions
from ironic.common import rpc

NEWEST = versions.MAX_VERSION
# Volume, allocations, deploy templates, runbooks, inspection rules, and
# the newest fields of every resource.
VERSIONS = (32, 52, 55, 92, 96, NEWEST)


def _doc(ver: int) -> dict:
    return json.loads(openapi.encoded(index.V1Controller, ver))


def _created(resp) -> str:
    assert resp.status_int == 201, resp.body
    return resp.json["uuid"]


@pytest.fixture
def made(api_newest) -> dict[str, str]:
    api = api_newest
    ids = {"chassis": _created(api.post("/v1/chassis", {
        "description": "rack 1"}))}
    ids["node"] = _created(api.post("/v1/nodes", {
        "driver": "fake-hardware", "name": "typed",
        "chassis_uuid": ids["chassis"], "properties": {"cpus": 2}}))
    ids["portgroup"] = _created(api.post("/v1/portgroups", {
        "node_uuid": ids["node"], "address": "52:54:00:00:00:01"}))
    ids["port"] = _created(api.post("/v1/ports", {
        "node_uuid": ids["node"], "address": "52:54:00:00:00:02",
        "portgroup_uuid": ids["portgroup"], "local_link_connection": {
            "switch_id": "52:54:00:00:00:ff", "port_id": "Eth1"}}))
    ids["allocation"] = _created(api.post("/v1/allocations", {
        "resource_class": "typed", "traits": ["CUSTOM_A"]}))
    for host in rpc.local_hosts():
        assert rpc._LOCAL[host].pool.wait_idle(10)
    ids["inspection_rule"] = _created(api.post("/v1/inspection_rules", {
        "sensitive": True, "actions": [
            {"op": "set-attribute", "args": ["/extra/x", "y"]}]}))
    ids["connector"] = _created(api.post("/v1/volume/connectors", {
        "node_uuid": ids["node"], "type": "iqn",
        "connector_id": "iqn.2026-11.org.example:typed"}))
    ids["target"] = _created(api.post("/v1/volume/targets", {
        "node_uuid": ids["node"], "volume_type": "iscsi", "boot_index": 0,
        "volume_id": "typed-volume"}))
    step = {"interface": "bios", "step": "apply_configuration", "args": {}}
    ids["deploy_template"] = _created(api.post("/v1/deploy_templates", {
        "name": "CUSTOM_TYPED", "steps": [{**step, "priority": 10}]}))
    ids["runbook"] = _created(api.post("/v1/runbooks", {
        "name": "CUSTOM_TYPED", "steps": [{**step, "order": 0}]}))
    return ids


# Collection path -> (the fixture's name for an item, the path parameter)
_TYPED = {
    "/v1/nodes": ("node", "node_ident"),
    "/v1/ports": ("port", "port_ident"),
    "/v1/portgroups": ("portgroup", "portgroup_ident"),
    "/v1/chassis": ("chassis", "chassis_ident"),
    "/v1/allocations": ("allocation", "allocation_ident"),
    "/v1/inspection_rules": ("inspection_rule", "inspection_rule_ident"),
    "/v1/deploy_templates": ("deploy_template", "deploy_template_ident"),
    "/v1/runbooks": ("runbook", "runbook_ident"),
    "/v1/volume/connectors": ("connector", "connector_ident"),
    "/v1/volume/targets": ("target", "target_ident"),
}


def _paths(ids: dict[str, str]) -> list[tuple[str, str]]:
    """(document path, concrete path) of the typed GETs."""
    out = []
    for path, (name, param) in _TYPED.items():
        out += [(path, path),
                (f"{path}/{{{param}}}", f"{path}/{ids[name]}")]
        if path not in ("/v1/allocations", "/v1/deploy_templates",
                        "/v1/runbooks", "/v1/inspection_rules") and \
                not path.startswith("/v1/volume"):
            out.append((f"{path}/detail", f"{path}/detail"))
    out += [("/v1/nodes/{node_ident}/ports",
             f"/v1/nodes/{ids['node']}/ports"),
            ("/v1/nodes/{node_ident}/allocation",
             f"/v1/nodes/{ids['node']}/allocation"),
            ("/v1/conductors", "/v1/conductors")]
    return out


def _schema(doc: dict, path: str, verb: str, status: str) -> dict:
    op = doc["paths"][path][verb]
    return op["responses"][status]["content"]["application/json"]["schema"]


def _check(schema: dict, answer: dict) -> None:
    jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.FormatChecker()).validate(answer)


@pytest.mark.parametrize("ver", VERSIONS)
def test_answers_match_the_document(api_newest, made, ver):
    doc = _doc(ver)
    for path, concrete in _paths(made):
        if path not in doc["paths"]:
            continue
        resp = api_newest.get(concrete, version=f"1.{ver}")
        if resp.status_int == 404 and "allocation" in concrete:
            continue  # the allocation found no node
        assert resp.status_int == 200, (concrete, ver, resp.body)
        schema = _schema(doc, path, "get", "200")
        assert schema.get("properties"), path
        _check(schema, resp.json)


def test_items_and_lists_show_typed_fields_from_their_version():
    item = _schema(_doc(NEWEST), "/v1/ports/{port_ident}", "get", "200")
    assert item["properties"]["pxe_enabled"] == {"type": "boolean"}
    assert item["properties"]["portgroup_uuid"]["type"] == \
        ["string", "null"]
    assert item["properties"]["created_at"]["format"] == "date-time"
    listing = _schema(_doc(NEWEST), "/v1/ports", "get", "200")
    assert listing["properties"]["ports"]["items"] == item
    old = _schema(_doc(30), "/v1/ports/{port_ident}", "get", "200")
    assert "name" not in old["properties"]          # 1.88
    assert "physical_network" not in old["properties"]  # 1.34
    node = _schema(_doc(NEWEST), "/v1/nodes/{node_ident}", "get", "200")
    assert node["properties"]["boot_interface"]["type"] == \
        ["string", "null"]
    assert "boot_interface" not in _schema(
        _doc(30), "/v1/nodes/{node_ident}", "get", "200")["properties"]


def _body(ver: int, path: str) -> dict:
    op = _doc(ver)["paths"][path]["post"]
    return op["requestBody"]["content"]["application/json"]["schema"]


def test_create_bodies_take_fields_from_their_version():
    assert "node_ident" not in _body(93, "/v1/ports")["properties"]
    assert "node_ident" in _body(94, "/v1/ports")["properties"]
    assert "owner" not in _body(59, "/v1/allocations")["properties"]
    assert "owner" in _body(60, "/v1/allocations")["properties"]
    node = _body(NEWEST, "/v1/nodes")
    assert node["required"] == ["driver"]
    assert node["properties"]["conductor_group"]["pattern"]
    assert "network_data" not in _body(65, "/v1/nodes")["properties"]
    llc = _body(NEWEST, "/v1/ports")["properties"]["local_link_connection"]
    assert llc["additionalProperties"] is False


@pytest.mark.parametrize("path", ["/v1/nodes", "/v1/ports", "/v1/portgroups",
                                  "/v1/chassis", "/v1/allocations",
                                  "/v1/inspection_rules",
                                  "/v1/volume/connectors",
                                  "/v1/volume/targets"])
def test_creates_have_a_body_schema_and_an_item_answer(path):
    doc = _doc(NEWEST)
    assert _body(NEWEST, path)["properties"]
    assert _schema(doc, path, "post", "201")["properties"]


def test_the_resource_tables_name_routed_controllers():
    # A controller renamed or replaced must not leave the document
    # silently without its typed documents.
    routed = {r.controller for r in openapi.routes(index.V1Controller())}
    for listed in (*openapi_resources.RESOURCES,
                   *openapi_resources._CREATE_BODIES):
        assert any(issubclass(c, listed) for c in routed), listed


# --- the documents that are no stored resource ------------------------------

# Where those documents' members appear: BIOS (registry 1.74), history
# (1.78; more members 1.113, 1.115), firmware (1.86; identity 1.114),
# states (RAID 1.12, boot mode 1.75), drivers (detail 1.30).
SUB_VERSIONS = (1, 12, 30, 40, 74, 78, 86, 92, 113, NEWEST)


@pytest.fixture
def records(api_newest) -> dict[str, str]:
    """A node with BIOS settings, history, firmware and an inventory, a
    runbook, and the node's agent token issued (so lookup answers)."""
    from ironic.common import states
    from ironic.db import api as db_api
    from ironic.tests import builders
    api = api_newest
    node = builders.make_node(provision_state=states.CLEANWAIT,
                              name="documents", vendor_interface="fake")
    dbapi = db_api.get_instance()
    dbapi.create_port({"address": "52:54:00:00:00:31", "node_id": node.id})
    dbapi.set_bios_settings(node.id, [
        {"name": "BootMode", "value": "Uefi"},
        {"name": "ProcVirtualization", "value": None,
         "attribute_type": "Enumeration", "read_only": False,
         "allowable_values": ["Enabled", "Disabled"], "lower_bound": 1}])
    dbapi.add_node_history(node.id, {
        "event": "failure " * 60, "severity": "ERROR",
        "event_type": "deploy", "conductor": "c1", "user": "u"})
    dbapi.set_firmware_components(node.id, [
        {"component": "bmc", "initial_version": "1.0",
         "current_version": "1.2", "vendor": "Acme"}])
    dbapi.set_node_inventory(node.id, {"interfaces": []}, {"a": 1})
    assert api.put(f"/v1/nodes/{node.uuid}/traits/CUSTOM_A",
                   None).status_int == 204
    step = {"interface": "bios", "step": "apply_configuration", "args": {}}
    book = _created(api.post("/v1/runbooks", {
        "name": "CUSTOM_DOCS", "steps": [{**step, "order": 0}]}))
    event = api.get(f"/v1/nodes/{node.uuid}/history").json["history"][0]
    return {"node": node.uuid, "runbook": book, "event": event["uuid"]}


def _sub_paths(ids: dict[str, str]) -> list[tuple[str, str]]:
    n, node = "/v1/nodes/{node_ident}", f"/v1/nodes/{ids['node']}"
    driver = "/v1/drivers/fake-hardware"
    pairs = [("/v1/", "/v1/"), ("/v1/openapi.json", "/v1/openapi.json"),
             ("/v1/volume", "/v1/volume"), ("/v1/shards", "/v1/shards"),
             ("/v1/drivers", "/v1/drivers"),
             ("/v1/drivers", "/v1/drivers?detail=true"),
             ("/v1/drivers/{driver_name}", driver),
             ("/v1/drivers/{driver_name}/properties",
              f"{driver}/properties"),
             ("/v1/drivers/{driver_name}/vendor_passthru/methods",
              f"{driver}/vendor_passthru/methods"),
             ("/v1/drivers/{driver_name}/raid/logical_disk_properties",
              f"{driver}/raid/logical_disk_properties"),
             ("/v1/runbooks/{runbook_ident}/traits",
              f"/v1/runbooks/{ids['runbook']}/traits"),
             ("/v1/lookup", f"/v1/lookup?node_uuid={ids['node']}")]
    for sub in ("states", "states/console", "traits", "vifs", "validate",
                "management/boot_device",
                "management/boot_device/supported",
                "management/indicators", "bios", "history", "firmware",
                "inventory", "children", "vmedia", "volume",
                "vendor_passthru/methods"):
        pairs.append((f"{n}/{sub}", f"{node}/{sub}"))
    pairs += [(f"{n}/bios", f"{node}/bios?detail=true"),
              (f"{n}/history", f"{node}/history?detail=true"),
              (f"{n}/bios/{{bios_name}}", f"{node}/bios/ProcVirtualization"),
              (f"{n}/history/{{event_uuid}}",
               f"{node}/history/{ids['event']}")]
    return pairs


@pytest.mark.parametrize("ver", SUB_VERSIONS)
def test_other_answers_match_the_document(api_newest, records, ver):
    doc = _doc(ver)
    checked = set()
    routed = {p for p, item in doc["paths"].items() if "get" in item}
    for path, concrete in _sub_paths(records):
        if path not in routed:
            continue
        resp = api_newest.get(concrete, version=f"1.{ver}")
        if resp.status_int == 400 and "bios?detail=" in concrete and \
                ver < 74:
            continue  # a BIOS detail before the registry fields
        if resp.status_int == 406 and "drivers?detail=" in concrete and \
                ver < 30:
            continue  # a driver detail before the hardware types
        if resp.status_int == 404 and "logical_disk" in concrete:
            continue  # the fake hardware has no RAID interface
        if resp.status_int == 400 and "lookup" in concrete:
            continue  # the agent's lookup needs 1.22; older: no token
        assert resp.status_int == 200, (concrete, ver, resp.body)
        schema = _schema(doc, path, "get", "200")
        assert schema, path
        _check(schema, resp.json)
        checked.add(path)
    # Each document was seen where its version routes it.
    assert checked >= {p for p, _c in _sub_paths(records)
                       if p in routed and "logical_disk" not in p
                       and "lookup" not in p}


def test_typed_members_leave_out_what_a_version_does_not_show():
    def item(ver, path, key=None):
        schema = _schema(_doc(ver), path, "get", "200")
        if key:
            schema = schema["properties"][key]["items"]
        return set(schema["properties"])

    node = "/v1/nodes/{node_ident}"
    assert "raid_config" not in item(11, f"{node}/states")
    assert "boot_mode" in item(NEWEST, f"{node}/states")
    assert "attribute_type" not in item(73, f"{node}/bios", "bios")
    assert "attribute_type" in item(74, f"{node}/bios", "bios")
    assert "project" not in item(112, f"{node}/history", "history")
    assert "vendor" not in item(113, f"{node}/firmware", "firmware")
    assert "default_bios_interface" not in item(29, "/v1/drivers",
                                                "drivers")
    assert "shards" not in item(81, "/v1/")
    assert "shards" in item(82, "/v1/")


def test_the_reference_lookup_answer_matches_the_document():
    # What the reference service answered a real agent (recorded): the
    # document's lookup answer takes it as it is.
    recorded = pathlib.Path(__file__).resolve().parent / "data" / \
        "recorded_lookup_response.json"
    _check(_schema(_doc(NEWEST), "/v1/lookup", "get", "200"),
           json.loads(recorded.read_text()))
