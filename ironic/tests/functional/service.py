"""Run the all-in-one service as a real process and talk to it with clients.

The functional tests never import the API in-process: they start
``python -m ironic.command.singleprocess`` with a configuration file of
their own, on a free loopback port, and drive it over HTTP with the
unmodified openstacksdk and ``openstack baremetal`` CLI.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import bcrypt

import ironic

# The operator configuration the project must start with (issue 2), as an
# operator serving these four hardware types writes it (the public service
# needs the same): the public defaults for everything else, plus the power
# and management interfaces manual-management and fake-hardware use (fake
# power, noop and fake management), which the defaults do not enable.
OPERATOR_DRIVERS = {
    "enabled_hardware_types": "fake-hardware,manual-management,ipmi,redfish",
    "enabled_power_interfaces": "fake,ipmitool,redfish",
    "enabled_management_interfaces": "fake,ipmitool,redfish,noop",
}
# What most functional tests run with: fake-hardware with fake interfaces
# first, so that nodes move through their lifecycle without boot images,
# BMCs or a ramdisk; tests of real interfaces enable those on top.
TEST_DRIVERS = {
    "enabled_hardware_types": "fake-hardware",
    **{f"enabled_{kind}_interfaces": names for kind, names in (
        ("bios", "fake,no-bios"), ("boot", "fake"),
        ("console", "fake,no-console"), ("deploy", "fake"),
        ("firmware", "fake,no-firmware"), ("inspect", "fake,no-inspect"),
        ("management", "fake"), ("network", "noop,flat"),
        ("power", "fake"),
        ("raid", "fake,no-raid"), ("rescue", "fake,no-rescue"),
        ("storage", "fake,noop"), ("vendor", "fake,no-vendor"))},
}
# Bounds, not tuned sleeps: the service normally answers in about a second,
# these only stop a broken start or shutdown from hanging the suite.
START_DEADLINE = 60.0
STOP_DEADLINE = 20.0
CLI_DEADLINE = 120.0
_POLL = 0.05
REPO_ROOT = Path(ironic.__file__).resolve().parent.parent


class ServiceError(RuntimeError):
    """The service did not start or stop as it should."""


def free_port() -> int:
    """A TCP port on loopback nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_htpasswd(path: Path, users: dict[str, str],
                   rounds: int = 4) -> Path:
    """An htpasswd file of bcrypt hashes (cost 4 unless told: most tests
    need no strength)."""
    lines = [f"{user}:"
             f"{bcrypt.hashpw(pw.encode(), bcrypt.gensalt(rounds)).decode()}"
             for user, pw in users.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_config(workdir: Path, port: int, auth_strategy: str = "noauth",
                 htpasswd: Path | None = None,
                 drivers: dict[str, str] | None = None,
                 api: dict[str, str] | None = None,
                 sections: dict[str, dict[str, str]] | None = None
                 ) -> Path:
    """An ironic.conf as an operator would write it, under public names;
    ``sections`` adds option groups of its own ({"inspector": {...}});
    its "DEFAULT" entries replace or add to the defaults here."""
    sections = dict(sections or {})
    default = {"state_path": str(workdir / "state"),
               "auth_strategy": auth_strategy, "rpc_transport": "none",
               "log_file": str(workdir / "ironic.log"),
               **sections.pop("DEFAULT", {})}
    lines = ["[DEFAULT]"] + [f"{k} = {v}" for k, v in default.items()]
    lines += [f"{name} = {value}" for name, value in
              (TEST_DRIVERS if drivers is None else drivers).items()]
    if htpasswd is not None:
        lines.append(f"http_basic_auth_user_file = {htpasswd}")
    lines += ["", "[api]", "host_ip = 127.0.0.1", f"port = {port}"]
    lines += [f"{name} = {value}" for name, value in (api or {}).items()]
    if "dhcp" not in sections:
        lines += ["", "[dhcp]", "dhcp_provider = none", ""]
    # Agent logs collected on failures stay in the test's directory.
    sections["agent"] = {"deploy_logs_local_path":
                         str(workdir / "deploy-logs"),
                         **sections.get("agent", {})}
    for section, options in sections.items():
        lines += [f"[{section}]"]
        lines += [f"{name} = {value}" for name, value in options.items()]
        lines += [""]
    path = workdir / "ironic.conf"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


class Service:
    """One all-in-one ``ironic`` process, started and stopped by a test."""

    def __init__(self, workdir: Path, auth_strategy: str = "noauth",
                 htpasswd: Path | None = None, port: int | None = None,
                 drivers: dict[str, str] | None = None,
                 api: dict[str, str] | None = None,
                 sections: dict[str, dict[str, str]] | None = None,
                 cacert: Path | None = None):
        self.workdir = workdir
        self.port = port or free_port()
        # With a CA the service is expected to serve HTTPS.
        self.cacert = cacert
        scheme = "https" if cacert else "http"
        self.endpoint = f"{scheme}://127.0.0.1:{self.port}"
        self.config = write_config(workdir, self.port, auth_strategy,
                                   htpasswd, drivers, api, sections)
        self.proc: subprocess.Popen | None = None
        self._output = None

    @property
    def log_path(self) -> Path:
        return self.workdir / "ironic.log"

    def start(self) -> Service:
        self._output = open(self.workdir / "stdout.log", "wb")
        self.proc = subprocess.Popen(
            self._command(),
            cwd=self.workdir, env=_child_env(), stdout=self._output,
            stderr=subprocess.STDOUT)
        try:
            self._wait_until_answering()
        except BaseException:
            self.stop()
            raise
        return self

    def _command(self) -> list[str]:
        return [sys.executable, "-m", "ironic.command.singleprocess",
                "--config-file", str(self.config)]

    def _wait_until_answering(self) -> None:
        deadline = time.monotonic() + START_DEADLINE
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ServiceError(f"the service exited with "
                                   f"{self.proc.returncode}:\n{self.logs()}")
            if self._answers():
                return
            time.sleep(_POLL)
        raise ServiceError(f"the service did not answer GET / within "
                           f"{START_DEADLINE}s:\n{self.logs()}")

    def _answers(self) -> bool:
        context = (ssl.create_default_context(cafile=str(self.cacert))
                   if self.cacert else None)
        try:
            with urllib.request.urlopen(self.endpoint + "/", timeout=2,
                                        context=context) as r:
                return r.status == 200
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False

    def stop(self) -> int | None:
        """SIGTERM, then SIGKILL if it outlives the deadline; the exit code.

        Returns None when the process had to be killed.
        """
        if self.proc is None:
            return None
        code: int | None = None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                code = self.proc.wait(STOP_DEADLINE)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        else:
            code = self.proc.returncode
        if self._output is not None:
            self._output.close()
            self._output = None
        return code

    def logs_whole(self) -> str:
        """Everything the service printed and logged, untrimmed."""
        return "\n".join(path.read_text(errors="replace")
                         for path in (self.workdir / "stdout.log",
                                      self.log_path) if path.exists())

    def logs(self) -> str:
        parts = []
        for path in (self.workdir / "stdout.log", self.log_path):
            if path.exists():
                parts.append(path.read_text(errors="replace")[-8000:])
        return "\n".join(parts)


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    # Run this checkout even where the package is not installed, with the
    # plugin metadata the tests published (entry points of setup.cfg).
    from ironic.tests import entry_points
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (*entry_points.child_pythonpath(), str(REPO_ROOT),
                    env.get("PYTHONPATH")) if p)
    for name in list(env):
        if name.startswith("OS_"):
            env.pop(name)
    return env


def cli_executable() -> str:
    """The ``openstack`` script of the environment running the tests."""
    candidate = Path(sys.executable).parent / "openstack"
    if candidate.exists():
        return str(candidate)
    raise ServiceError(f"no openstack CLI next to {sys.executable}")


class CliError(AssertionError):
    def __init__(self, args: list[str], result: subprocess.CompletedProcess):
        super().__init__(f"openstack {' '.join(args)} exited with "
                         f"{result.returncode}:\n{result.stderr}")
        self.result = result


class Cli:
    """``openstack baremetal`` against one endpoint, as a subprocess."""

    def __init__(self, endpoint: str, api_version: str | None = None,
                 env: dict[str, str] | None = None):
        self.endpoint = endpoint
        self.api_version = api_version
        self.env = env

    def run(self, *args: str, check: bool = True
            ) -> subprocess.CompletedProcess:
        argv = [cli_executable(), *self._auth_args()]
        if self.api_version:
            argv += ["--os-baremetal-api-version", self.api_version]
        argv += ["baremetal", *args]
        env = _child_env()
        env.update(self.env or {})
        result = subprocess.run(argv, capture_output=True, text=True,
                                env=env, timeout=CLI_DEADLINE)
        if check and result.returncode != 0:
            raise CliError(list(args), result)
        return result

    def _auth_args(self) -> list[str]:
        if self.env and {"OS_AUTH_TYPE", "OS_CLOUD"} & set(self.env):
            return []
        return ["--os-endpoint", self.endpoint, "--os-auth-type", "none"]

    def json(self, *args: str) -> Any:
        """Run a command with ``-f json`` and parse what it printed."""
        out = self.run(*args, "-f", "json").stdout
        return json.loads(out)


def get_json(url: str, headers: dict[str, str] | None = None) -> Any:
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def max_minor_version(endpoint: str) -> int:
    """The highest 1.N microversion the service advertises."""
    doc = get_json(endpoint + "/")
    return int(doc["default_version"]["version"].split(".")[1])
