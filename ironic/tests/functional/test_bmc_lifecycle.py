"""ipmi and redfish nodes through the lifecycle against emulated BMCs.

The API, an in-process conductor (``rpc_transport = none``) and the real
BMC protocols: ipmitool against the IPMI emulator, sushy against the
Redfish emulator. After each step the emulated machine's own state is
checked, not only what the API reports.
"""

from __future__ import annotations

import time

import pytest
import sushy

from ironic.common import states
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
    with IpmiEmulator(count=2) as emu:
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
    with ifx.conductor_in_process(monkeypatch) as svc:
        api.version = V
        yield api, svc


def _wait(env, resp, status=202):
    assert resp.status_int == status, resp.body
    assert env[1].pool.wait_idle(30)


def _node(env, uuid):
    return env[0].get(f"/v1/nodes/{uuid}").json


_API_POWER = {"on": states.POWER_ON, "off": states.POWER_OFF}


def _walk(env, uuid, machine_power, machine_bootdev, reboots):
    """``reboots()`` -> (what the machine counts, its increase per
    reboot of a powered-on machine)."""
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
    counted, per_reboot = reboots()
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/power",
                       {"target": states.REBOOT}))
    assert machine_power() == "on"
    assert reboots()[0] == counted + per_reboot
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


def _provide_and_deploy(env, uuid, machine):
    """``machine()`` -> the emulated machine's (power, power actions,
    boot device) as the emulator records them."""
    api = env[0]
    before = machine()
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "provide"}))
    node = _node(env, uuid)
    assert node["provision_state"] == states.AVAILABLE
    # No cleaning configured: providing leaves the machine alone, and the
    # API agrees with it.
    assert machine() == before
    assert node["power_state"] == _API_POWER[before[0]]
    _wait(env, api.patch(f"/v1/nodes/{uuid}", [
        {"op": "add", "path": "/deploy_interface", "value": "fake"},
        {"op": "add", "path": "/boot_interface", "value": "fake"}],
    ), status=200)
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "active"}))
    node = _node(env, uuid)
    assert node["provision_state"] == states.ACTIVE, node["last_error"]
    # The fake deploy writes nothing and boots nothing: the machine is as
    # it was, and the API says so.
    assert machine() == before
    assert node["power_state"] == _API_POWER[before[0]]
    # The deployed machine stays under control.
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/power",
                       {"target": states.POWER_ON}))
    assert machine()[0] == "on"
    assert _node(env, uuid)["power_state"] == states.POWER_ON


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
    # A reboot of a powered-on machine is off, then on: two changes.
    _walk(env, uuid, lambda: ipmi_bmc.state(0)["power"],
          lambda: ipmi_bmc.state(0)["bootdev"],
          lambda: (ipmi_bmc.state(0)["power_changes"], 2))
    assert ipmi_bmc.state(0)["persistent"] is True

    def machine():
        state = ipmi_bmc.state(0)
        return state["power"], state["power_changes"], state["bootdev"]
    _provide_and_deploy(env, uuid, machine)


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
    # Redfish reboots a powered-on system with one ForceRestart.
    _walk(env, uuid, lambda: power.get(system().power_state),
          lambda: targets.get(system().boot.target),
          lambda: (redfish_bmc.resets(0).get("ForceRestart", 0), 1))

    # Inspection reads the boot mode the machine is in: switch it to
    # legacy BIOS behind the service's back first.
    system().set_system_boot_options(mode=sushy.BOOT_SOURCE_MODE_BIOS)

    _wait(env, env[0].put(f"/v1/nodes/{uuid}/states/provision",
                          {"target": "inspect"}))
    node = _node(env, uuid)
    assert node["provision_state"] == states.MANAGEABLE, node["last_error"]
    assert node["properties"]["memory_mb"] == 8192
    assert node["properties"]["cpus"] == 4
    assert "boot_mode:bios" in node["properties"]["capabilities"].split(",")
    ports = env[0].get(f"/v1/nodes/{uuid}/ports").json["ports"]
    assert sorted(p["address"] for p in ports) == sorted(system_macs(0))

    def machine():
        fresh = system()
        return (power.get(fresh.power_state),
                sum(redfish_bmc.resets(0).values()),
                targets.get(fresh.boot.target))
    _provide_and_deploy(env, uuid, machine)


def _eventually(read, expected, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while read() != expected:
        assert time.monotonic() < deadline, (read(), expected)
        time.sleep(0.05)


def _passthru(env, uuid, method, body, status=202):
    resp = env[0].post(f"/v1/nodes/{uuid}/vendor_passthru?method={method}",
                       body)
    _wait(env, resp, status)
    return resp


def test_ipmi_vendor_passthru_reaches_the_bmc(env, ipmi_bmc):
    # The second emulated BMC: the lifecycle test drives the first.
    resp = env[0].post("/v1/nodes", {
        "driver": "ipmi", "name": "ipmi-vendor",
        "driver_info": {"ipmi_address": ipmi_bmc.address,
                        "ipmi_port": ipmi_bmc.base_port + 1,
                        "ipmi_username": ipmi_bmc.user,
                        "ipmi_password": ipmi_bmc.password}})
    assert resp.status_int == 201, resp.body
    uuid = resp.json["uuid"]
    methods = env[0].get(f"/v1/nodes/{uuid}/vendor_passthru/methods").json
    assert {"send_raw", "bmc_reset"} <= set(methods)

    # Chassis Control (netfn 0, command 2), "power up" (1), sent raw.
    before = ipmi_bmc.state(1)
    _passthru(env, uuid, "send_raw", {"raw_bytes": "0x00 0x02 0x01"})
    after = ipmi_bmc.state(1)
    assert after["power"] == "on"
    assert after["power_changes"] == before["power_changes"] + 1
    _passthru(env, uuid, "send_raw", {"raw_bytes": "0x00 0x02 0x00"})
    assert ipmi_bmc.state(1)["power"] == "off"

    # ipmitool sends a reset without waiting for the answer (the BMC may
    # be gone before it answers): the emulator records it a moment later.
    _passthru(env, uuid, "bmc_reset", {"warm": True})
    _eventually(lambda: ipmi_bmc.state(1)["bmc_resets"],
                {"warm": 1, "cold": 0})
    _passthru(env, uuid, "bmc_reset", {"warm": "false"})
    _eventually(lambda: ipmi_bmc.state(1)["bmc_resets"],
                {"warm": 1, "cold": 1})
    assert ipmi_bmc.state(0)["bmc_resets"] == {"warm": 0, "cold": 0}

    resp = env[0].post(f"/v1/nodes/{uuid}/vendor_passthru?method=send_raw",
                       {"raw_bytes": "0x00 zz"})
    assert resp.status_int == 400, resp.body
    assert "raw_bytes" in resp.json["error_message"]
    resp = env[0].post(
        f"/v1/nodes/{uuid}/vendor_passthru?method=bmc_reset",
        {"warm": "sometimes"})
    assert resp.status_int == 400, resp.body
