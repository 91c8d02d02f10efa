"""Start and stop the BMC emulators as subprocesses on loopback."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time


def require_ipmitool() -> None:
    """Skip the calling test when ipmitool is missing, or fail it under
    CI (CI=true), where tools/install-system-deps.sh installs it: IPMI
    tests that skip there would prove nothing without anyone noticing."""
    if shutil.which("ipmitool"):
        return
    import pytest
    message = "ipmitool is not installed (tools/install-system-deps.sh)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{message}; CI=true requires it", pytrace=False)
    pytest.skip(message)


def free_udp_ports(count: int, address: str = "127.0.0.1") -> int:
    """First of ``count`` consecutive free UDP ports on ``address``."""
    for _ in range(50):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.bind((address, 0))
            base = probe.getsockname()[1]
        if base + count >= 65535:
            continue
        socks = []
        try:
            for port in range(base, base + count):
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                socks.append(s)
                s.bind((address, port))
            return base
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError("no run of free UDP ports found")


def _wait_for_line(proc: subprocess.Popen, marker: str,
                   timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if marker in line:
            return line
        if not line and proc.poll() is not None:
            raise RuntimeError(f"emulator exited with {proc.returncode}")
    raise TimeoutError(f"emulator did not print {marker!r} in {timeout}s")


class IpmiEmulator:
    """N emulated IPMI BMCs in one subprocess (ironic.tests.emulators)."""

    def __init__(self, count: int = 1, user: str = "admin",
                 password: str = "password", power_delay: float = 0,
                 reply_delay: float = 0, address: str = "127.0.0.1",
                 kg_key: str | None = None, state_dir: str | None = None,
                 base_port: int = 0, machine_cmd: str | None = None):
        """``kg_key``: the BMCs' K_g key in hexadecimal (none by default:
        the password's key then serves, as IPMI 2.0 says). ``state_dir``
        (kept) and ``base_port``: machines that outlive the emulator (the
        lab); by default a temporary directory, removed by remove().
        ``machine_cmd``: what the machines run while on (see ipmi_bmc)."""
        self.machine_cmd = machine_cmd
        self.count = count
        self.kg_key = kg_key
        self.user = user
        self.password = password
        self.address = address
        self.power_delay = power_delay
        self.reply_delay = reply_delay
        self._own_dir = state_dir is None
        self.state_dir = state_dir or tempfile.mkdtemp(prefix="ipmi-emu-")
        os.makedirs(self.state_dir, exist_ok=True)
        self.base_port = base_port
        self.proc: subprocess.Popen | None = None

    def start(self) -> IpmiEmulator:
        """Start on free ports, or on the same ones again after stop()."""
        if not self.base_port:
            self.base_port = free_udp_ports(self.count, self.address)
        cmd = [sys.executable, "-u", "-m", "ironic.tests.emulators.ipmi_bmc",
               "--address", self.address, "--base-port", str(self.base_port),
               "--count", str(self.count), "--user", self.user,
               "--password", self.password, "--state-dir", self.state_dir,
               "--power-delay", str(self.power_delay),
               "--reply-delay", str(self.reply_delay)]
        if self.kg_key:
            cmd += ["--kg-key", self.kg_key]
        if self.machine_cmd:
            cmd += ["--machine-cmd", self.machine_cmd]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        _wait_for_line(self.proc, "READY", 30)
        return self

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc and self.proc.stdout:
            self.proc.stdout.close()

    def remove(self) -> None:
        """Stop, and delete the state directory when it is a temporary one
        (a start() after this needs a new emulator)."""
        self.stop()
        if self._own_dir:
            shutil.rmtree(self.state_dir, ignore_errors=True)

    def ports(self) -> list[int]:
        return list(range(self.base_port, self.base_port + self.count))

    def driver_info(self, index: int = 0) -> dict:
        """A node's ``driver_info`` for the ``ipmi`` hardware type that
        reaches BMC ``index``."""
        return {"ipmi_address": self.address,
                "ipmi_port": self.base_port + index,
                "ipmi_username": self.user,
                "ipmi_password": self.password}

    def state(self, index: int = 0) -> dict:
        path = os.path.join(self.state_dir,
                            f"bmc-{self.base_port + index}.json")
        with open(path, encoding="utf-8") as f:
            return json.load(f)

    def __enter__(self) -> IpmiEmulator:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.remove()


def free_tcp_port(address: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((address, 0))
        return probe.getsockname()[1]


def system_uuid(index: int) -> str:
    return f"c0ffee00-0000-4000-8000-{index:012d}"


def system_macs(index: int) -> list[str]:
    return [f"52:54:00:ab:{index % 256:02x}:{nic:02x}" for nic in (0, 1)]


class RedfishEmulator:
    """sushy-tools' emulator with N fake systems, over HTTP on loopback."""

    def __init__(self, count: int = 1, user: str | None = None,
                 password: str | None = None, power_delay: int = 0,
                 address: str = "127.0.0.1",
                 drives: list[dict] | None = None, sessions: bool = True,
                 workdir: str | None = None, port: int = 0):
        """``drives`` ({"Id", "Name", "CapacityBytes", "Protocol"}) give
        every system a Redfish Storage "1" holding them (none by default:
        inspection then reads SimpleStorage). ``sessions``: offer a
        SessionService, as real BMCs do (logins are recorded, see
        ``sessions_journal``). ``workdir`` (kept) and ``port``: systems
        that outlive the emulator (the lab); by default a temporary
        directory, removed on leaving the context."""
        self.count = count
        self.sessions = sessions
        self.drives = drives
        self.user = user
        self.password = password
        self.power_delay = power_delay
        self.address = address
        self.port = port
        self._own_dir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix="redfish-emu-")
        os.makedirs(self.workdir, exist_ok=True)
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://{self.address}:{self.port}"

    def systems(self) -> list[str]:
        return [system_uuid(i) for i in range(self.count)]

    def _write_config(self) -> str:
        systems = [{"uuid": system_uuid(i), "name": f"emulated-{i}",
                    "power_state": "Off", "external_notifier": False,
                    "nics": [{"mac": mac, "ip": "127.0.0.1"}
                             for mac in system_macs(i)]}
                   for i in range(self.count)]
        lines = [f"SUSHY_EMULATOR_LISTEN_IP = {self.address!r}",
                 f"SUSHY_EMULATOR_LISTEN_PORT = {self.port}",
                 "SUSHY_EMULATOR_FAKE_DRIVER = True",
                 f"SUSHY_EMULATOR_STATE_DIR = {self.state_dir!r}",
                 f"SUSHY_EMULATOR_FAKE_SYSTEMS = {systems!r}"]
        if self.drives:
            lines.extend(self._storage_config())
        if self.user:
            htpasswd = os.path.join(self.workdir, "htpasswd")
            import bcrypt
            hashed = bcrypt.hashpw(self.password.encode(),
                                   bcrypt.gensalt(4)).decode()
            with open(htpasswd, "w", encoding="utf-8") as f:
                f.write(f"{self.user}:{hashed}\n")
            lines.append(f"SUSHY_EMULATOR_AUTH_FILE = {htpasswd!r}")
        path = os.path.join(self.workdir, "emulator.conf")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        return path

    @property
    def state_dir(self) -> str:
        return os.path.join(self.workdir, "state")

    @property
    def media_dir(self) -> str:
        return os.path.join(self.workdir, "media")

    def downloaded_media(self, name: str) -> list[str]:
        """Paths of the copies of virtual media image ``name`` (base name
        of its URL) the emulator downloaded and still holds."""
        found = []
        for top, _dirs, files in os.walk(self.media_dir):
            found.extend(os.path.join(top, f) for f in files if f == name)
        return sorted(found)

    def resets(self, index: int = 0) -> dict[str, int]:
        """How often system ``index`` was asked for each reset type
        (``On``, ``ForceOff``, ``GracefulShutdown``, ``Nmi``...)."""
        path = os.path.join(self.state_dir,
                            f"resets-{system_uuid(index)}.json")
        try:
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        except FileNotFoundError:
            return {}

    def reset_journal(self) -> list[tuple[float, str, str]]:
        """Every reset any system was asked for: (unix time, system uuid,
        action), in order."""
        path = os.path.join(self.state_dir, "resets.log")
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            return []
        out = []
        for line in lines:
            when, uuid, action = line.split()
            out.append((float(when), uuid, action))
        return out

    @property
    def sessions_path(self) -> str:
        return os.path.join(self.workdir, "sessions.json")

    def sessions_journal(self) -> dict:
        """Logins since the emulator started: ``created`` and ``refused``
        (user names, in order) and the count of ``deleted`` sessions."""
        with open(self.sessions_path, encoding="utf-8") as f:
            return json.load(f)

    @property
    def control_path(self) -> str:
        return os.path.join(self.workdir, "control.json")

    def set_faults(self, reply_delay: float = 0,
                   health: dict[str, str] | None = None) -> None:
        """Change the fault knobs of the running emulator (redfish_bmc):
        every answer ``reply_delay`` s late, per-system Status.Health."""
        tmp = self.control_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"reply_delay": reply_delay, "health": health or {}},
                      f)
        os.replace(tmp, self.control_path)

    def _storage_config(self) -> list[str]:
        storage, drives, volumes = {}, {}, {}
        for uuid in self.systems():
            storage[uuid] = [{
                "Id": "1", "Name": "Local Storage Controller",
                "StorageControllers": [{"MemberId": "0", "SpeedGbps": 12,
                                        "Name": "Emulated RAID"}],
                "Drives": [d["Id"] for d in self.drives]}]
            drives[(uuid, "1")] = [dict(d) for d in self.drives]
            volumes[(uuid, "1")] = []
        return [f"SUSHY_EMULATOR_STORAGE = {storage!r}",
                f"SUSHY_EMULATOR_DRIVES = {drives!r}",
                f"SUSHY_EMULATOR_VOLUMES = {volumes!r}"]

    def start(self) -> RedfishEmulator:
        """Start on a free port, or on the same one again after stop()."""
        import requests

        if not self.port:
            self.port = free_tcp_port(self.address)
        config = self._write_config()
        cmd = [sys.executable, "-m", "ironic.tests.emulators.redfish_bmc",
               "--config", config, "--power-delay", str(self.power_delay),
               "--control", self.control_path]
        if self.sessions:
            cmd += ["--sessions", self.sessions_path]
        # Virtual media the emulator downloads land in its temporary
        # directory: ours, so tests can open what the BMC really fetched.
        os.makedirs(self.media_dir, exist_ok=True)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL,
                                     env=dict(os.environ,
                                              TMPDIR=self.media_dir))
        deadline = time.monotonic() + 30
        auth = (self.user, self.password) if self.user else None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the Redfish emulator exited with "
                                   f"{self.proc.returncode}")
            try:
                if requests.get(f"{self.url}/redfish/v1/Systems", auth=auth,
                                timeout=1).ok:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.1)
        self.stop()
        raise TimeoutError("the Redfish emulator did not answer in 30s")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def remove(self) -> None:
        """Stop, and delete the work directory when it is a temporary
        one."""
        self.stop()
        if self._own_dir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> RedfishEmulator:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.remove()
