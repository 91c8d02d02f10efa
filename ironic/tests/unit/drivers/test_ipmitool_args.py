"""ipmi_client: the ipmitool command line, secrets, retries and timeouts.

ipmitool itself is replaced by a fake single run (``_run_once``) or a fake
``subprocess.run``; what is checked is what would be executed.
"""

from __future__ import annotations

import subprocess

import pytest

from ironic.common import exception
from ironic.drivers.modules import ipmi_client

BASE = {"ipmi_address": "10.1.2.3", "ipmi_username": "admin",
        "ipmi_password": "s3cret"}


def _args(**info) -> list[str]:
    return ipmi_client._base_args(
        ipmi_client.parse_driver_info({**BASE, **info}))


def _option(args: list[str], flag: str) -> str | None:
    return args[args.index(flag) + 1] if flag in args else None


def test_defaults():
    args = _args()
    assert args[:3] == ["ipmitool", "-I", "lanplus"]
    assert _option(args, "-H") == "10.1.2.3"
    assert _option(args, "-p") == "623"
    assert _option(args, "-L") == "ADMINISTRATOR"
    assert _option(args, "-U") == "admin"
    for flag in ("-C", "-m", "-b", "-t", "-B", "-T", "-y", "-K", "-P"):
        assert flag not in args


def test_protocol_version_chooses_lan_or_lanplus():
    assert _option(_args(ipmi_protocol_version="2.0"), "-I") == "lanplus"
    assert _option(_args(ipmi_protocol_version="1.5"), "-I") == "lan"


def test_cipher_suite_only_with_lanplus():
    assert _option(_args(ipmi_cipher_suite=3), "-C") == "3"
    assert _option(_args(ipmi_cipher_suite="17"), "-C") == "17"
    assert "-C" not in _args(ipmi_cipher_suite=3,
                             ipmi_protocol_version="1.5")


@pytest.mark.parametrize("given,used", [
    ("OPERATOR", "OPERATOR"), ("user", "USER"), ("Callback", "CALLBACK")])
def test_privilege_level(given, used):
    assert _option(_args(ipmi_priv_level=given), "-L") == used


def test_single_bridging():
    args = _args(ipmi_bridging="single", ipmi_target_channel="7",
                 ipmi_target_address="0x72")
    assert (_option(args, "-m"), _option(args, "-b"),
            _option(args, "-t")) == ("0x20", "7", "0x72")
    assert "-B" not in args and "-T" not in args


def test_dual_bridging_with_local_address():
    args = _args(ipmi_bridging="dual", ipmi_local_address="0x82",
                 ipmi_target_channel="0", ipmi_target_address="0x72",
                 ipmi_transit_channel="6", ipmi_transit_address="0x2c")
    assert [_option(args, f) for f in ("-m", "-b", "-t", "-B", "-T")] == \
        ["0x82", "0", "0x72", "6", "0x2c"]


def test_no_bridging_ignores_bridge_fields():
    args = _args(ipmi_bridging="no", ipmi_target_channel="7",
                 ipmi_target_address="0x72")
    assert "-b" not in args and "-t" not in args


def test_dual_bridging_needs_the_transit_fields():
    with pytest.raises(exception.MissingParameterValue) as err:
        _args(ipmi_bridging="dual", ipmi_target_channel="0",
              ipmi_target_address="0x72")
    assert "ipmi_transit_channel" in str(err.value)
    assert "ipmi_transit_address" in str(err.value)


def test_ipmitool_retries_option(config):
    args = _args()
    assert (_option(args, "-R"), _option(args, "-N")) == ("1", "1")
    config("ipmi", use_ipmitool_retries=True)
    args = _args()
    assert _option(args, "-R") == "3" and "-N" not in args


# --- the K_g key ------------------------------------------------------------

def _capture_run(monkeypatch) -> dict:
    seen: dict = {}

    def fake_run(args, **kwargs):
        seen.update(args=args, env=kwargs["env"], timeout=kwargs["timeout"])
        return subprocess.CompletedProcess(args, 0, "Chassis Power is on\n",
                                           "")
    monkeypatch.setattr(subprocess, "run", fake_run)
    return seen


def test_kg_key_goes_through_the_environment(monkeypatch, config):
    config("ipmi", min_command_interval=0)
    seen = _capture_run(monkeypatch)
    target = ipmi_client.parse_driver_info(
        {**BASE, "ipmi_hex_kg_key": "6B6579"})
    ipmi_client.run(target, ["power", "status"])
    assert "-K" in seen["args"]
    assert "-y" not in seen["args"]
    assert "6B6579" not in " ".join(seen["args"])
    assert seen["env"][b"IPMI_KGKEY"] == b"key"


def test_kg_key_trailing_zero_bytes_are_padding():
    assert ipmi_client._kg_env_value("6b65790000") == b"key"


def test_kg_key_with_an_inner_zero_byte_falls_back(monkeypatch, config):
    # Such a key cannot travel in an environment variable (a C string).
    config("ipmi", min_command_interval=0)
    seen = _capture_run(monkeypatch)
    target = ipmi_client.parse_driver_info(
        {**BASE, "ipmi_hex_kg_key": "6b00ff"})
    ipmi_client.run(target, ["power", "status"])
    assert _option(seen["args"], "-y") == "6b00ff"
    assert b"IPMI_KGKEY" not in seen["env"]


@pytest.mark.parametrize("key", ["abc", "zz", "00" * 21])
def test_malformed_kg_key_is_refused(key):
    with pytest.raises(exception.InvalidParameterValue) as err:
        ipmi_client.parse_driver_info({**BASE, "ipmi_hex_kg_key": key})
    assert "ipmi_hex_kg_key" in str(err.value)


# --- one BMC, one identity --------------------------------------------------

def test_unset_and_default_port_are_the_same_bmc():
    unset = ipmi_client.parse_driver_info({"ipmi_address": "bmc1.lab"})
    default = ipmi_client.parse_driver_info({"ipmi_address": "BMC1.lab",
                                             "ipmi_port": "623"})
    other = ipmi_client.parse_driver_info({"ipmi_address": "bmc1.lab",
                                           "ipmi_port": 624})
    assert unset.key == default.key != other.key
    assert ipmi_client._gate(unset) is ipmi_client._gate(default)


# --- retries and timeouts ---------------------------------------------------

def _scripted(monkeypatch, answers: list) -> list:
    """Replace the single run by ``answers`` in turn (an exception is
    raised, a (code, stdout, stderr) tuple returned); returns the calls."""
    calls: list = []

    def fake(target, command, timeout):
        calls.append(timeout)
        answer = answers[min(len(calls), len(answers)) - 1]
        if isinstance(answer, Exception):
            raise answer
        code, out, err = answer
        return subprocess.CompletedProcess(["ipmitool"], code, out, err)
    monkeypatch.setattr(ipmi_client, "_run_once", fake)
    return calls


def test_busy_answer_is_retried_until_success(monkeypatch, config):
    config("ipmi", min_command_interval=0, command_retry_timeout=10)
    calls = _scripted(monkeypatch, [
        (1, "", "Error: Node busy, try again"),
        (0, "Chassis Power is on\n", "")])
    target = ipmi_client.parse_driver_info(BASE)
    assert ipmi_client.run(target, ["power", "status"]) == \
        "Chassis Power is on\n"
    assert len(calls) == 2


def test_configured_extra_busy_text_is_retried(monkeypatch, config):
    config("ipmi", min_command_interval=0, command_retry_timeout=10,
           additional_retryable_ipmi_errors=["firmware is updating"])
    calls = _scripted(monkeypatch, [
        (1, "", "BMC says: firmware is updating"), (0, "ok\n", "")])
    assert ipmi_client.run(ipmi_client.parse_driver_info(BASE),
                           ["raw", "0x06", "0x01"]) == "ok\n"
    assert len(calls) == 2


def test_other_errors_are_not_retried(monkeypatch, config):
    config("ipmi", min_command_interval=0, command_retry_timeout=10)
    calls = _scripted(monkeypatch, [(1, "", "Invalid command")])
    with pytest.raises(ipmi_client.IpmiCommandFailed) as err:
        ipmi_client.run(ipmi_client.parse_driver_info(BASE),
                        ["bmc", "reset", "warm"])
    assert "Invalid command" in str(err.value)
    assert "10.1.2.3:623" in str(err.value)
    assert len(calls) == 1


def test_busy_until_the_budget_is_spent(monkeypatch, config):
    config("ipmi", min_command_interval=0)
    calls = _scripted(monkeypatch, [(1, "", "Node busy")])
    with pytest.raises(ipmi_client.IpmiCommandFailed) as err:
        ipmi_client.run(ipmi_client.parse_driver_info(BASE),
                        ["power", "status"], retry_timeout=1.5)
    assert "Node busy" in str(err.value)
    # One run, one back-off of at most a second, a last run at the end.
    assert 2 <= len(calls) <= 3


def test_each_run_is_given_the_remaining_budget(monkeypatch, config):
    config("ipmi", min_command_interval=0, command_retry_timeout=4)
    calls = _scripted(monkeypatch, [
        subprocess.TimeoutExpired("ipmitool", 4), (0, "done\n", "")])
    assert ipmi_client.run(ipmi_client.parse_driver_info(BASE),
                           ["power", "on"]) == "done\n"
    # A hung ipmitool is a "Timeout", which is worth another try; no run
    # may outlast the command's budget.
    assert len(calls) == 2
    assert all(t <= 4 for t in calls)
    assert calls[1] < calls[0]


def test_timeout_after_the_budget_names_it(monkeypatch, config):
    config("ipmi", min_command_interval=0, command_retry_timeout=1)
    _scripted(monkeypatch, [subprocess.TimeoutExpired("ipmitool", 1)])
    with pytest.raises(ipmi_client.IpmiCommandFailed) as err:
        ipmi_client.run(ipmi_client.parse_driver_info(BASE),
                        ["power", "status"])
    assert "did not answer" in str(err.value)


def test_the_timeout_reaches_subprocess(monkeypatch, config):
    config("ipmi", min_command_interval=0, command_retry_timeout=7)
    seen = _capture_run(monkeypatch)
    ipmi_client.run(ipmi_client.parse_driver_info(BASE), ["power", "status"])
    assert 0 < seen["timeout"] <= 7


# --- sensors -----------------------------------------------------------------

SDR_V = """Sensor ID              : CPU Temp (0x1)
 Entity ID             : 3.1 (Processor)
 Sensor Type (Threshold)  : Temperature (0x01)
 Sensor Reading        : 45 (+/- 0) degrees C
 Status                : ok
 Upper critical        : 90.000

Sensor ID              : Fan 1 (0x3)
 Entity ID             : 29.1 (Fan Device)
 Sensor Type (Threshold)  : Fan (0x04)
 Sensor Reading        : 3000 (+/- 0) RPM
 Status                : ok

Sensor ID              : PS Presence (0x9)
 Entity ID             : 10.1 (Power Supply)
 Sensor Type (Discrete): Power Supply (0x08)
 States Asserted       : Power Supply
                         [Presence detected]

Sensor ID              : Drive 0 (0xa)
 Sensor Type (Discrete): Drive Slot / Bay (0x0d)
 Sensor Reading        : 1h
"""


def test_parse_sensors_groups_by_type():
    data = ipmi_client.parse_sensors(SDR_V)
    assert set(data) == {"Temperature", "Fan", "Drive"}
    cpu = data["Temperature"]["CPU Temp (0x1)"]
    assert cpu["Sensor Reading"] == "45 (+/- 0) degrees C"
    assert cpu["Entity ID"] == "3.1 (Processor)"
    assert data["Fan"]["Fan 1 (0x3)"]["Status"] == "ok"
    # No current reading: left out.
    assert "PS Presence (0x9)" not in str(data)


def test_parse_sensors_of_a_bmc_without_sdr():
    assert ipmi_client.parse_sensors("") == {}
