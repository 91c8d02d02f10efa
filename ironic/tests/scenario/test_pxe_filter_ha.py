"""Two ``ironic-pxe-filter`` processes, each with its own dnsmasq host
directory, in one party on a redis-server of the test's own.

Only the leader's directory lets the inspected node's MAC (and unknown
machines) through; the other ignores everything. SIGKILL the leader: the
other opens its directory within 10 s. SIGTERM the survivor: its
directory ignores every machine. (That dnsmasq follows the directory is
proven with a real dnsmasq in functional/test_netboot_dnsmasq.py.)
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.functional.test_netboot_dnsmasq import (
    IDLE,
    INSPECTED,
    _nodes,
)
from ironic.tests.scenario.redis_server import RedisServer

FAILOVER_BOUND = 10.0
ALLOW = f"{INSPECTED}\n"
DENY = f"{INSPECTED},ignore\n"


def _read(directory, name: str) -> str | None:
    try:
        return (directory / name).read_text()
    except FileNotFoundError:
        return None


def _until(predicate, what: str, timeout: float = 60.0) -> float:
    started = time.monotonic()
    while not predicate():
        assert time.monotonic() - started < timeout, \
            f"timed out waiting for {what}"
        time.sleep(0.05)
    return time.monotonic() - started


class Filter:
    def __init__(self, base_config, workdir, name: str, redis_url: str):
        self.hosts = workdir / f"hosts-{name}"
        self.hosts.mkdir()
        extra = workdir / f"{name}.conf"
        extra.write_text(
            f"[DEFAULT]\nhost = {name}\n"
            f"[pxe_filter]\ndhcp_hostsdir = {self.hosts}\nsync_period = 2\n"
            f"[coordination]\nbackend_url = {redis_url}\n")
        self.log = workdir / f"{name}.log"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ironic.command.pxe_filter",
             "--config-file", str(base_config), "--config-file", str(extra),
             "--log-file", str(self.log)],
            env=svc._child_env(), stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT)

    def says(self, name: str) -> str | None:
        return _read(self.hosts, name)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        return self.proc.wait(10)


def test_only_the_leader_allows_and_the_other_takes_over(tmp_path,
                                                         tmp_path_factory):
    redis_server = RedisServer(tmp_path / "redis").start()
    drivers = dict(svc.TEST_DRIVERS,
                   enabled_inspect_interfaces="fake,no-inspect,agent")
    running = fconf.run_service(tmp_path_factory, "aio-pxe-ha",
                                drivers=drivers)
    service = next(running)
    conn = fconf.sdk_connection(service.endpoint)
    filters: list[Filter] = []
    try:
        inspected = _nodes(conn)
        conn.baremetal.set_node_provision_state(inspected, "inspect")
        filters = [Filter(service.config, tmp_path, f"filter{i}",
                          redis_server.url) for i in range(2)]
        _until(lambda: sorted(f.says(INSPECTED) or "" for f in filters)
               == sorted([ALLOW, DENY]), "one filter to allow, one to deny")
        time.sleep(3)  # a sync period later: still exactly one
        assert sorted(f.says(INSPECTED) for f in filters) == \
            sorted([ALLOW, DENY])
        leader = next(f for f in filters if f.says(INSPECTED) == ALLOW)
        other = next(f for f in filters if f is not leader)
        assert other.says("unknown_hosts_filter").endswith(",ignore\n")
        assert other.says(IDLE) == f"{IDLE},ignore\n"

        leader.proc.kill()
        leader.proc.wait(10)
        took = _until(lambda: other.says(INSPECTED) == ALLOW,
                      "the other filter to allow")
        print(f"\nthe other filter allowed {took:.1f} s after the kill")
        assert took <= FAILOVER_BOUND

        assert other.stop() == 0
        assert other.says(INSPECTED) == DENY
        assert other.says("unknown_hosts_filter").endswith(",ignore\n")
    finally:
        for f in filters:
            f.stop()
        conn.close()
        next(running, None)
        redis_server.stop()
