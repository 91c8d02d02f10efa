"""Network boot with a real dnsmasq: ``ironic-pxe-filter`` and the
``dnsmasq`` DHCP provider, seen by a real DHCP client.

Each test builds its own lab (``ironic.tests.netboot_lab``): dnsmasq
serving DHCP and TFTP in one network namespace, busybox ``udhcpc`` and
``tftp`` with a node's MAC address in another. The all-in-one service and
the ``ironic-pxe-filter`` process run as real processes on the same
configuration file (and so the same sqlite database).
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time
import uuid

import pytest

from ironic.tests import netboot_lab
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.integration.conftest import require_service

INSPECTED = "52:54:00:5e:00:01"
IDLE = "52:54:00:5e:00:02"
STRANGER = "52:54:00:5e:00:03"
BOOTLOADER = b"\x90PXELINUX test loader\x00" * 64
DEADLINE = 30.0
LISTENING = "Listening for update_pxe_filters casts on the topic"


@pytest.fixture
def lab(tmp_path):
    netboot_lab.require()
    (tmp_path / "lab").mkdir()
    lab = netboot_lab.Lab(tmp_path / "lab").start()
    try:
        yield lab
    finally:
        lab.stop()


def _filtered_dnsmasq(lab) -> str:
    hosts = lab.workdir / "hostsdir"
    hosts.mkdir()
    (lab.tftp_root / "pxelinux.0").write_bytes(BOOTLOADER)
    lab.start_dnsmasq(f"--dhcp-hostsdir={hosts}", "--dhcp-boot=pxelinux.0")
    return str(hosts)


class FilterProcess:
    """``ironic-pxe-filter`` on a configuration file."""

    def __init__(self, config, log):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ironic.command.pxe_filter",
             "--config-file", str(config), "--log-file", str(log)],
            env=svc._child_env(),
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        self.log = log

    def log_tail(self) -> str:
        text = self.log.read_text(errors="replace") \
            if self.log.exists() else "(no log)"
        return f"ironic-pxe-filter (exit {self.proc.poll()}):\n{text[-4000:]}"

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(svc.STOP_DEADLINE)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return -9
        return self.proc.returncode


def _until(predicate, what: str, timeout: float = DEADLINE,
           explain=None) -> float:
    """Seconds until ``predicate()`` held; ``explain()`` adds to the
    failure (the filter's log, say)."""
    started = time.monotonic()
    while not predicate():
        if time.monotonic() - started > timeout:
            pytest.fail(f"timed out waiting for {what}"
                        + (f":\n{explain()}" if explain else ""))
        time.sleep(0.01)
    return time.monotonic() - started


def _says(hosts: str, name: str, text: str):
    def check():
        try:
            with open(f"{hosts}/{name}") as f:
                return f.read() == text
        except FileNotFoundError:
            return False
    return check


@contextlib.contextmanager
def _running(tmp_path, tmp_path_factory, hosts, sync_period, default=None,
             discovery=False, enroll=None):
    """The all-in-one service, an SDK connection to it and the filter
    process, on one configuration file; all stopped afterwards.

    ``enroll(conn)`` runs before the filter starts, so that its first sync
    sees those nodes: with a long period no other sync would follow."""
    drivers = dict(svc.TEST_DRIVERS,
                   enabled_inspect_interfaces="fake,no-inspect,agent")
    sections = {"pxe_filter": {"dhcp_hostsdir": hosts,
                               "sync_period": str(sync_period)},
                "auto_discovery": {"enabled": str(discovery),
                                   "driver": "fake-hardware"},
                "DEFAULT": default or {}}
    running = fconf.run_service(tmp_path_factory, "aio-pxe-filter",
                                drivers=drivers, sections=sections)
    service = next(running)
    conn = fconf.sdk_connection(service.endpoint)
    pxe = None
    try:
        enrolled = enroll(conn) if enroll else None
        pxe = FilterProcess(service.config, tmp_path / "filter.log")
        yield conn, pxe, enrolled
    finally:
        if pxe is not None:
            pxe.stop()
        conn.close()
        next(running, None)


def _nodes(conn) -> str:
    """A node in inspection-ready manageable state and an idle one."""
    uuids = []
    for mac in (INSPECTED, IDLE):
        node = conn.baremetal.create_node(driver="fake-hardware",
                                          inspect_interface="agent")
        conn.baremetal.create_port(node_id=node.id, address=mac)
        conn.baremetal.set_node_provision_state(node, "manage", wait=True)
        uuids.append(node.id)
    return uuids[0]


def test_filter_follows_inspection_by_periodic_sync(lab, tmp_path,
                                                    tmp_path_factory):
    hosts = _filtered_dnsmasq(lab)
    period = 2
    with _running(tmp_path, tmp_path_factory, hosts, period,
                  enroll=_nodes) as (conn, pxe, inspected):
        _until(_says(hosts, IDLE, f"{IDLE},ignore\n"), "the first sync")
        # Manageable nodes and unknown machines get no answer.
        assert lab.discover(INSPECTED) is None
        assert lab.discover(STRANGER) is None

        conn.baremetal.set_node_provision_state(inspected, "inspect")
        took = _until(_says(hosts, INSPECTED, f"{INSPECTED}\n"),
                      "the allow entry")
        # rpc_transport = none: the periodic sync alone, within a period.
        assert took <= period + 1.0
        answer = lab.discover(INSPECTED)
        assert answer is not None, lab.dnsmasq_log()[-2000:]
        assert answer["bootfile"] == "pxelinux.0"
        assert answer["siaddr"] == lab.server_ip
        assert lab.tftp_get(answer["siaddr"], "pxelinux.0") == BOOTLOADER
        # The idle node stays ignored.
        assert lab.discover(IDLE) is None

        conn.baremetal.set_node_provision_state(inspected, "abort")
        _until(_says(hosts, INSPECTED, f"{INSPECTED},ignore\n"),
               "the deny entry")
        assert lab.discover(INSPECTED) is None

        # SIGTERM: the filter leaves dnsmasq ignoring every machine.
        conn.baremetal.set_node_provision_state(inspected, "inspect")
        _until(_says(hosts, INSPECTED, f"{INSPECTED}\n"), "the allow entry")
        assert pxe.stop() == 0
        assert lab.discover(INSPECTED) is None
        assert lab.discover(STRANGER) is None


def test_unknown_machines_boot_only_with_auto_discovery(lab, tmp_path,
                                                        tmp_path_factory):
    hosts = _filtered_dnsmasq(lab)
    with _running(tmp_path, tmp_path_factory, hosts, 2, discovery=True,
                  enroll=_nodes):
        _until(_says(hosts, "unknown_hosts_filter", "*:*:*:*:*:*\n"),
               "unknown machines to be allowed")
        answer = lab.discover(STRANGER)
        assert answer is not None and answer["bootfile"] == "pxelinux.0"
        # Known machines are not unknown: still ignored.
        assert lab.discover(IDLE) is None


def test_filter_allows_within_a_second_over_rabbitmq(lab, tmp_path,
                                                     tmp_path_factory):
    rabbit = require_service("rabbitmq").replace("amqp://", "rabbit://", 1)
    hosts = _filtered_dnsmasq(lab)
    # A long period: only the conductor's broadcast can explain a quick
    # allow. Our own exchange: other tests' filters must not hear us.
    default = {"rpc_transport": "oslo", "transport_url": rabbit,
               "control_exchange": f"ironic-test-{uuid.uuid4().hex[:8]}",
               "host": f"aio-{uuid.uuid4().hex[:6]}",
               # A stopping conductor answers RPC this long after leaving
               # the ring (15 s by default), past the stop's deadline.
               "hash_ring_reset_interval": "2"}
    with _running(tmp_path, tmp_path_factory, hosts, 600, default=default,
                  enroll=_nodes) as (conn, pxe, inspected):
        _until(_says(hosts, IDLE, f"{IDLE},ignore\n"), "the first sync",
               explain=pxe.log_tail)
        # Its own line: the leader line names the topic too, and comes
        # before the server listens (the first sync may end in between).
        _until(lambda: LISTENING in _rabbit_ready(tmp_path),
               "the filter's RPC server", timeout=10, explain=pxe.log_tail)
        started = time.monotonic()
        conn.baremetal.set_node_provision_state(inspected, "inspect")
        _until(_says(hosts, INSPECTED, f"{INSPECTED}\n"), "the allow entry",
               timeout=5, explain=pxe.log_tail)
        took = time.monotonic() - started
        assert took < 1.0, f"the allow came after {took:.3f} s"
        answer = lab.discover(INSPECTED)
        assert answer is not None and answer["bootfile"] == "pxelinux.0"


def _rabbit_ready(tmp_path) -> str:
    path = tmp_path / "filter.log"
    return path.read_text(errors="replace") if path.exists() else ""


# ---------------------------------------------------------------------------
# [dhcp]dhcp_provider = dnsmasq

KERNEL = b"\x7fkernel image " * 512
RAMDISK = b"\x1f\x8bramdisk image " * 512


def test_dnsmasq_provider_answers_a_pxe_deploy_until_undeploy(
        lab, tmp_path, tmp_path_factory):
    from ironic.tests.functional.test_network_boot import _Server
    hosts, opts = lab.workdir / "hosts", lab.workdir / "opts"
    hosts.mkdir()
    opts.mkdir()
    (lab.tftp_root / "pxelinux.0").write_bytes(BOOTLOADER)
    # The set-up the docs give for the provider: only NICs the service
    # tagged are answered.
    lab.start_dnsmasq(f"--dhcp-hostsdir={hosts}", f"--dhcp-optsdir={opts}",
                      "--dhcp-match=set:ipxe,175", "--dhcp-ignore=tag:!known")
    images = tmp_path / "images"
    images.mkdir()
    for name, blob in (("k", KERNEL), ("r", RAMDISK)):
        (images / name).write_bytes(blob)
    image_server = _Server(images)
    drivers = dict(svc.TEST_DRIVERS, enabled_boot_interfaces="fake,pxe",
                   enabled_deploy_interfaces="fake,ramdisk")
    sections = {
        "dhcp": {"dhcp_provider": "dnsmasq"},
        "dnsmasq": {"dhcp_hostsdir": str(hosts), "dhcp_optsdir": str(opts)},
        "pxe": {"tftp_root": str(lab.tftp_root), "tftp_master_path": "",
                "tftp_server": lab.server_ip},
        "conductor": {"automated_clean": "false"},
    }
    running = fconf.run_service(tmp_path_factory, "aio-dnsmasq-dhcp",
                                drivers=drivers, sections=sections)
    service = next(running)
    conn = fconf.sdk_connection(service.endpoint)
    try:
        node = conn.baremetal.create_node(
            driver="fake-hardware", boot_interface="pxe",
            deploy_interface="ramdisk",
            driver_info={"deploy_kernel": f"{image_server.url}/k",
                         "deploy_ramdisk": f"{image_server.url}/r"},
            properties={"capabilities": "boot_mode:bios"},
            instance_info={"kernel": f"{image_server.url}/k",
                           "ramdisk": f"{image_server.url}/r"})
        conn.baremetal.create_port(node_id=node.id, address=INSPECTED)
        for verb in ("manage", "provide"):
            conn.baremetal.set_node_provision_state(node, verb, wait=True)
        assert lab.discover(INSPECTED) is None

        conn.baremetal.set_node_provision_state(node, "active", wait=True,
                                                timeout=DEADLINE)
        answer = lab.discover(INSPECTED)
        assert answer is not None, lab.dnsmasq_log()[-3000:]
        assert answer["bootfile"] == "pxelinux.0"
        assert answer["siaddr"] == lab.server_ip
        assert lab.tftp_get(answer["siaddr"], "pxelinux.0") == BOOTLOADER
        config = lab.tftp_get(
            lab.server_ip,
            "pxelinux.cfg/01-" + INSPECTED.replace(":", "-")).decode()
        assert f"{node.id}/kernel" in config
        assert lab.tftp_get(lab.server_ip, f"{node.id}/kernel") == KERNEL

        conn.baremetal.set_node_provision_state(node, "deleted", wait=True,
                                                timeout=DEADLINE)
        assert lab.discover(INSPECTED) is None
    finally:
        conn.close()
        next(running, None)
        image_server.close()
