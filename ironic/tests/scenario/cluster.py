"""A deployment as an operator runs it: one ``ironic-api`` and several
``ironic-conductor`` processes sharing a database and RabbitMQ.

The test process only starts and signals the processes, writes their
configuration files, and reads the database to check what the API does not
show at the advertised microversion (conductor rows, node affinity).
"""

from __future__ import annotations

import dataclasses
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

import requests
import sqlalchemy as sa

from ironic.tests import entry_points
from ironic.tests import fixtures as ifx

ROOT = Path(__file__).resolve().parents[3]
API_VERSION = "1.38"
# Bounds on starting and stopping processes (a broken one must not hang
# the suite); they are not waited for when things work.
START_DEADLINE = 90.0
STOP_DEADLINE = 20.0
PARTITION_EXPONENT = 5
LOG_TAIL = 12000


@dataclasses.dataclass(frozen=True)
class Timeouts:
    """The short timeouts the scenario configures; every bound the tests
    assert is computed from these."""

    heartbeat_interval: int = 1
    # Live conductors' heartbeats were seen 4 s old on two loaded cores
    # (300 deployments in flight); a peer judged dead at 5 s then had its
    # locks broken under running workers.
    heartbeat_timeout: int = 10
    # Takeover (dead locks, orphans, active nodes) runs this often.
    sync_local_state_interval: int = 1
    hash_ring_reset_interval: int = 1
    rpc_response_timeout: int = 15
    graceful_shutdown_timeout: int = 30
    deploy_delay: int = 6
    workers_pool_size: int = 160


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OS_")}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (*entry_points.child_pythonpath(), str(ROOT),
                    env.get("PYTHONPATH")) if p)
    return env


@dataclasses.dataclass
class Process:
    name: str
    argv: list[str]
    log_path: Path
    proc: subprocess.Popen | None = None

    def start(self) -> None:
        out = open(self.log_path.with_suffix(".out"), "wb")
        self.proc = subprocess.Popen(self.argv, cwd=ROOT, env=_child_env(),
                                     stdout=out, stderr=subprocess.STDOUT)
        out.close()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal(self, signum: int) -> None:
        self.proc.send_signal(signum)

    def wait(self, timeout: float) -> int:
        return self.proc.wait(timeout)

    def reap(self, timeout: float) -> None:
        """Wait for the exit; SIGKILL what outlives ``timeout``."""
        if self.proc is None:
            return
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    def logs(self) -> str:
        parts = []
        for path in (self.log_path.with_suffix(".out"), self.log_path):
            if path.exists():
                text = path.read_text(errors="replace")
                parts.append(f"== {path.name} ({len(text)} chars, tail) ==\n"
                             + text[-LOG_TAIL:])
        return "\n".join(parts)

    def error_lines(self) -> list[str]:
        if not self.log_path.exists():
            return []
        return [line for line in self.log_path.read_text(
            errors="replace").splitlines() if " ERROR " in line]


class Cluster:
    """One API and ``conductors`` conductors on ``db_url`` and ``rabbit``."""

    def __init__(self, workdir: Path, db_url: str, rabbit: str,
                 conductors: int = 3, timeouts: Timeouts = Timeouts(),
                 tag: str = "",
                 urls: Callable[[str], tuple[str, str]] | None = None,
                 overrides: Callable[[str], dict] | None = None,
                 extra: dict[str, dict[str, Any]] | None = None):
        """``urls(name)``: the (database, transport) URLs process ``name``
        (``ironic-api`` or a conductor's host) uses instead of ``db_url``
        and ``rabbit`` (through a fault proxy, say); ``overrides(name)``:
        {section: {option: value}} added to its configuration; ``extra``:
        options every process gets on top of the defaults."""
        self.extra = extra or {}
        self.workdir = workdir
        self.db_url = db_url
        self.rabbit = rabbit
        self.timeouts = timeouts
        self._urls = urls or (lambda name: (db_url, rabbit))
        self._overrides = overrides or (lambda name: {})
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.hosts = [f"cond{i}-{tag}" for i in range(conductors)]
        self.api = self._process("ironic-api", "api",
                                 self._write_config("ironic-api", self._api_conf()))
        self.conductors = {
            host: self._process(host, "conductor", self._write_config(
                host, self._conductor_conf(host)))
            for host in self.hosts}
        self.engine = sa.create_engine(db_url, poolclass=sa.pool.NullPool)

    # -- configuration -----------------------------------------------------

    def _common_conf(self, name: str) -> dict[str, dict[str, Any]]:
        t = self.timeouts
        db_url, rabbit = self._urls(name)
        default = {
            "transport_url": rabbit, "rpc_transport": "oslo",
            "auth_strategy": "noauth", "enabled_hardware_types":
            "fake-hardware", "log_file": self.workdir / f"{name}.log",
            "rpc_response_timeout": t.rpc_response_timeout,
            "hash_ring_reset_interval": t.hash_ring_reset_interval,
            "hash_partition_exponent": PARTITION_EXPONENT,
        }
        for kind, names in ifx.TEST_INTERFACES.items():
            default[f"enabled_{kind}_interfaces"] = ",".join(names)
        conf = {
            "DEFAULT": default,
            # Four processes at oslo.db's default 5 + 50 connections could
            # ask for 220, over a stock PostgreSQL's 100: the server then
            # refuses a busy conductor's worker (install/split.rst).
            "database": {"connection": db_url, "max_overflow": 15},
            "conductor": {
                "graceful_shutdown_timeout": t.graceful_shutdown_timeout,
                "heartbeat_interval": t.heartbeat_interval,
                "heartbeat_timeout": t.heartbeat_timeout,
                "sync_local_state_interval": t.sync_local_state_interval,
                "sync_power_state_interval": 0,
                "check_provision_state_interval": 2,
                "workers_pool_size": t.workers_pool_size,
            },
            "dhcp": {"dhcp_provider": "none"},
        }
        for section, values in self.extra.items():
            conf.setdefault(section, {}).update(values)
        return conf

    def _api_conf(self) -> dict[str, dict[str, Any]]:
        conf = self._common_conf("ironic-api")
        conf["api"] = {"host_ip": "127.0.0.1", "port": self.port}
        return conf

    def _conductor_conf(self, host: str) -> dict[str, dict[str, Any]]:
        conf = self._common_conf(host)
        conf["DEFAULT"]["host"] = host
        conf["fake"] = {"deploy_delay": self.timeouts.deploy_delay}
        return conf

    def _write_config(self, name: str, conf: dict) -> Path:
        for section, values in self._overrides(name).items():
            conf.setdefault(section, {}).update(values)
        lines = []
        for section, values in conf.items():
            lines.append(f"[{section}]")
            lines += [f"{k} = {v}" for k, v in values.items()]
            lines.append("")
        path = self.workdir / f"{name}.conf"
        path.write_text("\n".join(lines))
        return path

    def _process(self, name: str, command: str, conf: Path) -> Process:
        return Process(name, [sys.executable, "-m",
                              f"ironic.command.{command}",
                              "--config-file", str(conf)],
                       self.workdir / f"{name}.log")

    # -- life cycle ----------------------------------------------------------

    def start(self) -> Cluster:
        dbsync = subprocess.run(
            [sys.executable, "-m", "ironic.command.dbsync", "--config-file",
             str(self.workdir / "ironic-api.conf"), "upgrade"],
            cwd=ROOT, env=_child_env(), capture_output=True, text=True,
            timeout=START_DEADLINE)
        assert dbsync.returncode == 0, dbsync.stdout + dbsync.stderr
        for proc in (*self.conductors.values(), self.api):
            proc.start()
        wait_for(lambda: self.api_answers(), START_DEADLINE,
                 "the API to answer")
        wait_for(lambda: self.check_alive() and
                 sorted(self.driver_hosts()) == self.hosts,
                 START_DEADLINE, "every conductor to serve fake-hardware")
        return self

    def stop(self) -> None:
        procs = [p for p in (self.api, *self.conductors.values())
                 if p.running]
        for proc in procs:  # all at once: each drains on its own
            proc.signal(signal.SIGTERM)
        for proc in procs:
            proc.reap(STOP_DEADLINE)
        self.engine.dispose()

    def check_alive(self) -> bool:
        """True, or AssertionError naming a process that exited."""
        for proc in (self.api, *self.conductors.values()):
            if proc.proc is not None and proc.proc.poll() is not None:
                raise AssertionError(f"{proc.name} exited with "
                                     f"{proc.proc.returncode}")
        return True

    def api_answers(self) -> bool:
        self.check_alive()
        try:
            return requests.get(self.endpoint + "/", timeout=2).ok
        except requests.RequestException:
            return False

    def driver_hosts(self) -> list[str]:
        """Live conductors serving fake-hardware, as the API reports."""
        resp = requests.get(self.endpoint + "/v1/drivers", timeout=10,
                            headers={"X-OpenStack-Ironic-API-Version":
                                     API_VERSION})
        resp.raise_for_status()
        for driver in resp.json()["drivers"]:
            if driver["name"] == "fake-hardware":
                return driver["hosts"]
        return []

    # -- the database, for what the API does not show ------------------------

    def conductor_rows(self) -> dict[str, dict]:
        with self.engine.connect() as conn:
            rows = conn.execute(sa.text(
                "SELECT id, hostname, online FROM conductors")).mappings()
            return {r["hostname"]: dict(r) for r in rows}

    def node_affinity(self) -> dict[str, int | None]:
        with self.engine.connect() as conn:
            return dict(conn.execute(sa.text(
                "SELECT uuid, conductor_affinity FROM nodes")).all())

    def log_lines(self, name: str, marker: str) -> list[str]:
        """The lines of process ``name``'s log that contain ``marker``."""
        proc = self.conductors.get(name) or self.api
        if not proc.log_path.exists():
            return []
        return [line for line in proc.log_path.read_text(
            errors="replace").splitlines() if marker in line]

    def report(self) -> list[tuple[str, str]]:
        """Log tails of every process, for a failed test's report."""
        return [(f"log of {p.name}", p.logs())
                for p in (self.api, *self.conductors.values())]


def wait_for(predicate: Callable[[], Any], timeout: float,
             what: str | Callable[[], str]) -> Any:
    """The first true value of ``predicate``; AssertionError saying
    ``what`` (a text, or a callable giving one then) after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            what = what() if callable(what) else what
            raise AssertionError(f"timed out after {timeout:.0f} s waiting "
                                 f"for {what}")
        time.sleep(0.25)
