"""The ipmitool-socat console: an ipmi node's serial-over-LAN console as a
TCP socket, enabled and disabled through the real ``openstack`` CLI.

Real processes all the way: the service, socat, ipmitool and the IPMI
emulator, whose console prints a banner and echoes what it receives.
"""

from __future__ import annotations

import os
import signal
import socket
import time

import pytest

from ironic.tests.emulators.ipmi_bmc import SOL_BANNER
from ironic.tests.emulators.launch import (
    IpmiEmulator,
    free_tcp_port,
    require_ipmitool,
)
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc

# Bounds only: the console answers within a second when it works.
READ_DEADLINE = 20.0


@pytest.fixture(scope="module")
def bmc():
    require_ipmitool()
    if not os.path.exists("/usr/bin/socat") and not _which("socat"):
        pytest.skip("socat is not installed (tools/install-system-deps.sh)")
    with IpmiEmulator(count=2) as emu:
        yield emu


def _which(name: str) -> str | None:
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if os.access(os.path.join(folder, name), os.X_OK):
            return os.path.join(folder, name)
    return None


@pytest.fixture(scope="module")
def env(bmc, tmp_path_factory):
    pids = tmp_path_factory.mktemp("console-pids")
    drivers = {**svc.OPERATOR_DRIVERS,
               "enabled_console_interfaces": "no-console,ipmitool-socat"}
    sections = {"console": {"socat_address": "127.0.0.1",
                            "terminal_pid_dir": str(pids),
                            "subprocess_checking_interval": "0"},
                "ipmi": {"min_command_interval": "0",
                         "command_retry_timeout": "5"}}
    service = fconf.run_service(tmp_path_factory, "ipmi-console",
                                drivers=drivers, sections=sections)
    server = next(service)
    try:
        yield {"cli": svc.Cli(server.endpoint), "pids": pids,
               "service": server}
    finally:
        _kill_leftovers(pids)
        next(service, None)


def _kill_leftovers(pids) -> None:
    """A failed test may leave a console running: end it by its pid."""
    for path in pids.glob("*.pid"):
        try:
            os.killpg(int(path.read_text()), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def _enroll(env, bmc, index: int, **extra) -> str:
    info = {"ipmi_address": bmc.address, "ipmi_port": bmc.base_port + index,
            "ipmi_username": bmc.user, "ipmi_password": bmc.password,
            **extra}
    args = ["node", "create", "--driver", "ipmi",
            "--console-interface", "ipmitool-socat"]
    for key, value in info.items():
        args += ["--driver-info", f"{key}={value}"]
    return env["cli"].json(*args)["uuid"]


def _read_until(sock: socket.socket, marker: bytes) -> bytes:
    deadline = time.monotonic() + READ_DEADLINE
    data = b""
    while marker not in data:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        chunk = sock.recv(4096)
        assert chunk, f"connection closed; got {data!r}"
        data += chunk
    return data


def _socat_pid(env, uuid: str) -> int:
    return int((env["pids"] / f"{uuid}.pid").read_text())


def _wait_for(what: str, check) -> None:
    """The console starts and stops in a conductor worker after the 202."""
    deadline = time.monotonic() + READ_DEADLINE
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _set_console(env, uuid: str, enabled: bool) -> dict:
    cli = env["cli"]
    cli.run("node", "console", "enable" if enabled else "disable", uuid)
    shown: dict = {}

    def settled() -> bool:
        shown.update(cli.json("node", "console", "show", uuid))
        return shown["console_enabled"] is enabled
    _wait_for(f"console_enabled {enabled}", settled)
    return shown


def _is_socat(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return os.path.basename(f.read().split(b"\0")[0]) == b"socat"
    except OSError:
        return False


def _talk(port: int, bmc, index: int, text: bytes) -> None:
    banner = SOL_BANNER.format(port=bmc.base_port + index).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        assert banner in _read_until(sock, banner)
        sock.sendall(text + b"\r")
        assert text in _read_until(sock, text)


def test_console_enable_connect_echo_disable(env, bmc):
    cli = env["cli"]
    port = free_tcp_port()
    uuid = _enroll(env, bmc, 0, ipmi_terminal_port=port)
    shown = _set_console(env, uuid, True)
    assert shown["console_info"] == {"type": "socat",
                                     "url": f"tcp://127.0.0.1:{port}"}
    pid = _socat_pid(env, uuid)
    assert _is_socat(pid)

    _talk(port, bmc, 0, b"hello-console")

    _set_console(env, uuid, False)
    assert not _is_socat(pid)
    assert not (env["pids"] / f"{uuid}.pid").exists()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    cli.run("node", "delete", uuid)


def test_console_whose_socat_died_is_enabled_again(env, bmc):
    cli = env["cli"]
    port = free_tcp_port()
    uuid = _enroll(env, bmc, 1, ipmi_terminal_port=port)
    _set_console(env, uuid, True)
    old = _socat_pid(env, uuid)
    os.killpg(old, signal.SIGKILL)  # the process the service started
    _wait_for("socat to die", lambda: not _is_socat(old))
    cli.run("node", "console", "enable", uuid)

    def restarted() -> bool:
        try:
            pid = _socat_pid(env, uuid)
        except (OSError, ValueError):  # not (yet, or fully) written
            return False
        return pid != old and _is_socat(pid)
    _wait_for("a new socat", restarted)
    _talk(port, bmc, 1, b"again")
    _set_console(env, uuid, False)
    cli.run("node", "delete", uuid)


def test_enable_without_a_terminal_port_names_it(env, bmc):
    cli = env["cli"]
    uuid = _enroll(env, bmc, 0)
    result = cli.run("node", "console", "enable", uuid, check=False)
    assert result.returncode != 0
    assert "ipmi_terminal_port" in result.stderr
    assert cli.json("node", "console", "show", uuid)[
        "console_enabled"] is False
    cli.run("node", "delete", uuid)


def test_deleting_a_node_ends_its_console(env, bmc):
    port = free_tcp_port()
    uuid = _enroll(env, bmc, 0, ipmi_terminal_port=port)
    _set_console(env, uuid, True)
    pid = _socat_pid(env, uuid)
    assert _is_socat(pid)
    env["cli"].run("node", "delete", uuid)
    assert not _is_socat(pid)
    assert not (env["pids"] / f"{uuid}.pid").exists()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
