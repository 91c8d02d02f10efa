"""Running ipmitool against one BMC, safely.

- The password never appears on the command line: it goes through a
  private temporary file (``-f``) or, with ``[ipmi]store_cred_in_env``, the
  ``IPMI_PASSWORD`` environment variable (``-E``).
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
# ipmitool error texts after which the same command may succeed.
RETRYABLE = ("insufficient resources for session", "Node busy",
             "Timeout", "Out of space", "BMC initialization in progress",
             "Unable to establish IPMI v2 / RMCP+ session")
_PER_RUN_TIMEOUT = 30


@dataclasses.dataclass(frozen=True)
class IpmiTarget:
    """How to reach one BMC, validated from a node's driver_info."""

    address: str
    port: int | None = None
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
    def key(self) -> tuple[str, int | None]:
        """Identity of the BMC for serialization of its commands."""
        return (self.address, self.port)


def _int_field(info: dict, name: str, low: int, high: int) -> int | None:
    value = info.get(name)
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = None
    if number is None or not low <= number <= high:
        raise exception.InvalidParameterValue(
            err=f"driver_info/{name} must be an integer between {low} and "
                f"{high}, got {value!r}.")
    return number


def parse_driver_info(info: dict) -> IpmiTarget:
    """Validate ``driver_info``; errors name the field that is wrong."""
    address = info.get("ipmi_address")
    if not address or not isinstance(address, str):
        raise exception.MissingParameterValue(
            err="driver_info/ipmi_address is required to manage the node "
                "over IPMI.")
    version = str(info.get("ipmi_protocol_version", "2.0"))
    if version not in ("1.5", "2.0"):
        raise exception.InvalidParameterValue(
            err=f"driver_info/ipmi_protocol_version must be '1.5' or '2.0', "
                f"got {version!r}.")
    priv = str(info.get("ipmi_priv_level", "ADMINISTRATOR")).upper()
    if priv not in PRIV_LEVELS:
        raise exception.InvalidParameterValue(
            err=f"driver_info/ipmi_priv_level must be one of "
                f"{', '.join(PRIV_LEVELS)}, got {priv!r}.")
    bridging = str(info.get("ipmi_bridging", "no")).lower()
    if bridging not in BRIDGING:
        raise exception.InvalidParameterValue(
            err=f"driver_info/ipmi_bridging must be one of "
                f"{', '.join(BRIDGING)}, got {bridging!r}.")
    needed = {"single": ("ipmi_target_channel", "ipmi_target_address"),
              "dual": ("ipmi_target_channel", "ipmi_target_address",
                       "ipmi_transit_channel", "ipmi_transit_address")}
    missing = [f for f in needed.get(bridging, ()) if not info.get(f)]
    if missing:
        raise exception.MissingParameterValue(
            err=f"driver_info/{', '.join(missing)} required for "
                f"ipmi_bridging={bridging}.")
    kg = info.get("ipmi_hex_kg_key")
    if kg is not None and (len(str(kg)) % 2 or any(
            c not in "0123456789abcdefABCDEF" for c in str(kg))):
        raise exception.InvalidParameterValue(
            err="driver_info/ipmi_hex_kg_key must be an even number of hex "
                "digits.")
    return IpmiTarget(
        address=address,
        port=_int_field(info, "ipmi_port", 1, 65535),
        username=info.get("ipmi_username") or None,
        password=info.get("ipmi_password"),
        protocol_version=version,
        cipher_suite=_int_field(info, "ipmi_cipher_suite", 0, 17),
        priv_level=priv,
        bridging=bridging,
        local_address=info.get("ipmi_local_address"),
        transit_channel=info.get("ipmi_transit_channel"),
        transit_address=info.get("ipmi_transit_address"),
        target_channel=info.get("ipmi_target_channel"),
        target_address=info.get("ipmi_target_address"),
        hex_kg_key=kg,
        terminal_port=_int_field(info, "ipmi_terminal_port", 1, 65535),
    )


class IpmiCommandFailed(exception.IronicException):
    _msg_fmt = "IPMI command '%(command)s' failed on %(bmc)s: %(error)s"


def _base_args(target: IpmiTarget) -> list[str]:
    interface = "lanplus" if target.protocol_version == "2.0" else "lan"
    args = ["ipmitool", "-I", interface, "-H", target.address,
            "-L", target.priv_level]
    if target.port:
        args += ["-p", str(target.port)]
    if target.username:
        args += ["-U", target.username]
    if target.cipher_suite is not None and interface == "lanplus":
        args += ["-C", str(target.cipher_suite)]
    if target.hex_kg_key:
        args += ["-y", target.hex_kg_key]
    if target.bridging in ("single", "dual"):
        args += ["-m", target.local_address or "0x20",
                 "-b", target.target_channel, "-t", target.target_address]
    if target.bridging == "dual":
        args += ["-B", target.transit_channel, "-T", target.transit_address]
    if CONF.ipmi.use_ipmitool_retries:
        args += ["-R", "3"]
    else:
        args += ["-R", "1", "-N", "1"]
    if CONF.ipmi.debug:
        args.append("-v")
    return args


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


def _run_once(target: IpmiTarget, command: list[str],
              timeout: float) -> subprocess.CompletedProcess:
    args = _base_args(target)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "LANG": "C"}
    pwfile = None
    try:
        if target.password is not None:
            if CONF.ipmi.store_cred_in_env:
                env["IPMI_PASSWORD"] = target.password
                args.append("-E")
            else:
                fd, pwfile = tempfile.mkstemp(prefix="ipmi-")
                with os.fdopen(fd, "w") as f:
                    f.write(target.password)
                args += ["-f", pwfile]
        return subprocess.run(args + command, capture_output=True,
                              text=True, env=env, timeout=timeout)
    finally:
        if pwfile:
            os.unlink(pwfile)


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
    bmc = f"{target.address}:{target.port or 623}"
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
            LOG.warning("ipmitool %s on %s failed: %s", " ".join(command),
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
