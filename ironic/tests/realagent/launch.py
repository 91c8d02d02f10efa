"""Boot the real agent on a lab machine: what its BMC runs at power on.

    python -m ironic.tests.realagent.launch --api URL --mac MAC --disk FILE

installs the agent's virtualenv if needed (agent_venv), writes the agent's
configuration next to the disk file and replaces itself with the agent
inside its fences (plugin/ironic_lab_safe_agent.py), so that the BMC's
power off (which kills the process group) stops the agent. The agent
listens on a free loopback port with its automatic TLS: a self-signed
certificate it sends with its heartbeats (agent_verify_ca), as with the
service's default [agent]require_tls.
``machine_dir``, ``prepare_machine`` and ``make_disk`` prepare a directory
and a disk file the unprivileged agent can use.
"""

from __future__ import annotations

import argparse
import os
import pwd
import socket
import tempfile

from ironic.tests.realagent import agent_venv

AGENT_USER = os.environ.get("IRONIC_LAB_AGENT_USER", "nobody")


def _agent_ids() -> tuple[int, int] | None:
    """Whom the agent runs as when started by root (None: as us)."""
    if os.geteuid() != 0:
        return None
    user = pwd.getpwnam(AGENT_USER)
    return user.pw_uid, user.pw_gid


def _give(path: str) -> None:
    ids = _agent_ids()
    if ids:
        os.chown(path, *ids)


def machine_dir(parent: str | None = None) -> str:
    """A new directory the agent (possibly unprivileged) may write in.
    Its default parent is the system's temporary directory, because a
    test's own (e.g. /tmp/pytest-of-root) is private to its user."""
    path = tempfile.mkdtemp(prefix="lab-machine-", dir=parent)
    os.chmod(path, 0o755)
    _give(path)
    return path


def prepare_machine(directory: str, disk_size: int) -> str:
    """The lab's machine kept in ``directory``: made once, with an empty
    (sparse) disk, and found again as it was left by later runs."""
    os.makedirs(directory, exist_ok=True)
    if _agent_ids() and not agent_venv.open_to_all(directory):
        raise OSError(f"{directory} is inside a private directory: the "
                      f"agent, run as {AGENT_USER}, could not use it")
    os.chmod(directory, 0o755)
    _give(directory)
    disk = os.path.join(directory, "disk.img")
    if not os.path.exists(disk):
        make_disk(disk, disk_size)
    return disk


def make_disk(path: str, size: int, content: bytes = b"") -> str:
    """A file of ``size`` bytes starting with ``content``: the machine's
    disk as the agent sees it."""
    with open(path, "wb") as f:
        f.write(content)
        f.truncate(size)
    _give(path)
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_config(run_dir: str, api: str, port: int,
                 lookup_timeout: int, inspection_url: str | None = None
                 ) -> str:
    path = os.path.join(run_dir, "ipa.conf")
    # What a ramdisk booted for in-band inspection gets on its kernel
    # command line (ipa-inspection-callback-url).
    inspection = (f"inspection_callback_url = {inspection_url}\n"
                  if inspection_url else "")
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"""[DEFAULT]
api_url = {api}
listen_host = 127.0.0.1
listen_port = {port}
advertise_host = 127.0.0.1
advertise_port = {port}
enable_auto_tls = true
lookup_timeout = {lookup_timeout}
lookup_interval = 1
debug = true
use_stderr = true
{inspection}""")
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", required=True,
                        help="the Bare Metal API the agent looks up with")
    parser.add_argument("--mac", required=True, help="the machine's NIC")
    parser.add_argument("--disk", required=True,
                        help="file standing in for the machine's disk")
    parser.add_argument("--lookup-timeout", type=int, default=300)
    parser.add_argument("--inspection-url",
                        help="post inspection data here first (e.g. "
                             "<api>/v1/continue_inspection)")
    args = parser.parse_args(argv)
    disk = os.path.abspath(args.disk)
    if not os.path.isfile(disk):
        parser.error(f"{disk} is not a regular file")
    python = agent_venv.ensure()
    run_dir = os.path.dirname(disk)
    config = write_config(run_dir, args.api, _free_port(),
                          args.lookup_timeout, args.inspection_url)
    env = dict(os.environ, IRONIC_LAB_MAC=args.mac, IRONIC_LAB_DISK=disk,
               HOME=run_dir, TMPDIR=run_dir, PYTHONPATH="",
               # Only the system's tools, not a private user's (pyenv...).
               PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
                    "/sbin:/bin")
    os.chdir(run_dir)
    os.execve(python, [python, "-u", "-m", "ironic_lab_safe_agent",
                           "--config-file", config],
              env)


if __name__ == "__main__":
    main()
