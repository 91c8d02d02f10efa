#!/usr/bin/env python3
"""The all-in-one service with N nodes through K power sync cycles, with
healthy BMCs or with every BMC failing, and how fast it recovers.

    python tools/bench/power_outage_bench.py --nodes 50000 --cycles 10 \\
        --interval 30 --mode failing

Writes N manageable nodes straight into a fresh database (``--db-url``;
a sqlite file in the work directory by default), starts ``ironic`` (API
and conductor in one process) with ``sync_power_state_interval`` and
``power_failure_recovery_interval`` set to ``--interval``, and reports,
over K sync cycles after the first one:

* the CPU the process used, in cores (CPU seconds / wall seconds);
* its resident memory after the cycles (and at the start);
* log bytes per cycle and how many "database is locked" lines;
* cycles are counted on the service's Prometheus endpoint
  (``ironic_power_sync_cycle_seconds``), which also gives their length.

Modes: ``healthy`` (the ``fake`` power interface: every BMC answers) and
``failing`` (``ipmitool`` without ``ipmi_address``: every question fails
at once, as a partitioned BMC network looks to the conductor; after
``power_state_sync_max_retries`` + 1 cycles every node is in maintenance
with the fault ``power failure``). With ``failing`` the BMCs then "come
back": every node's power interface is switched to ``fake`` in the
database behind the service's back, so the next question to each BMC
gets an answer, and the bench measures the time until every node is out
of maintenance with no power sync error left (the goal: two cycles).
With ``--conductors K`` (K > 1) the service is split as an operator
runs it: one ``ironic-api`` and K ``ironic-conductor`` processes (hosts
``outage-cond0``..) sharing ``--db-url`` and RabbitMQ (``--transport-url``),
the nodes spread over them by the hash ring; each conductor serves its own
Prometheus endpoint, and CPU, RSS and log bytes are reported per process
and summed. ``--fresh-db SERVER_URL`` creates an empty database on that
server (PostgreSQL or MariaDB/MySQL) for the run and drops it afterwards.
The last line of the output is the JSON result.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid as uuidlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

INTERFACES = {
    "bios": "no-bios", "boot": "fake", "console": "no-console",
    "deploy": "fake", "firmware": "no-firmware", "inspect": "no-inspect",
    "management": "fake", "network": "noop", "raid": "no-raid",
    "rescue": "no-rescue", "storage": "noop", "vendor": "no-vendor",
}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _interfaces_conf() -> str:
    return "\n".join(f"enabled_{kind}_interfaces = {name}"
                     for kind, name in INTERFACES.items())


def _config(workdir: pathlib.Path, db_url: str, args: argparse.Namespace,
            name: str, api_port: int | None,
            metrics_port: int | None) -> pathlib.Path:
    """The configuration of process ``name``: ``ironic`` (all-in-one),
    ``ironic-api`` or a conductor's host name."""
    split = args.conductors > 1
    default = [f"state_path = {workdir}", "auth_strategy = noauth",
               f"log_file = {workdir}/{name}.log",
               "enabled_hardware_types = fake-hardware",
               "enabled_power_interfaces = fake,ipmitool",
               _interfaces_conf()]
    if split:
        default += ["rpc_transport = oslo",
                    f"transport_url = {args.transport_url}"]
    else:
        default += ["rpc_transport = none"]
    if name == "ironic":
        default.insert(0, "host = outage-bench")
    elif name.startswith("outage-cond"):
        default.insert(0, f"host = {name}")
    text = "[DEFAULT]\n" + "\n".join(default) + f"""
[database]
connection = {db_url}
[dhcp]
dhcp_provider = none
[conductor]
sync_power_state_interval = {args.interval}
power_failure_recovery_interval = {args.interval}
"""
    if api_port is not None:
        text += f"[api]\nhost_ip = 127.0.0.1\nport = {api_port}\n"
    if metrics_port is not None:
        text += f"[metrics]\nprometheus_port = {metrics_port}\n"
    path = workdir / f"{name}.conf"
    path.write_text(text)
    return path


def _env() -> dict[str, str]:
    from ironic.tests import entry_points
    entry_points.expose(str(ROOT / "setup.cfg"))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (*entry_points.child_pythonpath(), str(ROOT),
                    env.get("PYTHONPATH")) if p)
    return env


def _engine(db_url: str):
    import sqlalchemy as sa
    return sa.create_engine(db_url)


def _seed(db_url: str, count: int, power: str) -> None:
    from ironic.db.sqlalchemy import models
    row = {f"{kind}_interface": name for kind, name in INTERFACES.items()}
    row.update(driver="fake-hardware", power_interface=power,
               provision_state="manageable", power_state="power off",
               driver_info={}, driver_internal_info={}, instance_info={},
               properties={}, extra={}, raid_config={},
               target_raid_config={}, network_data={}, clean_step={},
               deploy_step={}, service_step={}, conductor_group="",
               maintenance=False)
    engine = _engine(db_url)
    with engine.begin() as conn:
        for start in range(0, count, 5000):
            conn.execute(models.Node.__table__.insert(), [
                dict(row, uuid=str(uuidlib.uuid4()), name=f"outage-{i}")
                for i in range(start, min(count, start + 5000))])
    engine.dispose()


def _proc_stats(pid: int) -> tuple[float, float]:
    """(CPU seconds, RSS MiB) of ``pid``."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(
        ")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    rss = 0.0
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) / 1024
    return cpu, rss


def _cycles(metrics_port: int) -> tuple[int, float]:
    """(power sync cycles done, their total seconds) from Prometheus."""
    try:
        with urllib.request.urlopen(
                f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as r:
            text = r.read().decode()
    except OSError:
        return 0, 0.0
    count = re.search(r"^ironic_power_sync_cycle_seconds_count\S* (\S+)$",
                      text, re.M)
    total = re.search(r"^ironic_power_sync_cycle_seconds_sum\S* (\S+)$",
                      text, re.M)
    return (int(float(count.group(1))) if count else 0,
            float(total.group(1)) if total else 0.0)


@dataclasses.dataclass
class _Process:
    """One service process of the run and where to read about it."""

    name: str
    popen: subprocess.Popen
    log: pathlib.Path
    metrics_port: int | None  # None: runs no power sync (ironic-api)

    def check(self) -> None:
        if self.popen.poll() is not None:
            raise SystemExit(f"{self.name} exited ({self.popen.returncode})"
                             f"; see {self.log}")

    def log_size(self) -> int:
        return self.log.stat().st_size if self.log.exists() else 0


def _start(workdir: pathlib.Path, name: str, module: str,
           conf: pathlib.Path, env: dict[str, str],
           metrics_port: int | None) -> _Process:
    with open(workdir / f"{name}.out", "wb") as out:
        popen = subprocess.Popen(
            [sys.executable, "-m", f"ironic.command.{module}",
             "--config-file", str(conf)], env=env, stdout=out,
            stderr=subprocess.STDOUT, cwd=workdir)
    return _Process(name, popen, workdir / f"{name}.log", metrics_port)


def _wait_cycles(procs: list[_Process], wanted: dict[str, int],
                 deadline: float) -> dict[str, tuple[int, float]]:
    """Every syncing process's (cycles, seconds) once each has done
    ``wanted[name]`` cycles."""
    syncing = [p for p in procs if p.metrics_port is not None]
    while True:
        done = {p.name: _cycles(p.metrics_port) for p in syncing}
        if all(done[n][0] >= w for n, w in wanted.items()):
            return done
        for proc in procs:
            proc.check()
        if time.monotonic() > deadline:
            raise SystemExit(f"cycles {done} short of {wanted} in time")
        time.sleep(0.5)


def _wait_api(port: int, proc: _Process, deadline: float) -> None:
    while time.monotonic() < deadline:
        proc.check()
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5)
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the API did not answer")


def _abnormal(engine) -> int:
    """Nodes in maintenance or with a power sync error recorded."""
    import sqlalchemy as sa
    with engine.connect() as conn:
        return conn.execute(sa.text(
            "SELECT COUNT(*) FROM nodes WHERE maintenance = :yes OR "
            "last_error LIKE 'Power state sync failed%'"),
            {"yes": True}).scalar()


def _bmcs_return(engine) -> None:
    import sqlalchemy as sa
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE nodes SET power_interface = 'fake'"))


def _recovery(engine, interval: int, budget: float) -> float | None:
    """Seconds from the BMCs' return until every node is normal."""
    _bmcs_return(engine)
    started = time.monotonic()
    while time.monotonic() - started < budget:
        if _abnormal(engine) == 0:
            return time.monotonic() - started
        time.sleep(0.5)
    return None


LOCKED = "database is locked"
# PostgreSQL "deadlock detected", MySQL "Deadlock found" and its
# "Lock wait timeout exceeded": writers waiting on each other.
DEADLOCK = re.compile(r"deadlock|lock wait timeout", re.I)


def _log_lines(procs: list[_Process]) -> dict[str, int]:
    counts = {"database_locked_lines": 0, "deadlock_lines": 0,
              "error_lines": 0}
    for proc in procs:
        for path in (proc.log, proc.log.with_suffix(".out")):
            if not path.exists():
                continue
            for line in path.read_text(errors="replace").splitlines():
                counts["database_locked_lines"] += LOCKED in line
                counts["deadlock_lines"] += bool(DEADLOCK.search(line))
                counts["error_lines"] += " ERROR " in line
    return counts


def _start_services(workdir: pathlib.Path, db_url: str,
                    args: argparse.Namespace, env: dict[str, str],
                    api_port: int) -> list[_Process]:
    """The all-in-one, or ``ironic-api`` then the conductors."""
    if args.conductors == 1:
        metrics = _free_port()
        conf = _config(workdir, db_url, args, "ironic", api_port, metrics)
        return [_start(workdir, "ironic", "singleprocess", conf, env,
                       metrics)]
    api = _config(workdir, db_url, args, "ironic-api", api_port, None)
    procs = [_start(workdir, "ironic-api", "api", api, env, None)]
    for i in range(args.conductors):
        host, metrics = f"outage-cond{i}", _free_port()
        conf = _config(workdir, db_url, args, host, None, metrics)
        procs.append(_start(workdir, host, "conductor", conf, env, metrics))
    return procs


def _stop(procs: list[_Process]) -> None:
    for proc in procs:  # all at once: each drains on its own
        if proc.popen.poll() is None:
            proc.popen.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.popen.wait(60)
        except subprocess.TimeoutExpired:
            proc.popen.kill()
            proc.popen.wait(10)


def _measure(args: argparse.Namespace, procs: list[_Process],
             api_port: int, engine) -> dict:
    budget = time.monotonic() + 120 + args.interval * 4
    _wait_api(api_port, procs[0], budget)
    rss_start = {p.name: _proc_stats(p.popen.pid)[1] for p in procs}
    syncing = [p.name for p in procs if p.metrics_port is not None]
    first = _wait_cycles(procs, dict.fromkeys(syncing, 1), budget)
    before = {p.name: _proc_stats(p.popen.pid) for p in procs}
    wall0 = time.monotonic()
    log0 = {p.name: p.log_size() for p in procs}
    done = _wait_cycles(
        procs, {n: first[n][0] + args.cycles for n in syncing},
        time.monotonic() + args.cycles * (args.interval * 3 + 120))
    after = {p.name: _proc_stats(p.popen.pid) for p in procs}
    wall = time.monotonic() - wall0
    rounds = min(done[n][0] - first[n][0] for n in syncing)
    per: dict[str, dict] = {}
    for proc in procs:
        n = proc.name
        stats = per[n] = {
            "cpu_seconds": round(after[n][0] - before[n][0], 1),
            "cpu_cores": round((after[n][0] - before[n][0]) / wall, 3),
            "rss_start_mib": round(rss_start[n], 1),
            "rss_after_first_cycle_mib": round(before[n][1], 1),
            "rss_after_cycles_mib": round(after[n][1], 1),
            "log_bytes": proc.log_size() - log0[n]}
        if n in done:
            cycles = done[n][0] - first[n][0]
            stats.update(cycles=cycles, cycle_seconds=round(
                (done[n][1] - first[n][1]) / max(1, cycles), 2))

    def total(key: str) -> float:
        return round(sum(s[key] for s in per.values()), 3)

    result = {
        "cycles": rounds,
        "cycle_seconds": max(s.get("cycle_seconds", 0)
                             for s in per.values()),
        "cpu_seconds": round(total("cpu_seconds"), 1),
        "cpu_cores": total("cpu_cores"), "wall_seconds": round(wall, 1),
        "rss_start_mib": round(total("rss_start_mib"), 1),
        "rss_after_first_cycle_mib": round(
            total("rss_after_first_cycle_mib"), 1),
        "rss_after_cycles_mib": round(total("rss_after_cycles_mib"), 1),
        "log_bytes_per_cycle": int(total("log_bytes") / max(1, rounds)),
        "abnormal_nodes": _abnormal(engine)}
    if args.mode == "failing" and not args.no_recovery:
        took = _recovery(engine, args.interval, args.interval * 6 + 120)
        result["recovery_seconds"] = None if took is None else round(took, 1)
        result["recovery_cycles"] = \
            None if took is None else round(took / args.interval, 2)
    for proc in procs:
        proc.check()
        per[proc.name]["rss_end_mib"] = round(
            _proc_stats(proc.popen.pid)[1], 1)
    result["rss_end_mib"] = round(total("rss_end_mib"), 1)
    result.update(_log_lines(procs))
    if len(procs) > 1:
        result["processes"] = per
    return result


def _fresh_db(server_url: str, name: str) -> str:
    """Create database ``name`` on ``server_url``; its URL."""
    import sqlalchemy as sa
    url = sa.engine.make_url(server_url)
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    charset = (" CHARACTER SET utf8mb4" if url.get_backend_name() == "mysql"
               else "")
    with engine.connect() as conn:
        conn.execute(sa.text(f"CREATE DATABASE {name}{charset}"))
    engine.dispose()
    return url.set(database=name).render_as_string(hide_password=False)


def _drop_db(server_url: str, name: str) -> None:
    import sqlalchemy as sa
    engine = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(sa.text(f"DROP DATABASE IF EXISTS {name}"))
    engine.dispose()


def run(args: argparse.Namespace) -> dict:
    workdir = pathlib.Path(args.workdir or tempfile.mkdtemp(
        prefix="outage-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    fresh = None
    if args.fresh_db:
        fresh = f"outage_bench_{uuidlib.uuid4().hex[:8]}"
        db_url = _fresh_db(args.fresh_db, fresh)
    else:
        db_url = args.db_url or f"sqlite:///{workdir}/ironic.sqlite"
    try:
        return _run_on(args, workdir, db_url)
    finally:
        if fresh is not None and not args.keep_db:
            _drop_db(args.fresh_db, fresh)


def _run_on(args: argparse.Namespace, workdir: pathlib.Path,
            db_url: str) -> dict:
    env = _env()
    api_port = _free_port()
    conf = _config(workdir, db_url, args, "dbsync", None, None)
    subprocess.run([sys.executable, "-m", "ironic.command.dbsync",
                    "--config-file", str(conf), "upgrade"], env=env,
                   check=True, capture_output=True)
    seeded = time.monotonic()
    _seed(db_url, args.nodes,
          "fake" if args.mode == "healthy" else "ipmitool")
    result: dict = {"mode": args.mode, "nodes": args.nodes,
                    "conductors": args.conductors,
                    "interval": args.interval, "db": db_url.split(":")[0],
                    "seed_seconds": round(time.monotonic() - seeded, 1)}
    procs = _start_services(workdir, db_url, args, env, api_port)
    engine = _engine(db_url)
    try:
        result.update(_measure(args, procs, api_port, engine))
    finally:
        _stop(procs)
        engine.dispose()
    result["workdir"] = str(workdir)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--cycles", type=int, default=10)
    parser.add_argument("--interval", type=int, default=30,
                        help="sync_power_state_interval (and recovery)")
    parser.add_argument("--mode", choices=["healthy", "failing"],
                        default="failing")
    parser.add_argument("--conductors", type=int, default=1,
                        help="1: the all-in-one ironic; more: ironic-api "
                             "and this many ironic-conductor processes")
    parser.add_argument("--transport-url",
                        default="rabbit://guest:guest@127.0.0.1:5672/",
                        help="RPC between the processes (--conductors > 1)")
    db = parser.add_mutually_exclusive_group()
    db.add_argument("--db-url", help="an empty database (default: a "
                                     "sqlite file in the work dir)")
    db.add_argument("--fresh-db", metavar="SERVER_URL",
                    help="create a database on this server for the run "
                         "and drop it afterwards, e.g. "
                         "postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--keep-db", action="store_true",
                        help="with --fresh-db: do not drop it")
    parser.add_argument("--workdir")
    parser.add_argument("--no-recovery", action="store_true")
    args = parser.parse_args()
    if args.conductors < 1:
        parser.error("--conductors must be at least 1")
    result = run(args)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
