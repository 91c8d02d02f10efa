#!/usr/bin/env python3
"""Load a Bare Metal API endpoint and report throughput, latency and memory.

A plain HTTP client (requests and a thread pool); it imports nothing from
``ironic`` so the very same run can be pointed at this service and at the
real Ironic, and the two JSON results compared (``ratios.py``).

Phases, in this order (``--phases``):

* ``create``: ``POST /v1/nodes`` (fake-hardware) then ``POST /v1/ports``
  with a unique MAC, for N nodes, C requests in flight.
* ``list``: every node, following ``next`` links, for ``/v1/nodes``,
  ``/v1/nodes/detail`` and ``/v1/nodes?fields=...``; repeated R times,
  the median kept. ``/v1/ports`` is listed the same way.
* ``get``: ``GET /v1/nodes/<uuid>`` for the sampled nodes.
* ``get1``: the same one request at a time (latency without queueing),
  for at most 300 nodes.
* ``patch``: ``PATCH /v1/nodes/<uuid>`` replacing ``/extra/foo``.
* ``provision``: the first M nodes (``--prov-nodes``) through the whole
  fake-hardware lifecycle: ``manage`` -> ``provide`` -> ``active`` ->
  ``deleted``. Every node gets its ``PUT .../states/provision`` (C in
  flight, a 409 retried), then every node is polled with ``GET ?fields=``
  until it reaches the state, and the next verb starts. Reports the wall
  time of each verb, enroll -> active and back, and the PUT latencies.
* ``delete``: ``DELETE /v1/nodes/<uuid>`` for the nodes of this run
  (not run unless asked).

Without ``create``, the nodes already on the server are used (so a large
database can be listed again without creating it again). ``--pid`` reads the
server's resident memory and CPU time from /proc.

The last line of stdout is the JSON result; ``--json-out`` also saves it.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable

import requests

PHASES = ("create", "list", "get", "get1", "patch", "provision", "delete")
LIFECYCLE = (("manage", "manageable"), ("provide", "available"),
             ("active", "active"), ("deleted", "available"))
FAILED_STATES = {"deploy failed", "clean failed", "inspect failed", "error",
                 "adopt failed", "rescue failed", "service failed"}
DEFAULT_PHASES = "create,list,get,get1,patch"
LIST_VARIANTS = (
    ("nodes", "/v1/nodes", None),
    ("nodes_detail", "/v1/nodes/detail", None),
    ("nodes_fields", "/v1/nodes",
     {"fields": "uuid,provision_state,power_state"}),
    ("ports", "/v1/ports", None),
)


class Result:
    """Outcome of one request."""

    __slots__ = ("status", "seconds", "doc", "size")

    def __init__(self, status: int | str, seconds: float,
                 doc: Any = None, size: int = 0):
        self.status = status
        self.seconds = seconds
        self.doc = doc
        self.size = size

    @property
    def ok(self) -> bool:
        return isinstance(self.status, int) and self.status < 300


def nearest_rank(values: list[float], pct: float) -> float | None:
    """Percentile by nearest rank of sorted ``values``."""
    if not values:
        return None
    index = max(0, -(-len(values) * pct // 100) - 1)
    return values[int(index)]


def latency_summary(results: list[Result], wall: float) -> dict:
    times = sorted(r.seconds for r in results)
    codes: dict[str, int] = {}
    for r in results:
        codes[str(r.status)] = codes.get(str(r.status), 0) + 1
    good = sum(r.ok for r in results)

    def ms(v):
        return None if v is None else round(v * 1000, 2)
    return {
        "requests": len(results), "ok": good, "status_codes": codes,
        "wall_s": round(wall, 3),
        "req_per_s": round(good / wall, 1) if wall > 0 else None,
        "p50_ms": ms(nearest_rank(times, 50)),
        "p90_ms": ms(nearest_rank(times, 90)),
        "p99_ms": ms(nearest_rank(times, 99)),
        "max_ms": ms(times[-1] if times else None),
    }


# -- the server's process, read from /proc ------------------------------------

def _children(pid: int) -> list[int]:
    found = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                found.extend(int(c) for c in f.read().split())
    except OSError:
        pass
    return found


def process_tree(roots: Iterable[int]) -> list[int]:
    todo, seen = list(roots), []
    while todo:
        pid = todo.pop()
        if pid not in seen and os.path.isdir(f"/proc/{pid}"):
            seen.append(pid)
            todo.extend(_children(pid))
    return seen


def _status_kib(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def memory(pids: list[int]) -> dict:
    tree = process_tree(pids)
    return {
        "processes": len(tree),
        "total_rss_mib": round(sum(_status_kib(p, "VmRSS")
                                   for p in tree) / 1024, 1),
        "total_hwm_mib": round(sum(_status_kib(p, "VmHWM")
                                   for p in tree) / 1024, 1),
    }


def cpu(pids: list[int]) -> float:
    return sum(_cpu_seconds(p) for p in process_tree(pids))


# -- HTTP -------------------------------------------------------------------------

class Client:
    """One keep-alive session per thread; latency includes the body read."""

    def __init__(self, url: str, api_version: str, timeout: float):
        self.base = url.rstrip("/")
        self.timeout = timeout
        self.headers = {"Accept": "application/json"}
        if api_version:
            self.headers["X-OpenStack-Ironic-API-Version"] = api_version
        self._local = threading.local()

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = requests.Session()
            session.headers.update(self.headers)
            self._local.session = session
        return session

    def call(self, method: str, path: str, body: Any = None,
             params: dict | None = None) -> Result:
        url = path if path.startswith("http") else self.base + path
        start = time.perf_counter()
        try:
            resp = self._session().request(method, url, json=body,
                                           params=params,
                                           timeout=self.timeout)
            raw = resp.content
        except requests.RequestException as e:
            return Result(f"error:{type(e).__name__}",
                          time.perf_counter() - start)
        seconds = time.perf_counter() - start
        try:
            doc = json.loads(raw) if raw else None
        except ValueError:
            doc = None
        return Result(resp.status_code, seconds, doc, len(raw))


# -- the workload -------------------------------------------------------------------

class Bench:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.client = Client(args.url, args.api_version, args.timeout)
        self.pool = ThreadPoolExecutor(max_workers=args.concurrency)
        self.tag = args.run_id or f"{random.getrandbits(32):08x}"
        self.mac_prefix = random.getrandbits(16)
        self.nodes: list[str] = []
        self.started = time.perf_counter()

    def log(self, text: str) -> None:
        print(f"[{time.perf_counter() - self.started:8.1f}s] {text}",
              file=sys.stderr, flush=True)

    def parallel(self, func: Callable, items: Iterable
                 ) -> tuple[list, float]:
        start = time.perf_counter()
        out = list(self.pool.map(func, items))
        return out, time.perf_counter() - start

    def mac(self, i: int) -> str:
        octets = [0x52, self.mac_prefix >> 8, self.mac_prefix & 0xFF,
                  (i >> 16) & 0xFF, (i >> 8) & 0xFF, i & 0xFF]
        return ":".join(f"{o:02x}" for o in octets)

    def sampled(self) -> list[str]:
        return self.nodes[:self.args.samples or len(self.nodes)]

    # create ---------------------------------------------------------------

    def _create(self, i: int) -> tuple[Result, Result | None]:
        node = self.client.call("POST", "/v1/nodes", {
            "driver": self.args.driver,
            "name": f"bench-{self.tag}-{i:06d}",
            "resource_class": "bench",
            "properties": {"cpus": 8, "memory_mb": 16384, "local_gb": 100,
                           "cpu_arch": "x86_64"},
            "extra": {"foo": "initial"},
        })
        if not node.ok:
            return node, None
        port = self.client.call("POST", "/v1/ports", {
            "node_uuid": node.doc["uuid"], "address": self.mac(i)})
        return node, port

    def phase_create(self) -> dict:
        done, wall = self.parallel(self._create, range(self.args.nodes))
        nodes = [n for n, _ in done]
        ports = [p for _, p in done if p is not None]
        self.nodes = [n.doc["uuid"] for n in nodes if n.ok]
        with_port = sum(1 for p in ports if p.ok)
        return {
            "nodes_requested": self.args.nodes,
            "nodes_created": len(self.nodes),
            "nodes_created_with_port": with_port,
            "wall_s": round(wall, 3),
            "nodes_per_s": round(len(self.nodes) / wall, 1),
            "req_per_s": round((len(self.nodes) + with_port) / wall, 1),
            "node_post": latency_summary(nodes, wall),
            "port_post": latency_summary(ports, wall),
        }

    # list -----------------------------------------------------------------

    def walk(self, path: str, params: dict | None, key: str) -> dict:
        """Fetch every page by following ``next``."""
        start = time.perf_counter()
        items = pages = size = 0
        status: int | str = 200
        url: str | None = path
        first_ms = None
        while url:
            res = self.client.call("GET", url,
                                   params=params if pages == 0 else None)
            if first_ms is None:
                first_ms = res.seconds * 1000
            if not res.ok:
                status = res.status
                break
            pages += 1
            items += len(res.doc.get(key, []))
            size += res.size
            url = res.doc.get("next")
        return {"status": status, "items": items, "pages": pages,
                "bytes": size, "seconds": time.perf_counter() - start,
                "first_page_ms": first_ms}

    def phase_list(self) -> dict:
        out = {}
        for name, path, params in LIST_VARIANTS:
            key = "ports" if name == "ports" else "nodes"
            runs = [self.walk(path, params, key)
                    for _ in range(self.args.list_repeat)]
            secs = sorted(r["seconds"] for r in runs)
            last = runs[-1]
            out[name] = {
                "status": last["status"], "items": last["items"],
                "pages": last["pages"], "bytes": last["bytes"],
                "repeats": len(runs),
                "total_s_median": round(statistics.median(secs), 3),
                "total_s_min": round(secs[0], 3),
                "first_page_ms_median": round(statistics.median(
                    r["first_page_ms"] for r in runs), 1),
            }
            self.log(f"list {name}: {last['items']} items, "
                     f"{last['pages']} pages, median {out[name]['total_s_median']}s")
        return out

    # single nodes ---------------------------------------------------------

    def phase_get(self) -> dict:
        res, wall = self.parallel(
            lambda u: self.client.call("GET", f"/v1/nodes/{u}"),
            self.sampled())
        return latency_summary(res, wall)

    def phase_get1(self) -> dict:
        start = time.perf_counter()
        res = [self.client.call("GET", f"/v1/nodes/{u}")
               for u in self.sampled()[:300]]
        return latency_summary(res, time.perf_counter() - start)

    def phase_patch(self) -> dict:
        body = [{"op": "replace", "path": "/extra/foo",
                 "value": f"bench-{self.tag}"}]
        res, wall = self.parallel(
            lambda u: self.client.call("PATCH", f"/v1/nodes/{u}", body),
            self.sampled())
        return latency_summary(res, wall)

    # provision -----------------------------------------------------------

    def _put_provision(self, uuid: str, verb: str) -> Result:
        """PUT a verb; a node still locked by its previous step is retried
        for up to ``--timeout`` seconds."""
        deadline = time.monotonic() + self.args.timeout
        while True:
            res = self.client.call("PUT", f"/v1/nodes/{uuid}/states/provision",
                                   {"target": verb})
            if res.status != 409 or time.monotonic() > deadline:
                return res
            time.sleep(self.args.poll_interval)

    def _wait_for(self, uuids: list[str], state: str) -> tuple[int, dict]:
        """Poll until every node shows ``state``; returns the number of
        GETs and the nodes that failed or timed out."""
        fields = "provision_state,target_provision_state,last_error"
        pending, failed, polls = list(uuids), {}, 0
        deadline = time.monotonic() + self.args.timeout
        while pending:
            docs, _ = self.parallel(
                lambda u: self.client.call("GET", f"/v1/nodes/{u}",
                                           params={"fields": fields}),
                pending)
            polls += len(docs)
            still = []
            for uuid, res in zip(pending, docs, strict=True):
                doc = res.doc or {}
                current = doc.get("provision_state")
                settled = not doc.get("target_provision_state")
                if res.ok and current == state and settled:
                    continue
                if res.ok and (current in FAILED_STATES or (
                        settled and doc.get("last_error"))):
                    failed[uuid] = doc
                    continue
                still.append(uuid)
            pending = still
            if pending and time.monotonic() > deadline:
                failed.update({u: "timeout" for u in pending})
                break
            if pending:
                time.sleep(self.args.poll_interval)
        return polls, failed

    def phase_provision(self) -> dict:
        uuids = self.nodes[:self.args.prov_nodes]
        steps, every_put = {}, []
        for verb, state in LIFECYCLE:
            start = time.perf_counter()
            puts, put_wall = self.parallel(
                lambda u, v=verb: self._put_provision(u, v), uuids)
            every_put += puts
            accepted = [u for u, r in zip(uuids, puts, strict=True) if r.ok]
            polls, failed = self._wait_for(accepted, state)
            wall = time.perf_counter() - start
            steps[verb] = {
                "wall_s": round(wall, 3),
                "reached": len(accepted) - len(failed),
                "rejected": len(uuids) - len(accepted),
                "failed": len(failed), "polls": polls,
                "put": latency_summary(puts, put_wall),
                "example_failure": next(iter(failed.values()), None),
            }
            self.log(f"provision {verb}: {steps[verb]['reached']}/"
                     f"{len(uuids)} {state} in {wall:.2f}s")
        to_active = sum(steps[v]["wall_s"] for v, _ in LIFECYCLE[:3])
        return {
            "nodes": len(uuids),
            "enroll_to_active_s": round(to_active, 3),
            "enroll_to_active_nodes_per_s": round(len(uuids) / to_active, 2)
            if to_active else None,
            "undeploy_s": steps["deleted"]["wall_s"],
            "put": latency_summary(every_put, sum(
                v["put"]["wall_s"] for v in steps.values())),
            "steps": steps,
        }

    def phase_delete(self) -> dict:
        res, wall = self.parallel(
            lambda u: self.client.call("DELETE", f"/v1/nodes/{u}"),
            self.nodes)
        return latency_summary(res, wall)

    # driver -----------------------------------------------------------------

    def existing_nodes(self) -> list[str]:
        uuids: list[str] = []
        url: str | None = "/v1/nodes"
        params: dict | None = {"fields": "uuid"}
        while url:
            res = self.client.call("GET", url, params=params)
            if not res.ok:
                raise SystemExit(f"cannot list nodes: {res.status}")
            uuids.extend(n["uuid"] for n in res.doc["nodes"])
            url, params = res.doc.get("next"), None
        return uuids

    def run(self) -> dict:
        args = self.args
        phases = [p for p in PHASES if p in args.phases]
        pids = args.pid or []
        root = self.client.call("GET", "/")
        meta = {
            "url": args.url, "label": args.label, "nodes": args.nodes,
            "prov_nodes": args.prov_nodes, "concurrency": args.concurrency,
            "samples": args.samples, "list_repeat": args.list_repeat,
            "phases": phases, "run_id": self.tag,
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "host": platform.node(), "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "server_max_version": ((root.doc or {}).get("default_version")
                                   or {}).get("version"),
        }
        self.parallel(lambda _: self.client.call("GET", "/v1"),
                      range(args.concurrency * 2))
        report: dict[str, Any] = {"meta": meta, "results": {}}
        if pids:
            report["server_memory"] = {"before": memory(pids)}
        if "create" not in phases:
            self.nodes = self.existing_nodes()
            meta["nodes"] = len(self.nodes)
        for phase in phases:
            self.log(f"phase {phase}")
            # What earlier phases kept (thousands of parsed documents) is
            # set aside from this client's garbage collector: a full
            # collection walking it inside a timed phase took 6-7 ms of a
            # 7 ms list of 1,000 nodes, whichever server was measured.
            gc.collect()
            gc.freeze()
            cpu0, start = cpu(pids), time.perf_counter()
            result = getattr(self, f"phase_{phase}")()
            result["phase_wall_s"] = round(time.perf_counter() - start, 3)
            if pids:
                result["server_cpu_s"] = round(cpu(pids) - cpu0, 2)
            report["results"][phase] = result
        if pids:
            report["server_memory"]["after"] = memory(pids)
        self.pool.shutdown()
        return report


# -- output ---------------------------------------------------------------------

def _lat(s: dict) -> str:
    codes = ",".join(f"{k}:{v}" for k, v in sorted(s["status_codes"].items()))
    return (f"p50 {s['p50_ms']} ms  p99 {s['p99_ms']} ms  "
            f"{s['req_per_s']} req/s  [{codes}]")


def table(report: dict) -> list[tuple[str, str]]:
    res = report["results"]
    rows = [("url", report["meta"]["url"]),
            ("nodes / concurrency", f"{report['meta']['nodes']} / "
                                    f"{report['meta']['concurrency']}")]
    if "create" in res:
        c = res["create"]
        rows += [("create", f"{c['nodes_created']} nodes "
                            f"({c['nodes_created_with_port']} with a port) in "
                            f"{c['wall_s']}s = {c['nodes_per_s']} nodes/s"),
                 ("  POST /v1/nodes", _lat(c["node_post"])),
                 ("  POST /v1/ports", _lat(c["port_post"]))]
    for name, v in res.get("list", {}).items():
        if not isinstance(v, dict):
            continue
        rows.append((f"list all {name}",
                     f"{v['items']} items / {v['pages']} pages: median "
                     f"{v['total_s_median']}s, min {v['total_s_min']}s, "
                     f"first page {v['first_page_ms_median']} ms"))
    if "provision" in res:
        r = res["provision"]
        rows.append(("provision enroll->active",
                     f"{r['nodes']} nodes in {r['enroll_to_active_s']}s = "
                     f"{r['enroll_to_active_nodes_per_s']} nodes/s; "
                     f"undeploy {r['undeploy_s']}s"))
        rows.append(("  every PUT", _lat(r["put"])))
        for verb, step in r["steps"].items():
            rows.append((f"  {verb}", f"{step['reached']} reached, "
                                      f"{step['failed']} failed, "
                                      f"{step['rejected']} rejected in "
                                      f"{step['wall_s']}s; PUT "
                                      + _lat(step["put"])))
    for phase in ("get", "get1", "patch", "delete"):
        if phase in res:
            rows.append((f"{phase} node", _lat(res[phase])))
    for phase, r in res.items():
        rows.append((f"server cpu {phase}", f"{r.get('server_cpu_s')} s "
                                            f"in {r['phase_wall_s']} s"))
    mem = report.get("server_memory")
    if mem:
        rows.append(("server RSS before/after (peak)",
                     f"{mem['before']['total_rss_mib']} / "
                     f"{mem['after']['total_rss_mib']} MiB "
                     f"({mem['after']['total_hwm_mib']} MiB)"))
    return rows


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", default="http://127.0.0.1:6385")
    p.add_argument("--phases", default=DEFAULT_PHASES,
                   help=f"comma separated, from {','.join(PHASES)}")
    p.add_argument("-n", "--nodes", type=int, default=1000)
    p.add_argument("-c", "--concurrency", type=int, default=8)
    p.add_argument("--samples", type=int, default=0,
                   help="nodes used by get/patch (default: all)")
    p.add_argument("--list-repeat", type=int, default=3)
    p.add_argument("--driver", default="fake-hardware")
    p.add_argument("--api-version", default="latest",
                   help="X-OpenStack-Ironic-API-Version ('' for none)")
    p.add_argument("--pid", type=int, action="append",
                   help="server process id (repeatable; children count)")
    p.add_argument("--prov-nodes", type=int, default=100,
                   help="M: nodes taken through the provision phase")
    p.add_argument("--poll-interval", type=float, default=0.5,
                   help="seconds between polls of pending nodes")
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument("--run-id", help="tag in node names (default random)")
    p.add_argument("--label", default="")
    p.add_argument("--json-out")
    args = p.parse_args(argv)
    args.phases = [x for x in args.phases.split(",") if x]
    bad = set(args.phases) - set(PHASES)
    if bad:
        p.error(f"unknown phases: {', '.join(sorted(bad))}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report = Bench(args).run()
    rows = table(report)
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(report, f, indent=1)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
