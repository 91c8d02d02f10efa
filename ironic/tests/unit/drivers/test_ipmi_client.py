"""ipmi_client: driver_info validation, argument building, answer parsing."""

from __future__ import annotations

import subprocess

import pytest

from ironic.common import exception
from ironic.drivers.modules import ipmi_client


def test_parse_driver_info_defaults():
    target = ipmi_client.parse_driver_info(
        {"ipmi_address": "127.0.0.1", "ipmi_port": "6230",
         "ipmi_username": "admin", "ipmi_password": "pw"})
    assert target.port == 6230
    assert target.protocol_version == "2.0"
    assert target.priv_level == "ADMINISTRATOR"


@pytest.mark.parametrize("info,field", [
    ({}, "ipmi_address"),
    ({"ipmi_address": "h", "ipmi_port": "x"}, "ipmi_port"),
    ({"ipmi_address": "h", "ipmi_port": 70000}, "ipmi_port"),
    ({"ipmi_address": "h", "ipmi_protocol_version": "3"},
     "ipmi_protocol_version"),
    ({"ipmi_address": "h", "ipmi_priv_level": "ROOT"}, "ipmi_priv_level"),
    ({"ipmi_address": "h", "ipmi_cipher_suite": 99}, "ipmi_cipher_suite"),
    ({"ipmi_address": "h", "ipmi_bridging": "single"},
     "ipmi_target_channel"),
    ({"ipmi_address": "h", "ipmi_hex_kg_key": "xyz"}, "ipmi_hex_kg_key"),
])
def test_parse_driver_info_names_the_bad_field(info, field):
    with pytest.raises(exception.Invalid) as err:
        ipmi_client.parse_driver_info(info)
    assert field in str(err.value)


def test_password_never_on_the_command_line(monkeypatch, config):
    config("ipmi", min_command_interval=0)
    seen = {}

    def fake_run(args, **kwargs):
        seen["args"] = args
        seen["env"] = kwargs["env"]
        pwfile = args[args.index("-f") + 1]
        with open(pwfile) as f:
            seen["file"] = f.read()
        return subprocess.CompletedProcess(args, 0, "Chassis Power is on\n",
                                           "")

    monkeypatch.setattr(subprocess, "run", fake_run)
    target = ipmi_client.parse_driver_info(
        {"ipmi_address": "127.0.0.1", "ipmi_password": "s3cret"})
    out = ipmi_client.run(target, ["power", "status"])
    assert ipmi_client.parse_power_status(out) == "on"
    assert "s3cret" not in " ".join(seen["args"])
    assert seen["file"] == "s3cret"
    assert "IPMI_PASSWORD" not in seen["env"]

    config("ipmi", store_cred_in_env=True)
    monkeypatch.setattr(subprocess, "run", lambda args, **kw: (
        seen.update(args=args, env=kw["env"]) or
        subprocess.CompletedProcess(args, 0, "", "")))
    ipmi_client.run(target, ["power", "status"])
    assert "-E" in seen["args"] and "s3cret" not in " ".join(seen["args"])
    assert seen["env"]["IPMI_PASSWORD"] == "s3cret"


def test_parse_boot_param():
    text = """Boot parameter version: 1
 Boot Flags :
   - Boot Flag Valid
   - Options apply to all future boots
   - BIOS EFI boot
   - Boot Device Selector : Force PXE
"""
    assert ipmi_client.parse_boot_param(text) == {
        "boot_device": "pxe", "persistent": True, "uefi": True}


@pytest.mark.parametrize("stdout,expected", [
    (" 01 00 40\n", "off"), (" 00 00 50\n", "on"), (" 01 00 60 00\n", "on"),
    (" 01 00 00\n", None), (" 01\n", None), ("garbage", None)])
def test_parse_identify_state(stdout, expected):
    assert ipmi_client.parse_identify_state(stdout) == expected


def _fake_runs(monkeypatch, inside):
    """Replace ipmitool by ``inside(target)``; answers 'power is off'."""
    import subprocess

    def fake(target, command, timeout):
        inside(target)
        return subprocess.CompletedProcess(["ipmitool"], 0,
                                           "Chassis Power is off\n", "")
    monkeypatch.setattr(ipmi_client, "_run_once", fake)


def test_one_bmc_one_command_at_a_time_others_in_parallel(monkeypatch,
                                                          config):
    import threading
    import time
    config("ipmi", min_command_interval=0)
    lock = threading.Lock()
    active: dict = {}
    peak: dict = {}
    # Two different BMCs must be inside ipmitool together to pass this.
    barrier = threading.Barrier(2, timeout=20)

    def inside(target):
        with lock:
            active[target.key] = active.get(target.key, 0) + 1
            peak[target.key] = max(peak.get(target.key, 0),
                                   active[target.key])
        if target.address == "10.0.0.2":
            barrier.wait()
        else:
            time.sleep(0.01)  # give a second caller a chance to overlap
        with lock:
            active[target.key] -= 1

    _fake_runs(monkeypatch, inside)
    same = ipmi_client.parse_driver_info({"ipmi_address": "10.0.0.1"})
    others = [ipmi_client.parse_driver_info({"ipmi_address": "10.0.0.2",
                                             "ipmi_port": port})
              for port in (623, 624)]
    threads = [threading.Thread(target=ipmi_client.run,
                                args=(t, ["power", "status"]))
               for t in [same] * 4 + others]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert peak[same.key] == 1
    assert not barrier.broken


def test_waiting_for_a_busy_bmc_is_bounded(monkeypatch, config):
    config("ipmi", min_command_interval=0)
    _fake_runs(monkeypatch, lambda target: None)
    target = ipmi_client.parse_driver_info({"ipmi_address": "10.0.0.9"})
    gate = ipmi_client._gate(target)
    gate.lock.acquire()  # another command holds the BMC
    try:
        with pytest.raises(ipmi_client.IpmiCommandFailed) as err:
            ipmi_client.run(target, ["power", "status"], retry_timeout=0.2)
    finally:
        gate.lock.release()
    assert "kept the BMC busy" in str(err.value)
    assert ipmi_client.run(target, ["power", "status"]).startswith(
        "Chassis Power is off")
