#!/usr/bin/env python3
"""What ``ironic-pxe-filter`` costs with many nodes, and how fast it follows.

``sync``: a database of ``--nodes`` nodes with a port each (``--inspecting``
of them in ``inspect wait``) and an empty host directory; then one full
synchronisation writing every file (cold), ``--repeat`` with nothing to
change (steady, the periodic case) and one after ``--flip`` nodes entered
inspection. Each reports wall and CPU seconds of this process and the SQL
queries it ran (one is the goal). sqlite by default; ``--db-url`` names a
MariaDB or PostgreSQL server, where a scratch database is created and
dropped::

    python tools/bench/pxe_filter_bench.py sync --nodes 10000

``rpc``: the all-in-one service over RabbitMQ and ``ironic-pxe-filter`` as
processes on one sqlite database grown to ``--nodes`` nodes; ``--samples``
nodes are inspected one after the other and the time from sending the
``inspect`` request to the node's allow entry appearing in the host
directory is recorded (the filter's period is 600 s: only the conductor's
``update_pxe_filters`` broadcast can explain a quick allow)::

    python tools/bench/pxe_filter_bench.py rpc --nodes 10000 --samples 200

The last line printed is the JSON result.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _mac(i: int) -> str:
    return ":".join(f"{o:02x}" for o in
                    (0x52, 0x54, 0x20, (i >> 16) & 255, (i >> 8) & 255,
                     i & 255))


# -- sync -------------------------------------------------------------------

def _seed(nodes: int, inspecting: int) -> None:
    import sqlalchemy as sa

    from ironic.db.sqlalchemy import api as sqla_api
    from ironic.db.sqlalchemy import models
    engine = sqla_api.get_engine()
    rows = [{"uuid": str(uuid.uuid4()), "driver": "fake-hardware",
             "inspect_interface": "agent", "conductor_group": "",
             "provision_state": "inspect wait" if i < inspecting
             else "manageable"} for i in range(nodes)]
    with engine.begin() as conn:
        conn.execute(sa.insert(models.Node), rows)
        ids = [r[0] for r in conn.execute(
            sa.select(models.Node.id).order_by(models.Node.id))]
        conn.execute(sa.insert(models.Port), [
            {"uuid": str(uuid.uuid4()), "node_id": node_id,
             "address": _mac(i), "pxe_enabled": True}
            for i, node_id in enumerate(ids)])


class _Statements:
    def __init__(self):
        import sqlalchemy as sa

        from ironic.db.sqlalchemy import api as sqla_api
        self.count = 0
        sa.event.listen(sqla_api.get_engine(), "before_cursor_execute",
                        self._seen)

    def _seen(self, conn, cursor, statement, *args):
        # The sqlite dialect's emulated BEGIN is not a query.
        if statement.strip().upper() not in ("BEGIN", "COMMIT"):
            self.count += 1


def _timed(statements: _Statements, pxe) -> dict:
    before = statements.count
    wall, cpu = time.perf_counter(), time.process_time()
    assert pxe.sync()
    return {"wall_s": round(time.perf_counter() - wall, 4),
            "cpu_s": round(time.process_time() - cpu, 4),
            "queries": statements.count - before}


def _flip(count: int) -> None:
    import sqlalchemy as sa

    from ironic.db.sqlalchemy import api as sqla_api
    from ironic.db.sqlalchemy import models
    with sqla_api.get_engine().begin() as conn:
        ids = [r[0] for r in conn.execute(
            sa.select(models.Node.id).where(
                models.Node.provision_state == "manageable").limit(count))]
        conn.execute(sa.update(models.Node).where(models.Node.id.in_(ids))
                     .values(provision_state="inspect wait"))


def run_sync(args) -> dict:
    work = Path(tempfile.mkdtemp(prefix="pxe-bench-"))
    if not args.db_url:
        return _sync_on(args, work, f"sqlite:///{work / 'ironic.sqlite'}")
    from ironic.tests import dbutils
    with dbutils.scratch_database(args.db_url) as url:
        try:
            return _sync_on(args, work, url)
        finally:
            from ironic.db.sqlalchemy import api as sqla_api
            sqla_api.dispose()


def _sync_on(args, work: Path, url: str) -> dict:
    from ironic.conf import CONF
    from ironic.db import migration
    from ironic.db.sqlalchemy import api as sqla_api
    from ironic.pxe_filter import hostsdir
    from ironic.pxe_filter import service as pxe_service
    CONF([], project="ironic")
    CONF.set_override("connection", url, group="database")
    sqla_api.dispose()
    migration.upgrade("head")
    _seed(args.nodes, args.inspecting)
    (work / "hostsdir").mkdir()
    pxe = pxe_service.PXEFilter(hostsdir.HostsDir(str(work / "hostsdir")))
    statements = _Statements()
    cold = _timed(statements, pxe)
    steady = [_timed(statements, pxe) for _ in range(args.repeat)]
    _flip(args.flip)
    changed = _timed(statements, pxe)
    return {"nodes": args.nodes, "inspecting": args.inspecting,
            "database": url.split(":")[0], "cold": cold,
            "steady_median": {k: statistics.median(s[k] for s in steady)
                              for k in ("wall_s", "cpu_s", "queries")},
            "steady_max_wall_s": max(s["wall_s"] for s in steady),
            f"after_{args.flip}_entered_inspection": changed}


# -- rpc --------------------------------------------------------------------

def _api(endpoint: str, method: str, path: str, body=None):
    import requests
    resp = requests.request(method, endpoint + path, json=body, timeout=30,
                            headers={"X-OpenStack-Ironic-API-Version":
                                     "1.84"})
    resp.raise_for_status()
    return resp.json() if resp.content else None


def _wait_state(endpoint: str, uuid_: str, state: str) -> None:
    deadline = time.monotonic() + 60
    while _api(endpoint, "GET", f"/v1/nodes/{uuid_}")[
            "provision_state"] != state:
        if time.monotonic() > deadline:
            raise SystemExit(f"node {uuid_} never reached {state}")
        time.sleep(0.05)


def _allowed(path: Path, mac: str) -> bool:
    try:
        return (path / mac).read_text() == f"{mac}\n"
    except FileNotFoundError:
        return False


def run_rpc(args) -> dict:
    from ironic.tests.functional import service as svc
    from tools.bench import seed_sqlite
    work = Path(tempfile.mkdtemp(prefix="pxe-rpc-bench-"))
    hosts = work / "hostsdir"
    hosts.mkdir()
    drivers = dict(svc.TEST_DRIVERS,
                   enabled_inspect_interfaces="fake,no-inspect,agent")
    sections = {"DEFAULT": {
        "rpc_transport": "oslo", "transport_url": args.transport_url,
        "control_exchange": f"ironic-bench-{uuid.uuid4().hex[:8]}"},
        "pxe_filter": {"dhcp_hostsdir": str(hosts), "sync_period": "600"},
        "inspector": {"power_off": "false"}}
    service = svc.Service(work, drivers=drivers, sections=sections).start()
    samples = []
    for i in range(args.samples):
        node = _api(service.endpoint, "POST", "/v1/nodes",
                    {"driver": "fake-hardware", "inspect_interface": "agent"})
        _api(service.endpoint, "POST", "/v1/ports",
             {"node_uuid": node["uuid"], "address": _mac(0xF00000 + i)})
        _api(service.endpoint, "PUT",
             f"/v1/nodes/{node['uuid']}/states/provision",
             {"target": "manage"})
        samples.append((node["uuid"], _mac(0xF00000 + i)))
    for uuid_, _ in samples:
        _wait_state(service.endpoint, uuid_, "manageable")
    service.stop()
    seed_sqlite.grow(str(work / "state" / "ironic.sqlite"), args.nodes)
    service.start()
    import subprocess
    pxe = subprocess.Popen(
        [sys.executable, "-m", "ironic.command.pxe_filter",
         "--config-file", str(service.config),
         "--log-file", str(work / "filter.log")], env=svc._child_env())
    try:
        deadline = time.monotonic() + 120
        while "Listening" not in _read(work / "filter.log") or \
                "synchronised" not in _read(work / "filter.log"):
            if time.monotonic() > deadline or pxe.poll() is not None:
                raise SystemExit(_read(work / "filter.log")[-3000:])
            time.sleep(0.1)
        latencies, requests_s = [], []
        for uuid_, mac in samples:
            started = time.perf_counter()
            _api(service.endpoint, "PUT",
                 f"/v1/nodes/{uuid_}/states/provision", {"target": "inspect"})
            requests_s.append(time.perf_counter() - started)
            while not _allowed(hosts, mac):
                if time.perf_counter() - started > 30:
                    raise SystemExit(f"{mac} never allowed")
                time.sleep(0.001)
            latencies.append(time.perf_counter() - started)
    finally:
        pxe.terminate()
        pxe.wait(30)
        service.stop()
    return {"nodes": args.nodes, "samples": len(latencies),
            "inspect_to_allow_ms": _percentiles(latencies),
            "of_which_the_inspect_request_ms": _percentiles(requests_s)}


def _percentiles(values: list[float]) -> dict:
    values = sorted(values)
    return {"p50": round(statistics.median(values) * 1000, 1),
            "p99": round(values[max(0, -(-len(values) * 99 // 100) - 1)]
                         * 1000, 1),
            "max": round(values[-1] * 1000, 1)}


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sync = sub.add_parser("sync")
    sync.add_argument("--nodes", type=int, default=10000)
    sync.add_argument("--inspecting", type=int, default=100)
    sync.add_argument("--repeat", type=int, default=5)
    sync.add_argument("--flip", type=int, default=10)
    sync.add_argument("--db-url")
    rpc = sub.add_parser("rpc")
    rpc.add_argument("--nodes", type=int, default=10000)
    rpc.add_argument("--samples", type=int, default=200)
    rpc.add_argument("--transport-url", default=os.environ.get(
        "IRONIC_TEST_RABBITMQ_URL",
        "rabbit://guest:guest@127.0.0.1:5672/").replace("amqp://",
                                                         "rabbit://", 1))
    args = parser.parse_args(argv)
    result = run_sync(args) if args.command == "sync" else run_rpc(args)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
