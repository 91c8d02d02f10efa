#!/usr/bin/env python3
"""Process CPU per API request, in-process, without network or server.

Builds the all-in-one's application (``ironic.api.app.setup_app``, every
middleware, the conductor started in this process with in-process RPC) on
a fresh sqlite file configured as ``side_by_side.sh`` configures the
service (noauth, the same hardware types), creates ``--nodes`` nodes with
one port each through ``POST /v1/nodes`` and ``POST /v1/ports``, then calls
each measured request ``-n`` times and prints the process CPU per request
(``time.process_time``), median of ``--repeat`` rounds::

    PYTHONPATH=$PWD .tox/tests/bin/python tools/bench/request_cpu.py
    ... --profile get      # cProfile of the GETs, inclusive time first

The log file, like the service's, is written for every request. Other
processes do not count in ``process_time``, so the numbers hold on a
loaded machine (within the cache effects of sharing its cores).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

CONFIG = """\
[DEFAULT]
host = bench-host
state_path = {dir}
rpc_transport = none
auth_strategy = noauth
log_file = {dir}/ironic.log
enabled_hardware_types = fake-hardware,ipmi,redfish
enabled_boot_interfaces = fake,pxe,redfish-virtual-media
enabled_deploy_interfaces = fake,direct,ramdisk
enabled_power_interfaces = fake,ipmitool,redfish
enabled_management_interfaces = fake,ipmitool,redfish,noop
enabled_inspect_interfaces = fake,no-inspect,agent,redfish
enabled_bios_interfaces = fake,no-bios,redfish
enabled_console_interfaces = fake,no-console
enabled_raid_interfaces = fake,no-raid,agent,redfish
enabled_rescue_interfaces = fake,no-rescue,agent
enabled_vendor_interfaces = fake,no-vendor,ipmitool,redfish
enabled_firmware_interfaces = fake,no-firmware,redfish
enabled_storage_interfaces = noop
enabled_network_interfaces = noop,flat
[api]
restrict_lookup = false
[database]
connection = sqlite:///{dir}/ironic.sqlite
[dhcp]
dhcp_provider = none
[conductor]
automated_clean = false
sync_power_state_interval = 120
[oslo_concurrency]
lock_path = {dir}/locks
"""


class Caller:
    """Calls the WSGI application the way a server would, no client."""

    def __init__(self, app):
        self.app = app
        self.status = ""

    def _start(self, status, headers, exc_info=None):
        self.status = status

    def call(self, method: str, path: str, body: object = None) -> bytes:
        path, _, query = path.partition("?")
        raw = b"" if body is None else json.dumps(body).encode()
        environ = {
            "REQUEST_METHOD": method, "PATH_INFO": path,
            "QUERY_STRING": query, "SCRIPT_NAME": "",
            "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "6385",
            "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1",
            "HTTP_HOST": "127.0.0.1:6385", "HTTP_ACCEPT": "application/json",
            "HTTP_X_OPENSTACK_IRONIC_API_VERSION": "latest",
            "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(raw),
            "wsgi.errors": sys.stderr, "wsgi.version": (1, 0),
            "wsgi.multithread": True, "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }
        if raw:
            environ["CONTENT_TYPE"] = "application/json"
            environ["CONTENT_LENGTH"] = str(len(raw))
        out = b"".join(self.app(environ, self._start))
        if not self.status.startswith("2"):
            raise RuntimeError(f"{method} {path}: {self.status} {out[:300]}")
        return out


def build(workdir: str):
    from ironic import service
    from ironic.api import app as api_app
    from ironic.conductor import base_manager
    from ironic.conf import CONF
    from ironic.db import migration
    conf = Path(workdir, "ironic.conf")
    conf.write_text(CONFIG.format(dir=workdir))
    CONF.set_default("rpc_transport", "none")
    service.prepare_service("ironic-bench", ["--config-file", str(conf)])
    service.ensure_state_path()
    migration.upgrade("head")
    conductor = base_manager.ConductorService()
    conductor.start(threading.Event())
    return conductor, api_app.setup_app()


def mac(i: int) -> str:
    return "52:54:20:%02x:%02x:%02x" % (i >> 16 & 255, i >> 8 & 255, i & 255)


def create(caller: Caller, i: int) -> str:
    node = json.loads(caller.call("POST", "/v1/nodes", {
        "driver": "fake-hardware", "name": f"bench-{i:06d}",
        "resource_class": "bench",
        "properties": {"cpus": 8, "memory_mb": 16384, "local_gb": 100,
                       "cpu_arch": "x86_64"},
        "extra": {"foo": "initial"}}))
    caller.call("POST", "/v1/ports", {"node_uuid": node["uuid"],
                                      "address": mac(i)})
    return node["uuid"]


def cpu_ms(func, count: int) -> float:
    start = time.process_time()
    for i in range(count):
        func(i)
    return (time.process_time() - start) / count * 1e3


def profile(func, count: int, top: int) -> str:
    prof = cProfile.Profile()
    prof.enable()
    for i in range(count):
        func(i)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("-n", type=int, default=2000, help="GETs per round")
    parser.add_argument("--creates", type=int, default=100,
                        help="node+port creations per round")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--detail-limit", type=int, default=100)
    parser.add_argument("--profile", choices=["get", "create", "detail"])
    parser.add_argument("--top", type=int, default=45)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        conductor, app = build(workdir)
        caller = Caller(app)
        try:
            uuids = [create(caller, i) for i in range(args.nodes)]
            made = [args.nodes]

            def get(i):
                caller.call("GET", f"/v1/nodes/{uuids[i % len(uuids)]}")

            def make(i):
                create(caller, made[0])
                made[0] += 1

            def detail(i):
                caller.call("GET", "/v1/nodes/detail?limit="
                            f"{args.detail_limit}")

            calls = {"get": (get, args.n), "create": (make, args.creates),
                     "detail": (detail, max(args.n // 100, 10))}
            if args.profile:
                func, count = calls[args.profile]
                cpu_ms(func, count // 4)  # warm up
                print(profile(func, count, args.top))
                return 0
            result = {}
            for name, (func, count) in calls.items():
                cpu_ms(func, count // 4)  # warm up
                rounds = [cpu_ms(func, count) for _ in range(args.repeat)]
                result[name] = {"median_ms": round(statistics.median(rounds),
                                                   3),
                                "rounds_ms": [round(r, 3) for r in rounds],
                                "requests": count}
                print(f"{name:8} {result[name]['median_ms']:7.3f} ms CPU/"
                      f"request (rounds {result[name]['rounds_ms']})")
            print(json.dumps(result))
        finally:
            conductor.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
