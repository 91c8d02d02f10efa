"""IPMI BMC emulator on pyghmi's server side, for tests and the demo lab.

One process serves several emulated BMCs, each on its own UDP port of a
loopback address, speaking IPMI 2.0 over LAN (RMCP+), which is what
``ipmitool -I lanplus`` and pyghmi clients use. Each BMC models one machine:
power state, boot device with its persistent and UEFI flags, counters
(power changes, NMIs, warm and cold BMC resets) and a few sensors in an SDR
repository (``ipmi_sdr``). Its serial-over-LAN console prints a banner
(``SOL_BANNER``) and echoes what it receives.
After every change it writes its state to ``<state-dir>/bmc-<port>.json`` so
a test can check what the "machine" did without going through IPMI.

Fault knobs for tests: ``--power-delay`` (power changes land late) and
``--reply-delay`` (every answer is late: a slow BMC). ``--kg-key HEX`` sets
the BMC's K_g key (IPMI 2.0 two-key login).

``--machine-cmd CMD`` gives the machines something to run: CMD (split like
a shell command line, ``{port}`` replaced by the BMC's port and ``{mac}``
by the machine's NIC, ``machine_mac(port)``) is started
when a machine powers on, restarted when it is reset and stopped (its
whole process group) when it powers off or the emulator exits - e.g. an
agent ramdisk "booting" (``python -m ironic.tests.emulators.agent``). Its
output goes to ``<state-dir>/machine-<port>.log``; the state file counts
the ``boots``.

    python -m ironic.tests.emulators.ipmi_bmc --base-port 6230 --count 2 \
        --state-dir /tmp/bmcs
"""

from __future__ import annotations

import argparse
import atexit
import json
import logging
import os
import shlex
import signal
import struct
import subprocess
import sys
import threading
import time
import uuid

import pyghmi.ipmi.bmc as pyghmi_bmc
import pyghmi.ipmi.console as pyghmi_console
import pyghmi.ipmi.private.session as ipmi_session

from ironic.tests.emulators import ipmi_sdr

LOG = logging.getLogger("ipmi-emulator")

# Boot device selector values of the IPMI boot flags parameter (#5).
SELECTOR_NAMES = {0x0: "default", 0x1: "pxe", 0x2: "disk", 0x3: "safe",
                  0x4: "diag", 0x5: "cdrom", 0x6: "bios", 0xf: "floppy"}
NAME_SELECTORS = {v: k for k, v in SELECTOR_NAMES.items()}
_VALID, _PERSISTENT, _EFI = 0x80, 0x40, 0x20
SOL_BANNER = "emulated console of machine {port}\r\nlogin: "


def machine_mac(port: int) -> str:
    """The MAC address of the NIC of the machine behind BMC ``port``."""
    return f"52:54:00:cc:{(port >> 8) & 0xff:02x}:{port & 0xff:02x}"


class Machine:
    """What the emulated server is doing; shared with the state file."""

    def __init__(self, port: int, state_dir: str | None):
        self.port = port
        self.guid = uuid.uuid5(uuid.NAMESPACE_URL, f"ipmi-bmc-{port}")
        self.power = "off"
        self.bootdev = "default"
        self.persistent = False
        self.uefi = False
        self.power_changes = 0
        self.nmi_count = 0
        self.bmc_resets = {"warm": 0, "cold": 0}
        # Chassis identify LED: "off", "timed" or "on" (forced on).
        self.identify = "off"
        self.boots = 0
        #: The machine's program (--machine-cmd), run while it is on.
        self.command: list[str] | None = None
        self.process: subprocess.Popen | None = None
        self.state_path = (os.path.join(state_dir, f"bmc-{port}.json")
                           if state_dir else None)
        self.lock = threading.Lock()
        self._load()
        self.save()

    def _load(self) -> None:
        """A machine restarted on a state directory it used before is the
        same machine: power, boot device and counters carry on."""
        if not self.state_path or not os.path.exists(self.state_path):
            return
        try:
            with open(self.state_path, encoding="utf-8") as f:
                saved = json.load(f)
        except (OSError, ValueError):
            return
        for key in ("power", "bootdev", "persistent", "uefi",
                    "power_changes", "nmi_count", "identify", "boots"):
            if key in saved:
                setattr(self, key, saved[key])
        self.bmc_resets = dict(saved.get("bmc_resets") or self.bmc_resets)

    def as_dict(self) -> dict:
        return {"port": self.port, "guid": str(self.guid),
                "power": self.power, "bootdev": self.bootdev,
                "persistent": self.persistent, "uefi": self.uefi,
                "power_changes": self.power_changes,
                "nmi_count": self.nmi_count, "identify": self.identify,
                "bmc_resets": dict(self.bmc_resets), "boots": self.boots,
                "running": self.running()}

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def boot(self, restart: bool) -> None:
        """Power on (or reset): start the machine's program (again)."""
        if self.command is None or (self.running() and not restart):
            return
        self.halt()
        log = os.path.join(os.path.dirname(self.state_path or "."),
                           f"machine-{self.port}.log")
        with open(log, "ab") as out:
            self.process = subprocess.Popen(
                [arg.replace("{port}", str(self.port)).replace(
                    "{mac}", machine_mac(self.port)) for arg in self.command],
                stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True)
        self.boots += 1

    def halt(self) -> None:
        """Power off: stop the machine's program and all it started."""
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        except ProcessLookupError:
            pass

    def shut_down(self) -> None:
        """The emulator exits: the program stops, the state says so (the
        power state stays: the machine is found on at the next start)."""
        with self.lock:
            self.halt()
            self.save()

    def save(self) -> None:
        if not self.state_path:
            return
        tmp = self.state_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self.as_dict(), f)
        os.replace(tmp, self.state_path)


# Get Device ID: "additional device support" bits of what we answer.
_SENSOR_DEVICE, _SDR_REPOSITORY = 0x01, 0x02
_WARM_RESET = 0x03


class EmulatedBmc(pyghmi_bmc.Bmc):
    def __init__(self, authdata: dict, port: int, address: str,
                 machine: Machine, power_delay: float, reply_delay: float,
                 kg_key: bytes | None = None):
        self.machine = machine
        self.power_delay = power_delay
        self.reply_delay = reply_delay
        self.sdr = ipmi_sdr.Repository()
        super().__init__(authdata, port=port, bmcuuid=machine.guid,
                         address=address)
        self.additionaldevices = _SENSOR_DEVICE | _SDR_REPOSITORY
        # pyghmi answers SOL commands only when there is a handler.
        self.iohandler = self._sol_input
        if kg_key:
            self.set_kg(kg_key)

    # pyghmi calls these from its receive loop --------------------------

    def handle_raw_request(self, request, session):
        if self.reply_delay:
            time.sleep(self.reply_delay)
        netfn, command = request["netfn"], request["command"]
        if netfn == 0 and command == 4:
            return self.chassis_identify(request, session)
        if netfn == 6 and command == _WARM_RESET:
            return session.send_ipmi_response(code=self._count_reset("warm"))
        if self.sdr.handles(netfn, command):
            code, data = self.sdr.answer(netfn, command,
                                         list(request.get("data") or []),
                                         self.machine.power == "on")
            return session.send_ipmi_response(data=data, code=code)
        return super().handle_raw_request(request, session)

    def _count_reset(self, kind: str) -> int:
        with self.machine.lock:
            self.machine.bmc_resets[kind] += 1
            self.machine.save()
        return 0

    def get_chassis_status(self, session):
        # Power state, and the identify LED (bits 5:4) with bit 6 saying
        # the BMC reports it.
        led = {"off": 0, "timed": 1, "on": 2}[self.machine.identify]
        power = 1 if self.machine.power == "on" else 0
        session.send_ipmi_response(data=[power, 0, 0x40 | (led << 4)])

    def chassis_identify(self, request, session):
        data = list(request.get("data") or [])
        interval = data[0] if data else 15
        forced = len(data) > 1 and data[1] & 0x01
        with self.machine.lock:
            self.machine.identify = "on" if forced else (
                "timed" if interval else "off")
            self.machine.save()
        session.send_ipmi_response()

    def get_system_guid(self):
        return self.machine.guid

    def cold_reset(self):
        return self._count_reset("cold")

    def get_power_state(self):
        return self.machine.power

    def _set_power(self, state: str, count: bool = True,
                   restart: bool = False) -> int:
        def apply():
            with self.machine.lock:
                if state == "on":
                    self.machine.boot(restart or self.machine.power != "on")
                else:
                    self.machine.halt()
                self.machine.power = state
                if count:
                    self.machine.power_changes += 1
                if state == "on" and not self.machine.persistent:
                    # A one-time boot device is consumed by the boot.
                    self.machine.bootdev = "default"
                self.machine.save()
        if self.power_delay:
            threading.Timer(self.power_delay, apply).start()
        else:
            apply()
        return 0

    def power_on(self):
        return self._set_power("on")

    def power_off(self):
        return self._set_power("off")

    def power_shutdown(self):
        return self._set_power("off")

    def power_cycle(self):
        if self.machine.power == "off":
            return 0xd5  # not supported in present state
        return self._set_power("on", restart=True)

    def power_reset(self):
        return self._set_power("on", restart=True)

    def pulse_diag(self):
        with self.machine.lock:
            self.machine.nmi_count += 1
            self.machine.save()
        return 0

    # Serial over LAN: a banner, then every byte the client sends comes
    # back, as from a machine waiting at its login prompt.

    def activate_payload(self, request, session):
        # Unlike pyghmi's, a powered-off machine has a console too (as on
        # real BMCs); only one SOL session at a time.
        if self.activated:
            return session.send_ipmi_response(code=0x80)
        self.activated = True
        port = list(struct.pack("!H", self.port))
        session.send_ipmi_response(
            data=[0, 0, 0, 0, 1, 0, 1, 0] + port + [0xff, 0xff])
        self.sol = pyghmi_console.ServerConsole(session, self._sol_input)
        self.sol.send_data(SOL_BANNER.format(port=self.port).encode())

    def _sol_input(self, data):
        if isinstance(data, bytes) and self.sol is not None:
            self.sol.send_data(data)

    def is_active(self):
        return self.machine.power == "on"

    def get_system_boot_options(self, request, session):
        if request["data"][0] != 5:
            return session.send_ipmi_response(code=0x80)
        m = self.machine
        flags = _VALID | (_PERSISTENT if m.persistent else 0) | \
            (_EFI if m.uefi else 0)
        selector = NAME_SELECTORS.get(m.bootdev, 0)
        return session.send_ipmi_response(
            data=[1, 5, flags, selector << 2, 0, 0, 0])

    def set_system_boot_options(self, request, session):
        data = request["data"]
        if data[0] in (0, 3, 4):
            return session.send_ipmi_response()
        if data[0] != 5 or len(data) < 3:
            return session.send_ipmi_response(code=0xcc)
        name = SELECTOR_NAMES.get((data[2] >> 2) & 0x0f)
        if name is None:
            return session.send_ipmi_response(code=0xcc)
        with self.machine.lock:
            self.machine.bootdev = name
            self.machine.persistent = bool(data[1] & _PERSISTENT)
            self.machine.uefi = bool(data[1] & _EFI)
            self.machine.save()
        return session.send_ipmi_response()


def serve(address: str, base_port: int, count: int, user: str,
          password: str, state_dir: str | None, power_delay: float = 0,
          reply_delay: float = 0, kg_key: bytes | None = None,
          machine_cmd: str | None = None) -> list[EmulatedBmc]:
    if state_dir:
        os.makedirs(state_dir, exist_ok=True)
    bmcs = []
    for i in range(count):
        port = base_port + i
        machine = Machine(port, state_dir)
        if machine_cmd:
            machine.command = shlex.split(machine_cmd)
            # A machine found on: it runs its program again.
            if machine.power == "on":
                machine.boot(restart=True)
                machine.save()
        atexit.register(machine.shut_down)
        bmcs.append(EmulatedBmc({user: password}, port, address, machine,
                                power_delay, reply_delay, kg_key))
    return bmcs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default="127.0.0.1")
    parser.add_argument("--base-port", type=int, default=6230)
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--user", default="admin")
    parser.add_argument("--password", default="password")
    parser.add_argument("--state-dir")
    parser.add_argument("--power-delay", type=float, default=0)
    parser.add_argument("--reply-delay", type=float, default=0)
    parser.add_argument("--kg-key", type=bytes.fromhex, default=None,
                        help="the BMC's K_g key, in hexadecimal")
    parser.add_argument("--machine-cmd",
                        help="run while a machine is on ({port}: its BMC's)")
    args = parser.parse_args(argv)
    if not args.address.startswith("127.") and args.address != "::1":
        parser.error("the emulator only listens on loopback addresses")
    logging.basicConfig(level=logging.INFO)
    # SIGTERM ends the process through its exit handlers: the machines'
    # programs stop with it.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    serve(args.address, args.base_port, args.count, args.user,
          args.password, args.state_dir, args.power_delay, args.reply_delay,
          args.kg_key, args.machine_cmd)
    print(f"READY {args.count} BMCs on {args.address} udp "
          f"{args.base_port}-{args.base_port + args.count - 1}", flush=True)
    while True:
        ipmi_session.Session.wait_for_rsp(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
