"""Start the unmodified ironic-python-agent so that it cannot harm the host.

``python -m ironic_lab_safe_agent --config-file ...`` with the agent's own
virtualenv, where agent_venv installs it (so an unprivileged user can read
it wherever the checkout is); arguments are the agent's own.
Three fences, each enough on its own for what it covers:

1. Started as root, the process first becomes ``nobody`` (or the user in
   IRONIC_LAB_AGENT_USER): the kernel then refuses it the host's block
   devices, power off, reboot and network changes whatever it runs.
2. Child processes go through an allow-list of tools that only read
   (inventory); anything else, and every shell command line, exits 126
   without running, which the agent sees as a failed command.
3. Opening anything under /dev (but null, zero, random...), /proc or /sys
   for writing raises PermissionError (e.g. /proc/sysrq-trigger).

The lab machine's disk is a regular file (IRONIC_LAB_DISK), which the
agent writes an image to like any file. Two of the tools it then reads
the disk with are let through the allow-list for that file's sake:
``parted ... print`` (only printing) and ``lsblk`` on the file, which lsblk
cannot describe (not a block device): its answer is made here, from
blkid's low-level probe of the file and the file's size, in lsblk's
``--pairs`` form. ``partprobe`` of the file succeeds without running: a
file has no kernel partition table to refresh (the real one fails, and
the agent retries it for about ten seconds).

The agent's code (lookup, token, heartbeat, command API, steps) is left
untouched; the lab machine's disk and NIC come from the hardware manager
ironic_lab_agent_hardware, which the agent loads through its documented entry point.
"""

import builtins
import io
import logging
import os
import pwd
import shlex
import subprocess
import sys

LOG = logging.getLogger("ironic_lab.safe_agent")

# Tools the agent's inventory reads the machine with; none changes it.
READ_ONLY_TOOLS = frozenset({
    "lsblk", "blkid", "lscpu", "lshw", "dmidecode", "lspci", "findmnt",
    "uname", "true", "cat", "sync", "getconf", "nproc", "hostname",
    "readlink", "hexdump",
})
# parted commands that change a disk; only "print" may run.
PARTED_CHANGES = frozenset({
    "mklabel", "mktable", "mkpart", "mkpartfs", "rm", "resizepart",
    "resize", "move", "cp", "rescue", "set", "toggle", "disk_set",
    "disk_toggle", "name", "type", "mkfs",
})
# Device files a program may write without touching hardware.
HARMLESS_DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random",
                    "/dev/tty", "/dev/pts/", "/dev/shm/", "/dev/log")


def command_allowed(argv: list) -> bool:
    """Whether the agent may run ``argv``: only commands that read."""
    if not argv:
        return False
    tool = os.path.basename(str(argv[0]))
    args = [str(a) for a in argv[1:]]
    if tool in READ_ONLY_TOOLS:
        return True
    if tool == "journalctl":  # the agent's logs, sent to the service
        changes = {"--vacuum-size", "--vacuum-time", "--vacuum-files",
                   "--rotate", "--flush", "--sync", "--relinquish-var",
                   "--smart-relinquish-var", "--setup-keys"}
        return not any(a.split("=")[0] in changes for a in args)
    if tool == "ldconfig":  # ctypes.util.find_library
        return args == ["-p"]
    if tool == "parted":
        return "print" in args and not PARTED_CHANGES.intersection(args)
    if tool == "udevadm":
        return args[:1] in (["info"], ["settle"])
    if tool == "ip":
        # "ip [-o] [-4|-6] addr|link|route show ..." only.
        words = [a for a in args if not a.startswith("-")]
        return len(words) >= 2 and words[1] in ("show", "list")
    return False


def path_forbidden(path) -> bool:
    """Whether writing ``path`` could reach the host's hardware or kernel."""
    try:
        real = os.path.realpath(os.fspath(path))
    except TypeError:
        return False
    if real.startswith("/dev/"):
        return not real.startswith(HARMLESS_DEVICES)
    return real.startswith(("/proc/", "/sys/"))


def _on_lab_disk(argv: list, tool: str) -> str | None:
    """The lab disk file when ``argv`` runs ``tool`` on it, else None."""
    disk = os.environ.get("IRONIC_LAB_DISK")
    if not disk or not argv or os.path.basename(str(argv[0])) != tool:
        return None
    paths = {os.path.realpath(str(a)) for a in argv[1:]
             if str(a).startswith("/")}
    return disk if os.path.realpath(disk) in paths else None


def lab_disk_stand_in(argv: list) -> list | None:
    """The command that answers ``argv`` when it is a partprobe or an
    lsblk of the lab disk file (see the module's docstring), or None."""
    if _on_lab_disk(argv, "partprobe"):
        return [sys.executable, "-c", ""]
    disk = _on_lab_disk(argv, "lsblk")
    if disk is None:
        return None
    args = [str(a) for a in argv[1:]]
    columns = "NAME,SIZE,TYPE"
    for i, arg in enumerate(args):
        if arg in ("-o", "--output") and i + 1 < len(args):
            columns = args[i + 1]
        elif arg.startswith("--output="):
            columns = arg.split("=", 1)[1]
    return [sys.executable, "-c", _LSBLK_STAND_IN, disk, columns]


# Run as a child: argv[1] the disk file, argv[2] lsblk's column list.
_LSBLK_STAND_IN = """
import os, subprocess, sys
disk, columns = sys.argv[1], sys.argv[2].split(",")
probe = subprocess.run(["blkid", "-p", "-o", "export", disk],
                       capture_output=True, text=True).stdout
found = dict(line.split("=", 1) for line in probe.splitlines() if "=" in line)
known = {"NAME": disk, "KNAME": disk, "PATH": disk, "TYPE": "disk",
         "SIZE": str(os.path.getsize(disk)), "RO": "0", "RM": "0",
         "ROTA": "0", "MODEL": "lab file disk",
         "UUID": found.get("UUID", ""), "PARTUUID": "",
         "PTUUID": found.get("PTUUID", ""), "PTTYPE": found.get("PTTYPE", ""),
         "FSTYPE": found.get("TYPE", ""), "LABEL": found.get("LABEL", "")}
print(" ".join(f'{c}="{known.get(c, "")}"' for c in columns))
"""


_popen_init = subprocess.Popen.__init__


def _fenced_popen_init(self, args, *rest, **kwargs):
    shell = kwargs.get("shell", False)
    if shell or isinstance(args, (str, bytes)):
        allowed, text = False, str(args)
    else:
        argv = list(args)
        text = " ".join(shlex.quote(str(a)) for a in argv)
        stand_in = lab_disk_stand_in(argv)
        if stand_in is not None:
            return _popen_init(self, stand_in, *rest, **kwargs)
        allowed = command_allowed(argv)
    if allowed:
        return _popen_init(self, args, *rest, **kwargs)
    LOG.warning("refused to run: %s", text)
    kwargs.pop("shell", None)
    stand_in = [sys.executable, "-c",
                "import sys; sys.stderr.write('refused in the lab: '"
                " + sys.argv[1] + '\\n'); sys.exit(126)", text[:300]]
    return _popen_init(self, stand_in, *rest, **kwargs)


def _fenced_system(command):
    LOG.warning("refused to run: %s", command)
    return 126 << 8


_open = builtins.open
_os_open = os.open
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_TRUNC


def _fenced_open(file, mode="r", *rest, **kwargs):
    if (not isinstance(file, int) and any(c in mode for c in "wax+")
            and path_forbidden(file)):
        LOG.warning("refused to open %s for writing", file)
        raise PermissionError(13, "refused in the lab", str(file))
    return _open(file, mode, *rest, **kwargs)


def _fenced_os_open(path, flags, *rest, **kwargs):
    if flags & _WRITE_FLAGS and path_forbidden(path):
        LOG.warning("refused to open %s for writing", path)
        raise PermissionError(13, "refused in the lab", str(path))
    return _os_open(path, flags, *rest, **kwargs)


def drop_root() -> None:
    """Become an unprivileged user when started as root."""
    if os.geteuid() != 0:
        return
    user = pwd.getpwnam(os.environ.get("IRONIC_LAB_AGENT_USER", "nobody"))
    os.setgroups([])
    os.setgid(user.pw_gid)
    os.setuid(user.pw_uid)
    if os.geteuid() == 0 or os.getuid() == 0:
        raise SystemExit("could not drop root privileges")


def install_fences() -> None:
    subprocess.Popen.__init__ = _fenced_popen_init
    os.system = _fenced_system
    builtins.open = _fenced_open
    io.open = _fenced_open
    os.open = _fenced_os_open


def main() -> int:
    drop_root()
    install_fences()
    from ironic_python_agent.cmd import agent as agent_cmd
    sys.argv[0] = "ironic-python-agent"
    return agent_cmd.run()


if __name__ == "__main__":
    sys.exit(main())
