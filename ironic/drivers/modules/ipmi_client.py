"""Running ipmitool against one BMC, safely.

- The password never appears on the command line: it goes through a
  private temporary file (``-f``) or, with ``[ipmi]store_cred_in_env``, the
  ``IPMI_PASSWORD`` environment variable (``-E``). The K_g key goes through
  ``IPMI_KGKEY`` (``-K``).
- Commands to one BMC are serialized and spaced by
  ``[ipmi]min_command_interval``; commands to different BMCs run in
  parallel.
- Answers that mean "busy, try again" are retried until
  ``[ipmi]command_retry_timeout``; every ipmitool run has a time budget.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import subprocess
import tempfile
import threading
import time
from typing import Any

from ironic.common import exception
from ironic.conf import CONF

LOG = logging.getLogger(__name__)

PRIV_LEVELS = ("ADMINISTRATOR", "CALLBACK", "OPERATOR", "USER")
BRIDGING = ("no", "single", "dual")
DEFAULT_PORT = 623
# ipmitool error texts after which the same command may succeed.
RETRYABLE = ("insufficient resources for session", "Node busy",
             "Timeout", "Out of space", "BMC initialization in progress",
             "Unable to establish IPMI v2 / RMCP+ session")
_PER_RUN_TIMEOUT = 30
# The bridging fields each mode needs.
_BRIDGING_NEEDS = {
    "single": ("ipmi_target_channel", "ipmi_target_address"),
    "dual": ("ipmi_target_channel", "ipmi_target_address",
             "ipmi_transit_channel", "ipmi_transit_address")}
_BRIDGING_FIELDS = ("ipmi_local_address", "ipmi_transit_channel",
                    "ipmi_transit_address", "ipmi_target_channel",
                    "ipmi_target_address")
# A K_g key is at most 20 bytes (IPMI 2.0, RAKP).
_KG_MAX_HEX = 40


@dataclasses.dataclass(frozen=True)
class IpmiTarget:
    """How to reach one BMC, validated from a node's driver_info."""

    address: str
    port: int = DEFAULT_PORT
    username: str | None = None
    password: str | None = None
    protocol_version: str = "2.0"
    cipher_suite: int | None = None
    priv_level: str = "ADMINISTRATOR"
    bridging: str = "no"
    local_address: str | None = None
    transit_channel: str | None = None
    transit_address: str | None = None
    target_channel: str | None = None
    target_address: str | None = None
    hex_kg_key: str | None = None
    terminal_port: int | None = None

    @property
    def key(self) -> tuple[str, int]:
        """Identity of the BMC for serialization of its commands: a port
        left out and the default port are the same BMC."""
        return (self.address.lower(), self.port)


def _invalid(name: str, why: str, value: Any) -> exception.Invalid:
    if name == "ipmi_password":  # never echo a secret back
        return exception.InvalidParameterValue(
            err=f"driver_info/{name} {why}.")
    return exception.InvalidParameterValue(
        err=f"driver_info/{name} {why}, got {value!r}.")


def _int_field(info: dict, name: str, low: int, high: int) -> int | None:
    value = info.get(name)
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = None
    if number is None or isinstance(value, bool) or \
            not low <= number <= high:
        raise _invalid(name, f"must be an integer between {low} and "
                             f"{high}", value)
    return number


def _choice(info: dict, name: str, default: str,
            allowed: tuple[str, ...], fold=str.upper) -> str:
    value = info.get(name)
    if value is None or value == "":
        return default
    text = fold(str(value))
    if text not in allowed:
        raise _invalid(name, f"must be one of {', '.join(allowed)}", value)
    return text


def _bridge_field(info: dict, name: str) -> str | None:
    """Channels and IPMB addresses: one byte, decimal or 0x-prefixed."""
    value = info.get(name)
    if value is None or value == "":
        return None
    try:
        number = int(str(value), 0)
    except ValueError:
        number = -1
    if isinstance(value, bool) or not 0 <= number <= 255:
        raise _invalid(name, "must be a byte such as 0x20 or 7", value)
    return str(value)


def _kg_key(info: dict) -> str | None:
    value = info.get("ipmi_hex_kg_key")
    if value is None or value == "":
        return None
    text = str(value)
    if len(text) % 2 or len(text) > _KG_MAX_HEX or any(
            c not in "0123456789abcdefABCDEF" for c in text):
        raise exception.InvalidParameterValue(
            err=f"driver_info/ipmi_hex_kg_key must be an even number of hex "
                f"digits, at most {_KG_MAX_HEX}.")
    return text


def _address(info: dict) -> str | None:
    value = info.get("ipmi_address")
    if value is None or value == "":
        return None
    if not isinstance(value, str) or not value.strip() or \
            any(c.isspace() for c in value.strip()):
        raise _invalid("ipmi_address", "must be a host name or IP address",
                       value)
    return value.strip()


def _optional_text(info: dict, name: str) -> str | None:
    # A numeric password written as a JSON number is still a password.
    value = info.get(name)
    if value is None:
        return None
    if isinstance(value, (dict, list, bool)):
        raise _invalid(name, "must be a string", value)
    return str(value)


def _values(info: dict) -> dict[str, Any]:
    """Every field present, checked and normalized; none required."""
    port = _int_field(info, "ipmi_port", 1, 65535)
    return {
        "address": _address(info),
        "port": DEFAULT_PORT if port is None else port,
        "username": _optional_text(info, "ipmi_username") or None,
        "password": _optional_text(info, "ipmi_password"),
        "protocol_version": _choice(info, "ipmi_protocol_version", "2.0",
                                    ("1.5", "2.0"), fold=str),
        "cipher_suite": _int_field(info, "ipmi_cipher_suite", 0, 17),
        "priv_level": _choice(info, "ipmi_priv_level", "ADMINISTRATOR",
                              PRIV_LEVELS),
        "bridging": _choice(info, "ipmi_bridging", "no", BRIDGING,
                            fold=str.lower),
        **{name[len("ipmi_"):]: _bridge_field(info, name)
           for name in _BRIDGING_FIELDS},
        "hex_kg_key": _kg_key(info),
        "terminal_port": _int_field(info, "ipmi_terminal_port", 1, 65535),
    }


def check_driver_info(info: dict) -> None:
    """Reject malformed values (naming the field) without talking to the
    BMC; required fields may still be missing, as on enrollment."""
    _values(info or {})


def parse_driver_info(info: dict) -> IpmiTarget:
    """Validate ``driver_info``; errors name the field that is wrong."""
    values = _values(info)
    if values["address"] is None:
        raise exception.MissingParameterValue(
            err="driver_info/ipmi_address is required to manage the node "
                "over IPMI.")
    bridging = values["bridging"]
    missing = [f for f in _BRIDGING_NEEDS.get(bridging, ())
               if values[f[len("ipmi_"):]] is None]
    if missing:
        raise exception.MissingParameterValue(
            err=f"driver_info/{', '.join(missing)} required for "
                f"ipmi_bridging={bridging}.")
    return IpmiTarget(**values)


class IpmiCommandFailed(exception.IronicException):
    _msg_fmt = "IPMI command '%(command)s' failed on %(bmc)s: %(error)s"


def _base_args(target: IpmiTarget) -> list[str]:
    """ipmitool's connection options; secrets are added by _secrets()."""
    interface = "lanplus" if target.protocol_version == "2.0" else "lan"
    args = ["ipmitool", "-I", interface, "-H", target.address,
            "-L", target.priv_level, "-p", str(target.port)]
    if target.username:
        args += ["-U", target.username]
    if target.cipher_suite is not None and interface == "lanplus":
        args += ["-C", str(target.cipher_suite)]
    # (parsing refused a bridging mode without the fields it needs)
    if target.bridging in ("single", "dual"):
        args += ["-m", target.local_address or "0x20",
                 "-b", target.target_channel,  # type: ignore[list-item]
                 "-t", target.target_address]  # type: ignore[list-item]
    if target.bridging == "dual":
        args += ["-B", target.transit_channel,  # type: ignore[list-item]
                 "-T", target.transit_address]  # type: ignore[list-item]
    if CONF.ipmi.use_ipmitool_retries:
        args += ["-R", "3"]
    else:
        args += ["-R", "1", "-N", "1"]
    if CONF.ipmi.debug:
        args.append("-v")
    return args


def _kg_env_value(hex_key: str) -> bytes | None:
    """The K_g key as ipmitool reads it from IPMI_KGKEY (-K): raw bytes,
    which a C string ends at the first zero byte. Zero bytes at the end
    are the padding of a key anyway; a zero byte inside cannot travel
    that way (None)."""
    raw = bytes.fromhex(hex_key).rstrip(b"\0")
    return None if b"\0" in raw else raw


def _secrets(target: IpmiTarget, env: dict, tmpdir: str) -> list[str]:
    """Options handing the password and K_g key to ipmitool through a
    private file or the environment, never on the command line."""
    args: list[str] = []
    if target.password is not None:
        if CONF.ipmi.store_cred_in_env:
            env["IPMI_PASSWORD"] = target.password
            args.append("-E")
        else:
            path = os.path.join(tmpdir, "password")
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(target.password)
            args += ["-f", path]
    if target.hex_kg_key:
        raw = _kg_env_value(target.hex_kg_key)
        if raw is not None:
            env[b"IPMI_KGKEY"] = raw
            args.append("-K")
        else:
            # ipmitool has no other secret channel for such a key.
            LOG.warning("The K_g key of the BMC %s has a zero byte inside; "
                        "ipmitool can only take it on its command line.",
                        target.address)
            args += ["-y", target.hex_kg_key]
    return args


def _child_env() -> dict:
    """The environment ipmitool runs with, before any secret is added."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C"}


def console_command(target: IpmiTarget) -> tuple[list[str], dict]:
    """The ``sol activate`` command line and its environment for a console
    process. That process outlives this call, so the password goes only
    through its environment (``-E``), never a file or the command line."""
    env = _child_env()
    args = _base_args(target)
    if target.password is not None:
        env["IPMI_PASSWORD"] = target.password
        args.append("-E")
    if target.hex_kg_key:
        raw = _kg_env_value(target.hex_kg_key)
        if raw is None:
            raise exception.InvalidParameterValue(
                err="driver_info/ipmi_hex_kg_key has a zero byte inside, "
                    "which the console cannot pass to ipmitool safely.")
        env[b"IPMI_KGKEY"] = raw
        args.append("-K")
    return args + ["sol", "activate"], env


def _run_once(target: IpmiTarget, command: list[str],
              timeout: float) -> subprocess.CompletedProcess:
    env = _child_env()
    with tempfile.TemporaryDirectory(prefix="ipmi-") as tmpdir:
        args = _base_args(target) + _secrets(target, env, tmpdir)
        return subprocess.run(args + command, capture_output=True,
                              text=True, env=env, timeout=timeout)


class _BmcGate:
    """Serializes and spaces the commands sent to one BMC."""

    def __init__(self):
        self.lock = threading.Lock()
        self.last = 0.0


_GATES: dict[tuple, _BmcGate] = {}
_GATES_LOCK = threading.Lock()


def _gate(target: IpmiTarget) -> _BmcGate:
    with _GATES_LOCK:
        return _GATES.setdefault(target.key, _BmcGate())


def _retryable(text: str) -> bool:
    hints = RETRYABLE + tuple(CONF.ipmi.additional_retryable_ipmi_errors)
    return any(h.lower() in text.lower() for h in hints)


def run(target: IpmiTarget, command: list[str], *,
        retry_timeout: float | None = None) -> str:
    """Run one ipmitool command on ``target`` and return its stdout."""
    gate = _gate(target)
    budget = CONF.ipmi.command_retry_timeout if retry_timeout is None \
        else retry_timeout
    deadline = time.monotonic() + budget
    bmc = f"{target.address}:{target.port}"
    while True:
        # Other commands to the same BMC go first; waiting for them counts
        # against this command's budget, so a busy BMC cannot hold a
        # caller (the power sync for one) past command_retry_timeout.
        if not gate.lock.acquire(
                timeout=max(0.0, deadline - time.monotonic())):
            raise IpmiCommandFailed(
                command=" ".join(command), bmc=bmc,
                error=f"other commands kept the BMC busy for {budget} s")
        try:
            wait = gate.last + CONF.ipmi.min_command_interval - \
                time.monotonic()
            if wait > 0:
                time.sleep(wait)
            remaining = max(1.0, deadline - time.monotonic())
            try:
                result = _run_once(target, command,
                                   min(_PER_RUN_TIMEOUT, remaining))
                error = result.stderr.strip()
                ok = result.returncode == 0
            except subprocess.TimeoutExpired:
                ok, error = False, "Timeout: ipmitool did not answer"
        finally:
            gate.last = time.monotonic()
            gate.lock.release()
        if ok:
            return result.stdout
        if not _retryable(error) or time.monotonic() >= deadline:
            # Debug only: the error travels in the exception, and its
            # caller logs it once (the power sync summarises a whole BMC
            # network failing rather than log every node).
            LOG.debug("ipmitool %s on %s failed: %s", " ".join(command),
                      bmc, error)
            raise IpmiCommandFailed(command=" ".join(command), bmc=bmc,
                                    error=error or "unknown error")
        # Back off a little so a BMC that is busy gets room to recover.
        time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))


# Parsing of the answers the interfaces need ---------------------------

def parse_power_status(stdout: str) -> str:
    """'Chassis Power is on' -> 'on'."""
    text = stdout.strip().lower()
    if text.endswith(" on"):
        return "on"
    if text.endswith(" off"):
        return "off"
    raise IpmiCommandFailed(command="power status", bmc="?",
                            error=f"unexpected answer {stdout!r}")


_SELECTORS = {"force pxe": "pxe", "force boot from default hard-drive":
              "disk", "force boot from cd/dvd": "cdrom",
              "force boot into bios setup": "bios", "force boot from floppy":
              "floppy", "no override": None, "force boot from default "
              "hard-drive, request safe mode": "safe"}


def parse_boot_param(stdout: str) -> dict[str, Any]:
    """The boot device, persistence and UEFI flag of 'bootparam get 5'."""
    device, persistent, uefi = None, False, False
    for line in stdout.splitlines():
        line = line.strip().lstrip("- ").strip()
        lower = line.lower()
        if lower.startswith("boot device selector"):
            device = _SELECTORS.get(lower.split(":", 1)[1].strip())
        elif "options apply to all future boots" in lower:
            persistent = True
        elif "bios efi boot" in lower:
            uefi = True
    return {"boot_device": device, "persistent": persistent, "uefi": uefi}


def parse_identify_state(stdout: str) -> str | None:
    """The identify LED from the raw Get Chassis Status answer ('raw 0x00
    0x01', hex bytes): 'off', 'on', or None when the BMC does not say.

    In the third byte, bit 6 tells whether the state is reported and bits
    5:4 hold it (0 off, 1 timed on, 2 on until turned off).
    """
    try:
        misc = int(stdout.split()[2], 16)
    except (IndexError, ValueError):
        return None
    if not misc & 0x40:
        return None
    return "off" if (misc >> 4) & 0x03 == 0 else "on"


_SENSOR_TYPE_KEYS = ("Sensor Type (Threshold)", "Sensor Type (Discrete)",
                     "Sensor Type (Analog)")


def _sensor_fields(block: str) -> dict[str, str]:
    fields = {}
    for line in block.splitlines():
        key, colon, value = line.partition(":")
        if colon and not line.startswith("<<"):  # "<<" marks debug output
            fields[key.strip()] = value.strip()
    return fields


def parse_sensors(stdout: str) -> dict[str, dict[str, dict[str, str]]]:
    """'sdr -v' -> {sensor type: {sensor id: {field: value}}}.

    Sensors are grouped by the first word of their type ('Temperature
    (0x01)' -> 'Temperature'); those without a current reading are left
    out, as a BMC lists sensors of absent devices too.
    """
    grouped: dict[str, dict[str, dict[str, str]]] = {}
    for block in stdout.split("\n\n"):
        fields = _sensor_fields(block)
        kind = next((fields[k] for k in _SENSOR_TYPE_KEYS if k in fields),
                    None)
        if not kind or "Sensor ID" not in fields or \
                "Sensor Reading" not in fields:
            continue
        grouped.setdefault(kind.split(" ", 1)[0], {})[
            fields["Sensor ID"]] = fields
    return grouped
