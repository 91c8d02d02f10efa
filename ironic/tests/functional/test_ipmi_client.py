"""ipmi_client drives the IPMI emulator through the real ipmitool."""

from __future__ import annotations

import time

import pytest

from ironic.drivers.modules import ipmi_client
from ironic.tests.emulators.launch import IpmiEmulator, require_ipmitool


@pytest.fixture(autouse=True)
def _ipmitool_present():
    require_ipmitool()


@pytest.fixture(scope="module")
def emulator():
    with IpmiEmulator(count=2) as emu:
        yield emu


def _target(emu, index=0, password=None):
    return ipmi_client.parse_driver_info({
        "ipmi_address": emu.address, "ipmi_port": emu.base_port + index,
        "ipmi_username": emu.user,
        "ipmi_password": password or emu.password})


def test_power_and_boot_flags(emulator, config):
    config("ipmi", min_command_interval=0)
    target = _target(emulator)
    ipmi_client.run(target, ["power", "on"])
    assert emulator.state(0)["power"] == "on"
    assert ipmi_client.parse_power_status(
        ipmi_client.run(target, ["power", "status"])) == "on"
    ipmi_client.run(target, ["chassis", "bootdev", "disk",
                             "options=persistent"])
    param = ipmi_client.parse_boot_param(
        ipmi_client.run(target, ["chassis", "bootparam", "get", "5"]))
    assert param == {"boot_device": "disk", "persistent": True,
                     "uefi": False}
    ipmi_client.run(target, ["power", "off"])
    assert emulator.state(0)["power"] == "off"


def test_wrong_password_fails_within_the_retry_budget(emulator, config):
    config("ipmi", min_command_interval=0, command_retry_timeout=2)
    started = time.monotonic()
    with pytest.raises(ipmi_client.IpmiCommandFailed) as err:
        ipmi_client.run(_target(emulator, 1, password="wrong"),
                        ["power", "status"])
    assert "RMCP+" in str(err.value)
    # The budget bounds the whole call (one ipmitool run may overrun it).
    assert time.monotonic() - started < 2 + 30
    assert emulator.state(1)["power_changes"] == 0


def test_kg_key_reaches_a_two_key_bmc(config):
    """The K_g key travels through the environment (-K) and the BMC that
    requires it accepts the session; without it, the BMC refuses."""
    config("ipmi", min_command_interval=0, command_retry_timeout=1)
    with IpmiEmulator(count=1, kg_key="6b67206b6579") as emu:
        info = {"ipmi_address": emu.address, "ipmi_port": emu.base_port,
                "ipmi_username": emu.user, "ipmi_password": emu.password}
        keyed = ipmi_client.parse_driver_info(
            dict(info, ipmi_hex_kg_key="6B67206B6579"))
        assert ipmi_client.parse_power_status(
            ipmi_client.run(keyed, ["power", "status"])) == "off"
        with pytest.raises(ipmi_client.IpmiCommandFailed):
            ipmi_client.run(ipmi_client.parse_driver_info(info),
                            ["power", "status"])
        wrong = ipmi_client.parse_driver_info(
            dict(info, ipmi_hex_kg_key="6b67206b6570"))
        with pytest.raises(ipmi_client.IpmiCommandFailed):
            ipmi_client.run(wrong, ["power", "status"])
