#!/usr/bin/env python3
"""What coordination costs and how fast leadership fails over.

Three ``ironic-conductor`` processes and ``ironic-api`` on a scratch
PostgreSQL database over RabbitMQ (the scenario tests' harness), with a
redis-server of this script's own as the coordination backend, default
coordination settings.

``failover``: ``--kills`` times, SIGKILL the leader of
``ironic.conductors`` and time from the kill to the first leader job run
by another conductor (the leader's log line, millisecond stamps); the
killed conductor is started again before the next kill::

    python tools/bench/ha_bench.py failover --kills 10

``idle``: the CPU seconds three idle conductors use over ``--seconds``
(``/proc/<pid>/stat`` user + system), with the coordination backend and
without (``backend_url`` unset), one cluster after the other::

    python tools/bench/ha_bench.py idle --seconds 60

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

from ironic.tests import dbutils, entry_points  # noqa: E402
from ironic.tests.scenario.cluster import Cluster, wait_for  # noqa: E402
from ironic.tests.scenario.redis_server import RedisServer  # noqa: E402

PG = "postgresql+psycopg2://postgres@127.0.0.1:5432/postgres"
RABBIT = "rabbit://guest:guest@127.0.0.1:5672/"
LEADER = "is now the leader of ironic.conductors"
WORKED = "Leader job release_dead_locks ran on"


def _stamp(line: str) -> float:
    import datetime
    return datetime.datetime.strptime(
        " ".join(line.split()[:2]), "%Y-%m-%d %H:%M:%S.%f").timestamp()


def _events(cl: Cluster, marker: str) -> list[tuple[float, str]]:
    out = []
    for host in cl.hosts:
        out += [(_stamp(line), host) for line in cl.log_lines(host, marker)]
    return sorted(out)


def _cluster(workdir: Path, db_url: str, backend: str | None) -> Cluster:
    extra = {"coordination": {"backend_url": backend}} if backend else {}
    # Idle means idle: no power sync either way (no nodes anyway).
    return Cluster(workdir, db_url, RABBIT, tag=uuid.uuid4().hex[:6],
                   extra=extra)


def failover(args) -> dict:
    work = Path(tempfile.mkdtemp(prefix="ha-bench-"))
    redis = RedisServer(work / "redis").start()
    times = []
    try:
        with dbutils.scratch_database(PG) as url:
            cl = _cluster(work, url, redis.url)
            try:
                cl.start()
                for i in range(args.kills):
                    leader = wait_for(lambda: _events(cl, LEADER), 60,
                                      "a leader")[-1][1]
                    wait_for(lambda: all(
                        cl.log_lines(h, "joined the group")
                        for h in cl.hosts), 60, "every member")
                    time.sleep(2)
                    killed_at = time.time()
                    cl.conductors[leader].proc.kill()
                    cl.conductors[leader].wait(10)

                    def worked(leader=leader, killed_at=killed_at):
                        runs = [t for t, h in _events(cl, WORKED)
                                if h != leader and t > killed_at]
                        return runs[0] if runs else None

                    took = wait_for(worked, 60, "a new leader") - killed_at
                    times.append(took)
                    print(f"kill {i + 1}: new leader working after "
                          f"{took:.2f} s", flush=True)
                    joins = len(cl.log_lines(leader, "joined the group"))
                    cl.conductors[leader].start()
                    wait_for(lambda leader=leader, joins=joins: len(
                        cl.log_lines(leader, "joined the group")) > joins,
                        90, "the killed conductor to rejoin")
            finally:
                cl.stop()
    finally:
        redis.stop()
    return {"kills": len(times), "median_s": round(statistics.median(times),
                                                     2),
            "max_s": round(max(times), 2), "all_s": [round(t, 2)
                                                     for t in times]}


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _idle_cpu(backend: str | None, seconds: float) -> float:
    work = Path(tempfile.mkdtemp(prefix="ha-bench-idle-"))
    with dbutils.scratch_database(PG) as url:
        cl = _cluster(work, url, backend)
        try:
            cl.start()
            time.sleep(10)  # start-up work settles
            pids = [p.proc.pid for p in cl.conductors.values()]
            before = sum(_cpu_seconds(p) for p in pids)
            time.sleep(seconds)
            after = sum(_cpu_seconds(p) for p in pids)
        finally:
            cl.stop()
    return after - before


def idle(args) -> dict:
    work = Path(tempfile.mkdtemp(prefix="ha-bench-"))
    redis = RedisServer(work / "redis").start()
    try:
        with_coord = _idle_cpu(redis.url, args.seconds)
    finally:
        redis.stop()
    without = _idle_cpu(None, args.seconds)
    per_core = lambda cpu: round(100 * cpu / args.seconds, 2)  # noqa: E731
    return {"seconds": args.seconds,
            "cpu_s_with": round(with_coord, 2),
            "cpu_s_without": round(without, 2),
            "pct_of_one_core_with": per_core(with_coord),
            "pct_of_one_core_without": per_core(without),
            "coordination_cost_pct_of_one_core":
                per_core(with_coord - without)}


def main() -> None:
    # The conductors find the plugins of setup.cfg as the tests' do.
    entry_points.expose(str(ROOT / "setup.cfg"))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("failover")
    f.add_argument("--kills", type=int, default=10)
    i = sub.add_parser("idle")
    i.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    result = {"failover": failover, "idle": idle}[args.command](args)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
