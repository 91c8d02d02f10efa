"""The project's IPMI BMC emulator answers the real ipmitool."""

from __future__ import annotations

import subprocess

import pytest

from ironic.tests.emulators.launch import IpmiEmulator, require_ipmitool


@pytest.fixture(autouse=True)
def _ipmitool_present():
    require_ipmitool()


def _ipmitool(emu: IpmiEmulator, *args: str, port: int | None = None,
              password: str | None = None) -> subprocess.CompletedProcess:
    cmd = ["ipmitool", "-I", "lanplus", "-H", emu.address,
           "-p", str(port or emu.base_port), "-U", emu.user,
           "-E", "-R", "1", "-N", "1", *args]
    env = {"IPMI_PASSWORD": password or emu.password, "PATH": "/usr/bin:/bin"}
    return subprocess.run(cmd, capture_output=True, text=True, env=env,
                          timeout=30)


@pytest.fixture(scope="module")
def emulator():
    with IpmiEmulator(count=2) as emu:
        yield emu


def test_power_and_boot_device_reach_the_machine(emulator):
    assert "Power is off" in _ipmitool(emulator, "power", "status").stdout
    assert _ipmitool(emulator, "power", "on").returncode == 0
    assert emulator.state(0)["power"] == "on"
    assert emulator.state(1)["power"] == "off"
    out = _ipmitool(emulator, "chassis", "bootdev", "pxe",
                    "options=persistent,efiboot")
    assert out.returncode == 0, out.stderr
    state = emulator.state(0)
    assert (state["bootdev"], state["persistent"], state["uefi"]) == \
        ("pxe", True, True)
    param = _ipmitool(emulator, "chassis", "bootparam", "get", "5").stdout
    assert "Force PXE" in param and "all future boots" in param
    assert _ipmitool(emulator, "power", "off").returncode == 0
    assert emulator.state(0)["power"] == "off"
    assert emulator.state(0)["power_changes"] == 2


def test_wrong_password_is_refused(emulator):
    out = _ipmitool(emulator, "power", "status", password="wrong")
    assert out.returncode != 0
    assert "Unable to establish" in out.stderr
