"""A real dnsmasq and a real DHCP client in network namespaces.

``Lab`` creates two network namespaces joined by a veth pair: dnsmasq
serves DHCP and TFTP in one, busybox's ``udhcpc`` and ``tftp`` play a
machine's firmware in the other, using whatever MAC address a test gives
the client end. Nothing reaches the host's own network. Needs root (CI
runs as root); ``require()`` skips the test elsewhere and fails it under
``CI=true``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest

TOOLS = ("ip", "dnsmasq", "busybox", "ethtool")
# Bounds, not tuned sleeps: an answer normally comes in milliseconds.
DHCP_TRIES, DHCP_PAUSE = 3, 1

_SCRIPT = """#!/bin/sh
# udhcpc event script: record the answer, configure the address.
if [ "$1" = bound ] || [ "$1" = renew ]; then
    ip addr flush dev "$interface"
    ip addr add "$ip/${mask:-24}" dev "$interface"
    env > "$UDHCPC_OUT"
fi
exit 0
"""


def require() -> None:
    """Skip (or, under CI=true, fail) when namespaces cannot be made."""
    missing = [t for t in TOOLS if shutil.which(t) is None]
    reason = None
    if missing:
        reason = f"missing {', '.join(missing)} " \
                 f"(tools/install-system-deps.sh installs them)"
    elif os.geteuid() != 0:
        reason = "network namespaces need root"
    if reason is None:
        probe = f"nbprobe{uuid.uuid4().hex[:6]}"
        result = _run("ip", "netns", "add", probe, check=False)
        _run("ip", "netns", "del", probe, check=False)
        if result.returncode != 0:
            reason = f"cannot create a network namespace: {result.stderr}"
    if reason is None:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"network boot lab unavailable: {reason} (CI=true)",
                    pytrace=False)
    pytest.skip(f"network boot lab unavailable: {reason}")


def _run(*argv: str, check: bool = True, timeout: float = 30,
         **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(argv, capture_output=True, text=True,
                            timeout=timeout, **kwargs)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} failed: {result.stderr}")
    return result


class Lab:
    """Two namespaces, a veth pair, a dnsmasq; ``stop()`` removes all."""

    def __init__(self, workdir: Path, subnet: int | None = None):
        tag = uuid.uuid4().hex[:6]
        self.workdir = workdir
        self.server_ns, self.client_ns = f"nbs{tag}", f"nbc{tag}"
        self.server_if, self.client_if = f"vs{tag}", f"vc{tag}"
        octet = subnet if subnet is not None else int(tag[:2], 16) % 200 + 20
        self.prefix = f"10.251.{octet}"
        self.server_ip = f"{self.prefix}.1"
        self.tftp_root = workdir / "tftp"
        self.tftp_root.mkdir(exist_ok=True)
        self.dnsmasq: subprocess.Popen | None = None
        self.log = workdir / "dnsmasq.log"

    # -- namespaces ---------------------------------------------------------

    def start(self) -> Lab:
        for ns in (self.server_ns, self.client_ns):
            _run("ip", "netns", "add", ns)
        _run("ip", "link", "add", self.server_if, "type", "veth",
             "peer", "name", self.client_if)
        _run("ip", "link", "set", self.server_if, "netns", self.server_ns)
        _run("ip", "link", "set", self.client_if, "netns", self.client_ns)
        self.ns(self.server_ns, "ip", "addr", "add", f"{self.server_ip}/24",
                "dev", self.server_if)
        for ns, ifname in ((self.server_ns, self.server_if),
                           (self.client_ns, self.client_if)):
            # Checksums left to an offload a veth never does: the client's
            # raw socket would drop every answer.
            self.ns(ns, "ethtool", "-K", ifname, "tx", "off")
            self.ns(ns, "ip", "link", "set", ifname, "up")
            self.ns(ns, "ip", "link", "set", "lo", "up")
        return self

    def ns(self, ns: str, *argv: str, check: bool = True,
           timeout: float = 30) -> subprocess.CompletedProcess:
        return _run("ip", "netns", "exec", ns, *argv, check=check,
                    timeout=timeout)

    def stop(self) -> None:
        if self.dnsmasq is not None and self.dnsmasq.poll() is None:
            self.dnsmasq.terminate()
            try:
                self.dnsmasq.wait(10)
            except subprocess.TimeoutExpired:
                self.dnsmasq.kill()
                self.dnsmasq.wait()
        for ns in (self.server_ns, self.client_ns):
            # Deleting a namespace deletes the veth end inside it (and so
            # its peer).
            _run("ip", "netns", "del", ns, check=False)

    # -- dnsmasq ------------------------------------------------------------

    def start_dnsmasq(self, *options: str) -> None:
        """dnsmasq on the server end, DHCP and TFTP only, plus
        ``options`` (``--dhcp-hostsdir=...``)."""
        argv = ["ip", "netns", "exec", self.server_ns, "dnsmasq",
                "--no-daemon", "--conf-file=/dev/null", "--port=0",
                f"--interface={self.server_if}", "--bind-interfaces",
                f"--dhcp-range={self.prefix}.50,{self.prefix}.150,1h",
                f"--pid-file={self.workdir / 'dnsmasq.pid'}",
                f"--dhcp-leasefile={self.workdir / 'dnsmasq.leases'}",
                "--enable-tftp", f"--tftp-root={self.tftp_root}",
                "--log-dhcp", f"--log-facility={self.log}", *options]
        self.dnsmasq = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while not self.log.exists() or "started" not in \
                self.log.read_text(errors="replace"):
            if self.dnsmasq.poll() is not None or \
                    time.monotonic() > deadline:
                raise AssertionError(f"dnsmasq did not start:\n"
                                     f"{self.dnsmasq_log()}")
            time.sleep(0.05)

    def dnsmasq_log(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() \
            else ""

    # -- the machine --------------------------------------------------------

    def set_mac(self, mac: str) -> None:
        self.ns(self.client_ns, "ip", "link", "set", self.client_if,
                "address", mac)
        self.ns(self.client_ns, "ip", "addr", "flush", "dev",
                self.client_if)

    def discover(self, mac: str, vendor: str = "PXEClient") -> dict | None:
        """DHCP as the NIC ``mac``: the answer's variables (``ip``,
        ``siaddr``, ``boot_file``, ``bootfile``...) or None without one."""
        self.set_mac(mac)
        script = self.workdir / "udhcpc.sh"
        script.write_text(_SCRIPT)
        script.chmod(0o755)
        out = self.workdir / f"answer-{uuid.uuid4().hex[:6]}.env"
        env_prefix = ["env", f"UDHCPC_OUT={out}"]
        self.ns(self.client_ns, *env_prefix, "busybox", "udhcpc", "-f",
                "-q", "-n", "-i", self.client_if, "-t", str(DHCP_TRIES),
                "-T", str(DHCP_PAUSE), "-s", str(script), "-V", vendor, "-B",
                "-O", "bootfile", "-O", "tftp", check=False,
                timeout=DHCP_TRIES * DHCP_PAUSE + 20)
        if not out.exists():
            return None
        answer = dict(line.split("=", 1) for line in
                      out.read_text().splitlines() if "=" in line)
        out.unlink()
        return answer

    def tftp_get(self, server: str, name: str) -> bytes:
        """Fetch ``name`` over TFTP from the client namespace."""
        dest = self.workdir / f"fetched-{uuid.uuid4().hex[:6]}"
        self.ns(self.client_ns, "busybox", "tftp", "-g", "-r", name,
                "-l", str(dest), server)
        data = dest.read_bytes()
        dest.unlink()
        return data
