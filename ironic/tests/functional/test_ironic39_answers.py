"""Answers clients learned from Ironic 39 (issue 18's table and the
differences found beside it), each through the client that trips on it:
openstacksdk or the CLI where they send the request, plain HTTP where
only a hand-written or older client does (bookmark links, ``.json``
suffixes, old microversions)."""

from __future__ import annotations

import json

import pytest
import requests
from openstack import exceptions as sdk_exc

from ironic.tests.functional.conftest import wait_for_node

HEADER = "X-OpenStack-Ironic-API-Version"


class Raw:
    """Plain HTTP at a chosen microversion, as a hand-written client."""

    def __init__(self, endpoint: str):
        self.endpoint = endpoint

    def __call__(self, verb: str, path: str, version: str = "latest",
                 body=None) -> requests.Response:
        url = path if path.startswith("http") else self.endpoint + path
        return requests.request(verb, url, headers={HEADER: version},
                                json=body, timeout=30)


def fault(resp: requests.Response) -> str:
    return json.loads(resp.json()["error_message"])["faultstring"]


@pytest.fixture(scope="module")
def raw(service):
    return Raw(service.endpoint)


@pytest.fixture
def node(conn, unique):
    return conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"compat-{unique}")


def _deployed(conn, node):
    for verb, state in (("manage", "manageable"), ("provide", "available"),
                        ("active", "active")):
        conn.baremetal.set_node_provision_state(node, verb)
        wait_for_node(conn, node.id, provision_state=state)


# --- 1. paths without /v1: the bookmark links -----------------------------

def test_bookmark_links_are_served(conn, raw, node):
    doc = raw("GET", f"/v1/nodes/{node.id}").json()
    bookmark = next(link["href"] for link in doc["links"]
                    if link["rel"] == "bookmark")
    assert "/v1/" not in bookmark
    followed = raw("GET", bookmark)
    assert followed.status_code == 200
    assert followed.json()["uuid"] == node.id
    assert followed.headers[HEADER] == followed.headers[
        "X-OpenStack-Ironic-API-Maximum-Version"]
    for path in (f"/nodes/{node.id}/states",
                 "/drivers/fake-hardware/properties",
                 "/ports/detail?address=52:54:00:00:00:01"):
        assert raw("GET", path).status_code == 200, path
    conn.baremetal.set_node_provision_state(node, "manage")
    wait_for_node(conn, node.id, provision_state="manageable")


# --- 2. a .json suffix below 1.91 ----------------------------------------

def test_json_suffix_is_dropped_before_1_91(conn, raw, unique):
    tmpl = conn.baremetal.create_deploy_template(
        name=f"CUSTOM_JSON_{unique.upper()}",
        steps=[{"interface": "bios", "step": "apply_configuration",
                "args": {}, "priority": 10}])
    node = conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"j-{unique}")
    assert raw("GET", f"/v1/nodes/{node.id}.json", "1.90").json()[
        "uuid"] == node.id
    assert raw("GET", "/v1/nodes.json", "1.1").status_code == 200
    assert raw("GET", f"/v1/nodes/{node.name}.json/states",
               "1.90").status_code == 404
    # From 1.91 the suffix is part of the name.
    assert raw("GET", f"/v1/nodes/{node.id}.json", "1.91").status_code \
        == 404
    assert raw("DELETE", f"/v1/deploy_templates/{tmpl.id}.json",
               "1.90").status_code == 204
    with pytest.raises(sdk_exc.NotFoundException):
        conn.baremetal.get_deploy_template(tmpl.id)


# --- 3-5. 404, 405, 406 by version ----------------------------------------

@pytest.mark.parametrize("verb, path, version, status", [
    ("GET", "/v1/allocations", "1.51", 404),
    ("POST", "/v1/allocations", "1.51", 405),
    ("PATCH", "/v1/allocations/{node}", "1.56", 405),
    ("DELETE", "/v1/allocations/{node}", "1.51", 405),
    ("GET", "/v1/deploy_templates", "1.54", 404),
    ("POST", "/v1/deploy_templates", "1.54", 405),
    ("PATCH", "/v1/deploy_templates/x", "1.54", 405),
    ("DELETE", "/v1/deploy_templates/x", "1.54", 405),
    ("GET", "/v1/runbooks", "1.91", 404),
    ("POST", "/v1/runbooks", "1.91", 405),
    ("DELETE", "/v1/runbooks/x", "1.91", 405),
    ("GET", "/v1/nodes/{node}/traits", "1.36", 406),
    ("PUT", "/v1/nodes/{node}/traits", "1.36", 405),
    ("PUT", "/v1/nodes/{node}/vmedia", "1.79", 404),
    ("PUT", "/v1/nodes/{node}/vmedia", "1.93", 405),
    ("POST", "/v1/nodes/{node}/history", "1.77", 404),
    ("POST", "/v1/nodes/{node}/allocation", "1.51", 404),
    ("PUT", "/v1/nodes/{node}/bios", "1.39", 404),
    ("DELETE", "/v1/nodes/{node}/firmware", "1.85", 404),
    ("PUT", "/v1/nodes/{node}/vifs", "1.27", 404),
])
def test_too_old_versions_answer_as_ironic(raw, node, verb, path, version,
                                           status):
    body = {} if verb in ("POST", "PUT") else \
        ([] if verb == "PATCH" else None)
    resp = raw(verb, path.format(node=node.id), version, body)
    assert resp.status_code == status, resp.text


# --- 6. the legacy console path --------------------------------------------

def test_legacy_console_path(raw, node):
    resp = raw("GET", f"/v1/nodes/states/console/{node.id}", "1.1")
    assert resp.status_code == 200, resp.text
    assert resp.json() == {"console_enabled": False, "console_info": None}
    assert raw("GET", f"/v1/nodes/states/console/{node.name}",
               "1.5").status_code == 200


# --- 7, 8. protected and retired -------------------------------------------

def test_protected_node_refuses_with_403(conn, no_retry_conn, node):
    sdk = no_retry_conn.baremetal
    with pytest.raises(sdk_exc.ConflictException,
                       match="can only be made protected"):
        sdk.patch_node(node, [{"op": "replace", "path": "/protected",
                               "value": True}])
    _deployed(conn, node)
    sdk.patch_node(node, [{"op": "replace", "path": "/protected",
                           "value": True}])
    for verb in ("deleted", "rebuild"):
        with pytest.raises(sdk_exc.ForbiddenException, match="protected"):
            sdk.set_node_provision_state(node, verb)
    sdk.set_node_maintenance(node)
    with pytest.raises(sdk_exc.ForbiddenException, match="protected"):
        sdk.delete_node(node)
    sdk.unset_node_maintenance(node)
    sdk.patch_node(node, [{"op": "replace", "path": "/protected",
                           "value": False}])
    sdk.set_node_provision_state(node, "deleted")
    wait_for_node(conn, node.id, provision_state="available")
    with pytest.raises(sdk_exc.ConflictException, match="'retired' set"):
        sdk.patch_node(node, [{"op": "replace", "path": "/retired",
                               "value": True}])


# --- 9. inspection rules with list-form args -------------------------------

def test_inspection_rule_list_args(conn, unique):
    rule = conn.baremetal.create_inspection_rule(
        description=f"list-args {unique}",
        conditions=[{"op": "eq", "args": ["node:memory_mb", 4096]}],
        actions=[{"op": "set-attribute", "args": ["/extra/seen", True]}])
    assert rule.conditions == [{"op": "eq",
                                "args": ["node:memory_mb", 4096]}]
    patched = conn.baremetal.patch_inspection_rule(rule, [
        {"op": "replace", "path": "/conditions",
         "value": [{"op": "gt", "args": ["node:cpus", 4]}]}])
    assert patched.conditions[0]["args"] == ["node:cpus", 4]
    conn.baremetal.delete_inspection_rule(rule)


# --- 10. volume connector/target refusals and deletions ---------------------

def test_volume_refusals_name_the_action(conn, no_retry_conn, node,
                                         unique):
    sdk = no_retry_conn.baremetal
    connector = sdk.create_volume_connector(
        node_id=node.id, type="iqn", connector_id=f"iqn.x:{unique}")
    target = sdk.create_volume_target(
        node_id=node.id, volume_type="iscsi", boot_index=0,
        volume_id=f"vol-{unique}")
    _deployed(conn, node)
    sdk.set_node_power_state(node, "power on")
    wait_for_node(conn, node.id, power_state="power on")
    with pytest.raises(sdk_exc.BadRequestException,
                       match="volume connector deletion"):
        sdk.delete_volume_connector(connector)
    with pytest.raises(sdk_exc.BadRequestException,
                       match="volume target update"):
        sdk.patch_volume_target(target, [
            {"op": "add", "path": "/extra/a", "value": 1}])


def test_volumes_of_a_powered_on_manageable_node_can_go(conn, node,
                                                        unique):
    sdk = conn.baremetal
    connector = sdk.create_volume_connector(
        node_id=node.id, type="iqn", connector_id=f"iqn.y:{unique}")
    target = sdk.create_volume_target(
        node_id=node.id, volume_type="iscsi", boot_index=0,
        volume_id=f"vol-y-{unique}")
    sdk.set_node_provision_state(node, "manage")
    wait_for_node(conn, node.id, provision_state="manageable")
    sdk.set_node_power_state(node, "power on")
    wait_for_node(conn, node.id, power_state="power on")
    sdk.delete_volume_connector(connector)
    sdk.delete_volume_target(target)
    assert not list(sdk.volume_connectors(node=node.id))
    assert not list(sdk.volume_targets(node=node.id))


# --- 11. instance_name ------------------------------------------------------

def test_instance_name_is_kept_once_set(conn, node):
    sdk = conn.baremetal
    sdk.patch_node(node, [{"op": "add", "path": "/instance_name",
                           "value": "chosen"}])
    got = sdk.patch_node(node, [{"op": "add",
                                 "path": "/instance_info/display_name",
                                 "value": "vm-1"}])
    assert got.instance_name == "chosen"
    got = sdk.update_node(node, instance_info={})
    assert got.instance_name == "chosen"


# --- 12. runbook names -----------------------------------------------------

def test_runbook_name_need_not_be_a_trait(conn, unique):
    name = f"fix-bios.{unique}"
    book = conn.baremetal.create_runbook(
        name=name, steps=[{"interface": "bios", "step": "apply_configuration",
                           "args": {}, "order": 1}])
    assert conn.baremetal.get_runbook(name).id == book.id
    conn.baremetal.delete_runbook(book)


# --- beside the table ---------------------------------------------------------

def test_fake_driver_properties(cli):
    props = {p["property"]: p["description"] for p in
             cli.json("driver", "property", "list", "fake-hardware")}
    assert set(props) == {"B1", "B2"}


def test_allocation_of_no_node_is_a_bad_request(raw):
    assert raw("GET", "/v1/nodes/None/allocation").status_code == 400


def test_fake_storage_interface(conn, node):
    got = conn.baremetal.update_node(node, storage_interface="fake")
    assert got.storage_interface == "fake"
    assert conn.baremetal.validate_node(node, required=())[
        "storage"].result
