"""Serial consoles served over TCP by socat processes.

One socat per node listens on ``[console]socat_address`` and, for each
client (one at a time), runs the console command on a pseudo terminal. The
process runs in its own process group so that stopping it also ends the
console command; its pid is kept in ``<terminal_pid_dir>/<node uuid>.pid``
so that a conductor that restarts can still stop it.

Secrets reach the console command only through the environment the caller
gives: nothing here logs or stores that environment.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import subprocess
import tempfile
import threading
import time

from ironic.common import exception
from ironic.conf import CONF
from ironic.conf import console as console_conf

LOG = logging.getLogger(__name__)

# Ports taken from [console]port_range, by node UUID, so that two nodes
# never get the same one from this conductor.
_ALLOCATED: dict[str, int] = {}
_LOCK = threading.Lock()
# The socat processes this conductor started, so that they are reaped.
_CHILDREN: dict[str, subprocess.Popen] = {}
# Characters socat would read as part of its address syntax, or that
# would split an argument of the command it runs.
_UNSAFE = set(' \t\n"\',!\\')
_LISTEN = "0A"  # TCP state number of a listening socket in /proc/net/tcp


def pid_dir() -> str:
    return CONF.console.terminal_pid_dir or tempfile.gettempdir()


def pid_path(node_uuid: str) -> str:
    return os.path.join(pid_dir(), f"{node_uuid}.pid")


def _log_path(node_uuid: str) -> str:
    return os.path.join(pid_dir(), f"{node_uuid}.socat.log")


def console_url(port: int) -> str:
    """Where a client connects to the console listening on ``port``."""
    address = CONF.console.socat_address
    host = f"[{address}]" if ":" in address else address
    return f"tcp://{host}:{port}"


# Ports ---------------------------------------------------------------

def _port_free(port: int) -> bool:
    family = socket.AF_INET6 if ":" in CONF.console.socat_address \
        else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((CONF.console.socat_address, port))
        except OSError:
            return False
    return True


def acquire_port(node_uuid: str, preferred: int | None = None) -> int:
    """A free port of ``[console]port_range`` for the node: the one it
    already holds, else ``preferred`` when still free, else the first
    port no other node holds and nothing listens on."""
    ports = console_conf.port_range(CONF)
    if ports is None:
        raise exception.MissingParameterValue(
            err="driver_info/ipmi_terminal_port is required for the "
                "console when [console]port_range is not set.")
    with _LOCK:
        if node_uuid in _ALLOCATED:
            return _ALLOCATED[node_uuid]
        taken = set(_ALLOCATED.values())
        candidates = ([preferred] if preferred is not None
                      and preferred in ports else []) + \
            list(ports)
        for port in candidates:
            if port not in taken and _port_free(port):
                _ALLOCATED[node_uuid] = port
                return port
    raise exception.ConsoleError(
        error=f"No free port left in [console]port_range "
              f"{CONF.console.port_range} for the console of node "
              f"{node_uuid}.")


def release_port(node_uuid: str) -> None:
    with _LOCK:
        _ALLOCATED.pop(node_uuid, None)


# Processes -----------------------------------------------------------

def socat_command(port: int, console_cmd: list[str]) -> list[str]:
    """socat's command line: listen on the port, one client at a time,
    running ``console_cmd`` on a pseudo terminal for each."""
    for arg in console_cmd:
        if not arg or _UNSAFE & set(arg):
            raise exception.InvalidParameterValue(
                err=f"The console command cannot carry the argument "
                    f"{arg!r}: socat would misread it.")
    address = CONF.console.socat_address
    listen = "TCP6-LISTEN" if ":" in address else "TCP4-LISTEN"
    args = ["socat"]
    if CONF.console.terminal_timeout:
        args.append(f"-T{CONF.console.terminal_timeout}")
    return args + [
        f"{listen}:{port},bind={address},reuseaddr,fork,max-children=1",
        f"EXEC:\"{' '.join(console_cmd)}\",pty,stderr"]


def _read_pid(node_uuid: str) -> int | None:
    try:
        with open(pid_path(node_uuid), encoding="ascii") as f:
            return int(f.read().strip())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        LOG.warning("Unreadable console pid file %s; ignoring it",
                    pid_path(node_uuid))
        return None


def _is_socat(pid: int) -> bool:
    """Whether ``pid`` still runs socat (a pid file may outlive its
    process, and the pid be reused by another program)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv0 = f.read().split(b"\0", 1)[0]
    except OSError:
        return False
    return os.path.basename(argv0) == b"socat"


def _listening(port: int) -> bool:
    """Whether some socket listens on ``port`` (socat binds it alone:
    another listener would have made it exit)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == _LISTEN and \
                    int(fields[1].rsplit(":", 1)[1], 16) == port:
                return True
    return False


def _failure_text(node_uuid: str, proc: subprocess.Popen) -> str:
    try:
        with open(_log_path(node_uuid), encoding="utf-8",
                  errors="replace") as f:
            output = f.read().strip()
    except OSError:
        output = ""
    return (f"socat exited with status {proc.returncode}"
            + (f": {output}" if output else "."))


def _wait_listening(node_uuid: str, proc: subprocess.Popen,
                    port: int) -> None:
    deadline = time.monotonic() + CONF.console.subprocess_timeout
    while True:
        if proc.poll() is not None:
            error = _failure_text(node_uuid, proc)
            _forget(node_uuid)
            raise exception.ConsoleSubprocessFailed(error=error)
        if _listening(port):
            return
        if time.monotonic() >= deadline:
            stop_socat_console(node_uuid)
            raise exception.ConsoleSubprocessFailed(
                error=f"socat did not listen on port {port} within "
                      f"{CONF.console.subprocess_timeout} s.")
        # 0 asks for the quickest check that does not spin.
        time.sleep(CONF.console.subprocess_checking_interval or 0.05)


def start_socat_console(node_uuid: str, port: int, console_cmd: list[str],
                        env: dict) -> None:
    """Start (or restart) the node's console on ``port``; returns once
    socat listens. ``env`` is the whole environment of the process."""
    args = socat_command(port, console_cmd)
    stop_socat_console(node_uuid, release=False)
    try:
        os.makedirs(pid_dir(), mode=0o700, exist_ok=True)
        log = open(_log_path(node_uuid), "wb")
    except OSError as e:
        raise exception.ConsoleError(
            error=f"Cannot create the console files in {pid_dir()}: "
                  f"{e.strerror}") from e
    LOG.info("Starting the console of node %s on port %s: %s", node_uuid,
             port, " ".join(args))
    with log:
        try:
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=log,
                                    env=env, start_new_session=True)
        except OSError as e:
            raise exception.ConsoleSubprocessFailed(
                error=f"Cannot run socat: {e.strerror}") from e
    _CHILDREN[node_uuid] = proc
    _write_pid(node_uuid, proc)
    _wait_listening(node_uuid, proc, port)


def _write_pid(node_uuid: str, proc: subprocess.Popen) -> None:
    try:
        with open(pid_path(node_uuid), "w", encoding="ascii") as f:
            f.write(f"{proc.pid}\n")
    except OSError as e:
        _kill_group(proc.pid)
        raise exception.ConsoleError(
            error=f"Cannot write the console pid file "
                  f"{pid_path(node_uuid)}: {e.strerror}") from e


def _gone(pid: int) -> bool:
    # A copy: other nodes' consoles start and stop in other threads.
    child = next((p for p in list(_CHILDREN.values()) if p.pid == pid),
                 None)
    if child is not None:
        return child.poll() is not None
    return not _is_socat(pid)


def _kill_group(pid: int) -> None:
    """SIGTERM to socat's process group, SIGKILL after kill_timeout."""
    for sig, grace in ((signal.SIGTERM, CONF.console.kill_timeout),
                       (signal.SIGKILL, CONF.console.subprocess_timeout)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        except PermissionError as e:
            raise exception.ConsoleError(
                error=f"Cannot stop the console process {pid}: "
                      f"{e.strerror}") from e
        deadline = time.monotonic() + grace
        while not _gone(pid):
            if time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        else:
            return
    raise exception.ConsoleError(
        error=f"The console process {pid} did not exit after SIGKILL.")


def _forget(node_uuid: str) -> None:
    proc = _CHILDREN.pop(node_uuid, None)
    if proc is not None and proc.poll() is None:
        proc.wait()
    for path in (pid_path(node_uuid), _log_path(node_uuid)):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def stop_socat_console(node_uuid: str, release: bool = True) -> None:
    """Stop the node's console process if there is one; safe to repeat.
    ``release`` also gives its port of [console]port_range back."""
    pid = _read_pid(node_uuid)
    child = _CHILDREN.get(node_uuid)
    if pid is None and child is not None:
        pid = child.pid
    if pid is not None and (child is not None or _is_socat(pid)):
        LOG.info("Stopping the console of node %s (process %s)",
                 node_uuid, pid)
        _kill_group(pid)
    _forget(node_uuid)
    if release:
        release_port(node_uuid)


def stop_own_socat_console(node_uuid: str) -> None:
    """Stop the node's console only if this process started it (a pid
    file in a shared directory may name another conductor's process)."""
    if node_uuid in _CHILDREN:
        stop_socat_console(node_uuid)


def is_running(node_uuid: str) -> bool:
    """Whether the node's console process is alive."""
    pid = _read_pid(node_uuid)
    return pid is not None and not _gone(pid)
