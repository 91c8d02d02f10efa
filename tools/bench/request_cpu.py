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
    ... --only heartbeat,lookup   # some of the measurements
    ... --profile get      # cProfile of the GETs, inclusive time first

The measurements: ``get`` (``GET /v1/nodes/<uuid>``), ``create`` (a node
and its port), ``detail`` (``GET /v1/nodes/detail``), ``list``
(``GET /v1/nodes``, the default fields), ``patch`` (``PATCH
/v1/nodes/<uuid>`` of one ``extra`` key), ``lookup`` (the
agent's repeated ``GET /v1/lookup?addresses=<mac>``) and ``heartbeat``
(``POST /v1/heartbeat/<uuid>``). The ramdisk ones are set up as
``side_by_side.sh serving`` has the shared client set them up: the nodes
stay in ``enroll`` (``[api]restrict_lookup`` is off), each is looked up
once, unmeasured, which issues its agent token, and every heartbeat
carries that token, an https ``callback_url`` and an ``agent_version``.

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

# The service configuration side_by_side.sh writes, from the same file.
CONFIG_TEMPLATE = ROOT / "tools" / "bench" / "ironic.conf.in"


def config(workdir: str) -> str:
    """``ironic.conf.in`` for a service whose state is in ``workdir``."""
    text = CONFIG_TEMPLATE.read_text()
    for key, value in (("@HOST@", "bench-host"), ("@STATE_PATH@", workdir),
                       ("@PORT@", "6385")):
        text = text.replace(key, value)
    return text


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
    conf.write_text(config(workdir))
    CONF.set_default("rpc_transport", "none")
    # The service logs to its output, which side_by_side.sh keeps in a
    # file; here the same lines go to a file directly.
    service.prepare_service("ironic-bench", [
        "--config-file", str(conf),
        "--log-file", str(Path(workdir, "ironic.log"))])
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


def run(func, count: int, threads: int = 1) -> None:
    """``func(i)`` for i in 0..count-1, from ``threads`` threads at once
    (as a server's application threads run requests)."""
    if threads <= 1:
        for i in range(count):
            func(i)
        return
    indexes = iter(range(count))
    lock = threading.Lock()
    errors: list[BaseException] = []

    def worker():
        while not errors:
            with lock:
                i = next(indexes, None)
            if i is None:
                return
            try:
                func(i)
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

    workers = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    if errors:
        raise errors[0]


def cpu_ms(func, count: int, threads: int = 1) -> float:
    """Process CPU (every thread's) per call of ``func``, in ms."""
    start = time.process_time()
    run(func, count, threads)
    return (time.process_time() - start) / count * 1e3


def profile(func, count: int, top: int, dump: str | None = None) -> str:
    prof = cProfile.Profile()
    prof.enable()
    run(func, count)
    prof.disable()
    if dump:
        prof.dump_stats(dump)
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    return out.getvalue()


MEASUREMENTS = ("get", "create", "detail", "list", "patch", "lookup",
                "heartbeat")
# What the shared client's heartbeat phase sends besides the token.
CALLBACK_URL = "https://127.0.0.1:9999"
AGENT_VERSION = "10.0.0"


def agent_tokens(caller: Caller, count: int) -> list[str]:
    """The first lookup of nodes 0..count-1 (by their port's MAC): each
    node's agent token, issued by it."""
    tokens = []
    for i in range(count):
        answer = json.loads(caller.call("GET",
                                        f"/v1/lookup?addresses={mac(i)}"))
        tokens.append(answer["config"]["agent_token"])
    return tokens


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=500)
    parser.add_argument("-n", type=int, default=2000,
                        help="GETs, lookups and heartbeats per round")
    parser.add_argument("--creates", type=int, default=100,
                        help="node+port creations per round")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--detail-limit", type=int, default=100)
    parser.add_argument("--only", default=",".join(MEASUREMENTS),
                        help="comma list from: " + ",".join(MEASUREMENTS))
    parser.add_argument("--profile", choices=MEASUREMENTS)
    parser.add_argument("--threads", type=int, default=1,
                        help="requests in flight at once (the server's "
                             "[api]server_threads is 8); the CPU of "
                             "taking turns on the interpreter lock counts")
    parser.add_argument("--top", type=int, default=45)
    parser.add_argument("--profile-out", metavar="FILE",
                        help="also write the raw profile (pstats) there")
    args = parser.parse_args()
    only = [name.strip() for name in args.only.split(",") if name.strip()]
    if set(only) - set(MEASUREMENTS):
        parser.error("unknown measurement(s): " +
                     ", ".join(sorted(set(only) - set(MEASUREMENTS))))
    with tempfile.TemporaryDirectory() as workdir:
        conductor, app = build(workdir)
        caller = Caller(app)
        try:
            uuids = [create(caller, i) for i in range(args.nodes)]
            made = [args.nodes]
            ramdisk = {"lookup", "heartbeat"} & \
                ({args.profile} if args.profile else set(only))
            tokens = agent_tokens(caller, args.nodes) if ramdisk else []

            def get(i):
                caller.call("GET", f"/v1/nodes/{uuids[i % len(uuids)]}")

            def make(i):
                create(caller, made[0])
                made[0] += 1

            def detail(i):
                caller.call("GET", "/v1/nodes/detail?limit="
                            f"{args.detail_limit}")

            def listing(i):
                caller.call("GET", f"/v1/nodes?limit={args.detail_limit}")

            def patch(i):
                caller.call("PATCH", f"/v1/nodes/{uuids[i % len(uuids)]}", [
                    {"op": "replace", "path": "/extra/foo",
                     "value": f"v{i}"}])

            def lookup(i):
                caller.call("GET", "/v1/lookup?addresses="
                            f"{mac(i % args.nodes)}")

            def heartbeat(i):
                i %= args.nodes
                caller.call("POST", f"/v1/heartbeat/{uuids[i]}", {
                    "callback_url": CALLBACK_URL,
                    "agent_version": AGENT_VERSION,
                    "agent_token": tokens[i]})

            calls = {"get": (get, args.n), "create": (make, args.creates),
                     "detail": (detail, max(args.n // 100, 10)),
                     "list": (listing, max(args.n // 100, 10)),
                     "patch": (patch, args.creates),
                     "lookup": (lookup, args.n),
                     "heartbeat": (heartbeat, args.n)}
            if args.profile:
                func, count = calls[args.profile]
                cpu_ms(func, count // 4)  # warm up
                print(profile(func, count, args.top, args.profile_out))
                return 0
            result = {}
            for name in only:
                func, count = calls[name]
                cpu_ms(func, count // 4, args.threads)  # warm up
                rounds = [cpu_ms(func, count, args.threads)
                          for _ in range(args.repeat)]
                # The median is the figure; on a loaded machine the
                # least disturbed round (min) tells changes apart better.
                result[name] = {"median_ms": round(statistics.median(rounds),
                                                   3),
                                "min_ms": round(min(rounds), 3),
                                "rounds_ms": [round(r, 3) for r in rounds],
                                "requests": count}
                print(f"{name:9} {result[name]['median_ms']:7.3f} ms CPU/"
                      f"request, min {result[name]['min_ms']:.3f} (rounds "
                      f"{result[name]['rounds_ms']})")
            print(json.dumps(result))
        finally:
            conductor.stop()
    return 0

if __name__ == "__main__":
    sys.exit(main())
