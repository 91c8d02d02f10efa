"""console_utils and the ipmitool-socat console: command lines, pid
files, ports and validation.

Only spawning is replaced: the fake Popen records what socat would have
been given and runs a harmless stand-in (sleep, or a shell that fails) in
its place, so that waiting, killing and reaping are real.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import types

import pytest

from ironic.common import exception
from ironic.drivers.modules import console_utils, ipmi_client, ipmitool_console

UUID = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
INFO = {"ipmi_address": "127.0.0.1", "ipmi_username": "admin",
        "ipmi_password": "s3cret"}


@pytest.fixture(autouse=True)
def _console_conf(config, tmp_path):
    config("console", socat_address="127.0.0.1",
           terminal_pid_dir=str(tmp_path / "pids"), subprocess_timeout=5,
           subprocess_checking_interval=0,
           kill_timeout=1)
    yield
    for uuid in list(console_utils._CHILDREN):
        console_utils.stop_socat_console(uuid)
    console_utils._ALLOCATED.clear()


_REAL_POPEN = subprocess.Popen


class FakePopen:
    """Stands in for socat: records its arguments and runs ``standin``."""

    calls: list[dict] = []
    standin = ["sleep", "60"]

    def __new__(cls, args, **kwargs):
        cls.calls.append({"args": args, **kwargs})
        kwargs.pop("env", None)
        return _REAL_POPEN(cls.standin, **kwargs)


@pytest.fixture
def popen(monkeypatch):
    FakePopen.calls = []
    FakePopen.standin = ["sleep", "60"]
    monkeypatch.setattr(console_utils.subprocess, "Popen", FakePopen)
    return FakePopen


@contextlib.contextmanager
def listener(port: int = 0):
    """A socket listening on loopback, as socat would."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))
        sock.listen()
        yield sock.getsockname()[1]


def free_pair() -> int:
    """First of two consecutive free TCP ports on loopback."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            first = probe.getsockname()[1]
        if first < 65535 and console_utils._port_free(first + 1):
            return first
    raise RuntimeError("no two consecutive free ports")


def _command():
    return ipmi_client.console_command(ipmi_client.parse_driver_info(INFO))


def test_console_command_keeps_the_password_in_the_environment():
    args, env = _command()
    assert args[-3:] == ["-E", "sol", "activate"]
    assert "s3cret" not in " ".join(args)
    assert env["IPMI_PASSWORD"] == "s3cret"


def test_console_command_passes_kg_key_in_the_environment():
    target = ipmi_client.parse_driver_info({**INFO,
                                            "ipmi_hex_kg_key": "0a0b"})
    args, env = ipmi_client.console_command(target)
    assert "-K" in args and "0a0b" not in " ".join(args)
    assert env[b"IPMI_KGKEY"] == b"\x0a\x0b"


def test_socat_command_line():
    args = console_utils.socat_command(4321, ["ipmitool", "-E", "sol",
                                              "activate"])
    assert args == [
        "socat", "-T600",
        "TCP4-LISTEN:4321,bind=127.0.0.1,reuseaddr,fork,max-children=1",
        'EXEC:"ipmitool -E sol activate",pty,stderr']


def test_socat_command_ipv6_and_no_timeout(config):
    config("console", socat_address="::1", terminal_timeout=0)
    args = console_utils.socat_command(4321, ["ipmitool"])
    assert args[1].startswith("TCP6-LISTEN:4321,bind=::1,")
    assert console_utils.console_url(4321) == "tcp://[::1]:4321"


@pytest.mark.parametrize("arg", ["a b", "a,b", 'a"b', "a!!b", ""])
def test_socat_command_refuses_arguments_socat_would_misread(arg):
    with pytest.raises(exception.InvalidParameterValue):
        console_utils.socat_command(4321, ["ipmitool", "-U", arg])


def test_start_writes_pid_file_and_stop_kills_and_removes_it(popen):
    args, env = _command()
    with listener() as port:
        console_utils.start_socat_console(UUID, port, args, env)
    call = popen.calls[0]
    assert call["args"][0] == "socat"
    assert "s3cret" not in " ".join(call["args"])
    assert call["env"]["IPMI_PASSWORD"] == "s3cret"
    assert call["start_new_session"] is True
    path = console_utils.pid_path(UUID)
    with open(path) as f:
        pid = int(f.read())
    assert console_utils.is_running(UUID)
    console_utils.stop_socat_console(UUID)
    assert not os.path.exists(path)
    assert not os.path.exists(f"/proc/{pid}")
    assert not console_utils.is_running(UUID)
    console_utils.stop_socat_console(UUID)  # idempotent


def test_start_reports_a_process_that_died_with_its_output(popen):
    popen.standin = ["sh", "-c", "echo 'E bind: Address in use' >&2; "
                                 "exit 1"]
    args, env = _command()
    with pytest.raises(exception.ConsoleSubprocessFailed) as info:
        console_utils.start_socat_console(UUID, 1, args, env)
    assert "Address in use" in str(info.value)
    assert "status 1" in str(info.value)
    assert not os.path.exists(console_utils.pid_path(UUID))


def test_start_gives_up_when_nothing_listens(popen, config):
    config("console", subprocess_timeout=1)
    args, env = _command()
    port = free_pair()
    with pytest.raises(exception.ConsoleSubprocessFailed,
                       match="did not listen"):
        console_utils.start_socat_console(UUID, port, args, env)
    assert not os.path.exists(console_utils.pid_path(UUID))
    assert console_utils._CHILDREN == {}


def test_stop_ignores_a_stale_pid_file(tmp_path):
    os.makedirs(console_utils.pid_dir(), exist_ok=True)
    with open(console_utils.pid_path(UUID), "w") as f:
        f.write(f"{os.getpid()}\n")  # not socat: must not be killed
    console_utils.stop_socat_console(UUID)
    assert not os.path.exists(console_utils.pid_path(UUID))


def test_ports_from_range_are_not_shared(config):
    first = free_pair()
    config("console", port_range=f"{first}:{first + 1}")
    assert console_utils.acquire_port("a") == first
    assert console_utils.acquire_port("b") == first + 1
    assert console_utils.acquire_port("a") == first
    with pytest.raises(exception.ConsoleError, match="No free port"):
        console_utils.acquire_port("c")
    console_utils.release_port("a")
    assert console_utils.acquire_port("c") == first


def test_ports_in_use_are_skipped(config):
    with listener() as busy:
        config("console", port_range=f"{busy}:{busy}")
        with pytest.raises(exception.ConsoleError):
            console_utils.acquire_port("a")


def test_no_port_range_names_the_driver_info_field():
    with pytest.raises(exception.MissingParameterValue,
                       match="ipmi_terminal_port"):
        console_utils.acquire_port("a")


def test_port_range_option_is_checked(config):
    for bad in ("10", "20:10", "0:10", "a:b", "1:70000"):
        with pytest.raises(ValueError):
            config("console", port_range=bad)


# The interface ----------------------------------------------------------

def _task(**info):
    node = types.SimpleNamespace(uuid=UUID, driver_info={**INFO, **info},
                                 driver_internal_info={})
    return types.SimpleNamespace(node=node)


def test_validate_needs_a_port_or_a_range(config):
    console = ipmitool_console.IPMISocatConsole()
    with pytest.raises(exception.MissingParameterValue,
                       match="ipmi_terminal_port"):
        console.validate(_task())
    console.validate(_task(ipmi_terminal_port=4321))
    config("console", port_range="4000:4010")
    console.validate(_task())


def test_validate_checks_driver_info():
    with pytest.raises(exception.InvalidParameterValue,
                       match="ipmi_terminal_port"):
        ipmitool_console.IPMISocatConsole().validate(
            _task(ipmi_terminal_port="nope"))


def test_get_console_url():
    console = ipmitool_console.IPMISocatConsole()
    assert console.get_console(_task(ipmi_terminal_port=4321)) == {
        "type": "socat", "url": "tcp://127.0.0.1:4321"}
    task = _task()
    task.node.driver_internal_info = {
        ipmitool_console.ALLOCATED_PORT: 4000}
    assert console.get_console(task)["url"] == "tcp://127.0.0.1:4000"


def test_start_and_stop_with_an_allocated_port(popen, config, monkeypatch):
    sol = []
    monkeypatch.setattr(ipmitool_console.ipmi_client, "run",
                        lambda target, cmd, **kw: sol.append(cmd))
    with listener() as port:
        config("console", port_range=f"{port}:{port}")
        monkeypatch.setattr(console_utils, "_port_free", lambda p: True)
        task = _task()
        console = ipmitool_console.IPMISocatConsole()
        console.start_console(task)
        assert task.node.driver_internal_info == {
            ipmitool_console.ALLOCATED_PORT: port}
        assert console.is_console_running(task)
    console.stop_console(task)
    assert task.node.driver_internal_info == {}
    assert not console.is_console_running(task)
    assert sol == [["sol", "deactivate"], ["sol", "deactivate"]]
    assert console_utils._ALLOCATED == {}
