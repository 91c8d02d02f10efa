"""Deploy templates, config drives, retired nodes, disable_power_off,
runbooks and disable_ramdisk through openstacksdk and raw REST against the
running all-in-one service.

Each test needs a microversion above the foundation's ceiling; it is
skipped while the service does not advertise that version and runs as soon
as the maximum is raised.
"""

from __future__ import annotations

import json
import sqlite3
import time

import pytest
import requests
from openstack import exceptions as sdk_exc

from ironic.common import configdrive
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc

WAIT = 60  # a bound for the SDK's own polling, not a tuned delay
RAID = {"logical_disks": [{"size_gb": 10, "raid_level": "1",
                           "is_root_volume": True}]}


@pytest.fixture(scope="module")
def max_minor(service):
    return svc.max_minor_version(service.endpoint)


def needs(max_minor: int, minor: int) -> None:
    if max_minor < minor:
        pytest.skip(f"the service advertises 1.{max_minor}, this needs "
                    f"1.{minor}")


def _rest(service, method, path, version, body=None):
    return requests.request(
        method, f"{service.endpoint}{path}", json=body, timeout=30,
        headers={"X-OpenStack-Ironic-API-Version": version})


def _wait_state(service, uuid, version, wanted):
    """Poll (bounded) until the node reaches ``wanted``."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        doc = _rest(service, "GET", f"/v1/nodes/{uuid}", version).json()
        if doc["provision_state"] == wanted:
            return
        time.sleep(0.2)
    raise AssertionError(f"node {uuid} never reached {wanted}")


def _available(conn, unique, **extra):
    node = conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"dep-{unique}", **extra)
    conn.baremetal.set_node_provision_state(node, "manage", wait=True,
                                            timeout=WAIT)
    conn.baremetal.set_node_provision_state(node, "provide", wait=True,
                                            timeout=WAIT)
    return node


def test_deploy_template_applied_through_instance_traits(
        conn, service, max_minor, unique):
    needs(max_minor, 55)
    name = f"CUSTOM_RAID_{unique.upper()}"
    conn.baremetal.create_deploy_template(name=name, steps=[
        {"interface": "raid", "step": "apply_configuration",
         "args": {"raid_config": RAID}, "priority": 90}])
    node = _available(conn, unique)
    conn.baremetal.set_node_traits(node.id, [name])
    conn.baremetal.patch_node(node.id, [
        {"op": "add", "path": "/instance_info/traits", "value": [name]}])
    conn.baremetal.set_node_provision_state(node, "active", wait=True,
                                            timeout=WAIT)
    deployed = conn.baremetal.get_node(node.id)
    assert deployed.provision_state == "active"
    assert deployed.raid_config["logical_disks"][0]["raid_level"] == "1"


def test_deploy_template_missing_step_fails_deploy(
        conn, service, max_minor, unique):
    needs(max_minor, 55)
    name = f"CUSTOM_BAD_{unique.upper()}"
    conn.baremetal.create_deploy_template(name=name, steps=[
        {"interface": "bios", "step": "not_a_step", "args": {},
         "priority": 10}])
    node = _available(conn, unique)
    conn.baremetal.set_node_traits(node.id, [name])
    conn.baremetal.patch_node(node.id, [
        {"op": "add", "path": "/instance_info/traits", "value": [name]}])
    with pytest.raises(sdk_exc.ResourceFailure):
        conn.baremetal.set_node_provision_state(node, "active", wait=True,
                                                timeout=WAIT)
    failed = conn.baremetal.get_node(node.id)
    assert failed.provision_state == "deploy failed"
    assert "not_a_step" in failed.last_error


def test_config_drive_built_from_parts(conn, service, max_minor, unique):
    needs(max_minor, 59)
    fconf.needs_all_in_one(service)
    node = _available(conn, unique)
    parts = {"meta_data": {"hostname": f"h-{unique}"},
             "user_data": "#cloud-config\n",
             "vendor_data": {"k": "v"}}
    conn.baremetal.set_node_provision_state(node, "active",
                                            config_drive=parts, wait=True,
                                            timeout=WAIT)
    assert conn.baremetal.get_node(node.id).provision_state == "active"
    # The API masks it; read what the service stored, as an operator could.
    db = sqlite3.connect(service.workdir / "state" / "ironic.sqlite")
    try:
        (info,) = db.execute("SELECT instance_info FROM nodes WHERE uuid=?",
                             (node.id,)).fetchone()
    finally:
        db.close()
    files = configdrive.read_files(json.loads(info)["configdrive"])
    assert files["<label>"] == b"config-2"
    meta = json.loads(files["openstack/latest/meta_data.json"])
    assert meta["hostname"] == f"h-{unique}" and meta["uuid"] == node.id
    assert json.loads(files["openstack/latest/vendor_data2.json"]) == \
        {"k": "v"}


def test_config_drive_version_gates(conn, service, max_minor, unique):
    needs(max_minor, 59)
    node = _available(conn, unique)
    path = f"/v1/nodes/{node.id}/states/provision"
    resp = _rest(service, "PUT", path, "1.55",
                 {"target": "active", "configdrive": {"meta_data": {}}})
    assert resp.status_code == 400
    assert "error_message" in resp.json()
    resp = _rest(service, "PUT", path, "1.58",
                 {"target": "active",
                  "configdrive": {"vendor_data": {"a": 1}}})
    assert resp.status_code == 400
    assert conn.baremetal.get_node(node.id).provision_state == "available"


def test_retired_node_cannot_be_provided(conn, service, max_minor, unique):
    needs(max_minor, 61)
    node = conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"ret-{unique}")
    conn.baremetal.set_node_provision_state(node, "manage", wait=True,
                                            timeout=WAIT)
    conn.baremetal.update_node(node, is_retired=True,
                               retired_reason="end of life")
    with pytest.raises(sdk_exc.BadRequestException):
        conn.baremetal.set_node_provision_state(node, "provide")
    assert conn.baremetal.get_node(node.id).provision_state == "manageable"


def test_disable_power_off_refuses_power_off(service, max_minor, unique):
    needs(max_minor, 95)
    resp = _rest(service, "POST", "/v1/nodes", "1.95",
                 {"driver": "fake-hardware", "name": f"dpo-{unique}",
                  "disable_power_off": True})
    assert resp.status_code == 201, resp.text
    uuid = resp.json()["uuid"]
    resp = _rest(service, "PUT", f"/v1/nodes/{uuid}/states/power", "1.95",
                 {"target": "power off"})
    assert resp.status_code == 400
    assert "disable_power_off" in json.loads(
        resp.json()["error_message"])["faultstring"]
    resp = _rest(service, "PUT", f"/v1/nodes/{uuid}/states/power", "1.95",
                 {"target": "rebooting"})
    assert resp.status_code == 202


def test_runbook_cleans_node_without_ramdisk(conn, service, max_minor,
                                             unique):
    needs(max_minor, 92)
    name = f"CUSTOM_RB_{unique.upper()}"
    conn.baremetal.create_runbook(name=name, disable_ramdisk=True, steps=[
        {"interface": "bios", "step": "factory_reset", "args": {},
         "order": 0}])
    node = conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"rb-{unique}")
    conn.baremetal.set_node_provision_state(node, "manage", wait=True,
                                            timeout=WAIT)
    fetched = conn.baremetal.get_node(node.id)
    with pytest.raises(sdk_exc.BadRequestException):
        fetched.set_provision_state(conn.baremetal, "clean", runbook=name)
    conn.baremetal.set_node_traits(node, [name])
    fetched.set_provision_state(conn.baremetal, "clean", runbook=name,
                                wait=True, timeout=WAIT)
    assert conn.baremetal.get_node(node.id).provision_state == "manageable"


def test_disable_ramdisk_refuses_in_band_step(service, max_minor, unique):
    needs(max_minor, 70)
    resp = _rest(service, "POST", "/v1/nodes", "1.70",
                 {"driver": "fake-hardware", "name": f"dr-{unique}"})
    uuid = resp.json()["uuid"]
    path = f"/v1/nodes/{uuid}/states/provision"
    assert _rest(service, "PUT", path, "1.70",
                 {"target": "manage"}).status_code == 202
    _wait_state(service, uuid, "1.70", "manageable")
    resp = _rest(service, "PUT", path, "1.70", {
        "target": "clean", "disable_ramdisk": True,
        "clean_steps": [{"interface": "raid",
                         "step": "delete_configuration"}]})
    assert resp.status_code == 400
    assert "ramdisk" in resp.json()["error_message"]
