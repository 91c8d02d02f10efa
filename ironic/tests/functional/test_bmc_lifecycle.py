"""ipmi and redfish nodes through the lifecycle against emulated BMCs.

The API, an in-process conductor (``rpc_transport = none``) and the real
BMC protocols: ipmitool against the IPMI emulator, sushy against the
Redfish emulator. After each step the emulated machine's own state is
checked, not only what the API reports.
"""

from __future__ import annotations

import pytest
import sushy

from ironic.common import driver_factory, hash_ring, rpc, states
from ironic.conductor import base_manager, rpcapi
from ironic.tests import fixtures as ifx
from ironic.tests.emulators.launch import (
    IpmiEmulator,
    RedfishEmulator,
    require_ipmitool,
    system_macs,
)

V = "1.87"


@pytest.fixture(scope="module")
def ipmi_bmc():
    require_ipmitool()
    with IpmiEmulator(count=1) as emu:
        yield emu


@pytest.fixture(scope="module")
def redfish_bmc():
    with RedfishEmulator(count=1, user="admin", password="pw") as emu:
        yield emu


@pytest.fixture
def env(api_without_conductor, config, monkeypatch):
    api = api_without_conductor
    ifx.configure_test_drivers(
        config, hardware_types=["ipmi", "redfish"],
        power=["ipmitool", "redfish"], management=["ipmitool", "redfish"],
        inspect=["redfish", "no-inspect"], vendor=["ipmitool", "no-vendor"])
    config(rpc_transport="none", host="test-conductor")
    config("conductor", automated_clean=False)
    config("ipmi", min_command_interval=0, command_retry_timeout=5)
    config("redfish", connection_retry_interval=0, connection_attempts=2)
    rpc.reset()
    hash_ring.reset()
    monkeypatch.setattr(rpcapi, "_API", None)
    svc = base_manager.ConductorService()
    svc.start()
    api.version = V
    yield api, svc
    svc.stop(timeout=5)
    rpc.reset()
    driver_factory.reset()


def _wait(env, resp, status=202):
    assert resp.status_int == status, resp.body
    assert env[1].pool.wait_idle(30)


def _node(env, uuid):
    return env[0].get(f"/v1/nodes/{uuid}").json


def _walk(env, uuid, machine_power, machine_bootdev):
    api = env[0]
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "manage"}))
    node = _node(env, uuid)
    assert node["provision_state"] == states.MANAGEABLE, node["last_error"]
    assert node["power_state"] == states.POWER_OFF

    _wait(env, api.put(f"/v1/nodes/{uuid}/states/power",
                       {"target": states.POWER_ON}))
    assert machine_power() == "on"
    assert _node(env, uuid)["power_state"] == states.POWER_ON
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/power",
                       {"target": states.REBOOT}))
    assert machine_power() == "on"
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/power",
                       {"target": states.POWER_OFF}))
    assert machine_power() == "off"
    assert _node(env, uuid)["power_state"] == states.POWER_OFF

    resp = api.put(f"/v1/nodes/{uuid}/management/boot_device",
                   {"boot_device": "pxe", "persistent": True})
    assert resp.status_int in (202, 204), resp.body
    assert machine_bootdev() == "pxe"
    got = api.get(f"/v1/nodes/{uuid}/management/boot_device").json
    assert got == {"boot_device": "pxe", "persistent": True}


def _provide_and_deploy(env, uuid):
    api = env[0]
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "provide"}))
    assert _node(env, uuid)["provision_state"] == states.AVAILABLE
    _wait(env, api.patch(f"/v1/nodes/{uuid}", [
        {"op": "add", "path": "/deploy_interface", "value": "fake"},
        {"op": "add", "path": "/boot_interface", "value": "fake"}],
    ), status=200)
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "active"}))
    node = _node(env, uuid)
    assert node["provision_state"] == states.ACTIVE, node["last_error"]


def test_ipmi_node_lifecycle(env, ipmi_bmc):
    resp = env[0].post("/v1/nodes", {
        "driver": "ipmi", "name": "ipmi-0",
        "driver_info": {"ipmi_address": ipmi_bmc.address,
                        "ipmi_port": ipmi_bmc.base_port,
                        "ipmi_username": ipmi_bmc.user,
                        "ipmi_password": ipmi_bmc.password}})
    assert resp.status_int == 201, resp.body
    node = resp.json
    assert node["power_interface"] == "ipmitool"
    assert node["driver_info"]["ipmi_password"] == "******"
    uuid = node["uuid"]
    _walk(env, uuid, lambda: ipmi_bmc.state(0)["power"],
          lambda: ipmi_bmc.state(0)["bootdev"])
    assert ipmi_bmc.state(0)["persistent"] is True
    _provide_and_deploy(env, uuid)


def test_redfish_node_lifecycle_with_inspection(env, redfish_bmc):
    system_id = f"/redfish/v1/Systems/{redfish_bmc.systems()[0]}"
    client = sushy.Sushy(f"{redfish_bmc.url}/redfish/v1",
                         auth=sushy.auth.BasicAuth("admin", "pw"))

    def system():
        return client.get_system(system_id)

    resp = env[0].post("/v1/nodes", {
        "driver": "redfish", "name": "redfish-0",
        "driver_info": {"redfish_address": redfish_bmc.url,
                        "redfish_system_id": system_id,
                        "redfish_username": "admin",
                        "redfish_password": "pw"}})
    assert resp.status_int == 201, resp.body
    uuid = resp.json["uuid"]
    power = {sushy.POWER_STATE_ON: "on", sushy.POWER_STATE_OFF: "off"}
    targets = {sushy.BOOT_SOURCE_TARGET_PXE: "pxe"}
    _walk(env, uuid, lambda: power.get(system().power_state),
          lambda: targets.get(system().boot.target))

    _wait(env, env[0].put(f"/v1/nodes/{uuid}/states/provision",
                          {"target": "inspect"}))
    node = _node(env, uuid)
    assert node["provision_state"] == states.MANAGEABLE, node["last_error"]
    assert node["properties"]["memory_mb"] == 8192
    assert node["properties"]["cpus"] == 4
    ports = env[0].get(f"/v1/nodes/{uuid}/ports").json["ports"]
    assert sorted(p["address"] for p in ports) == sorted(system_macs(0))
    _provide_and_deploy(env, uuid)
