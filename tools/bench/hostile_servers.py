"""Run the hostile-client suite against candidate servers of the real API.

    python tools/bench/hostile_servers.py [--servers ours,cheroot,...]
        [--protocol | --floods] [--only NAME-PART] [--json FILE]

Each candidate serves the real application (``candidate_app.py``: sqlite,
``noauth``) on a free loopback port with its documented defaults and 8
application threads where it has them; the suite
(``python -m ironic.tests.hostile``) runs against it, and a table of
probe x server is printed. Candidates that are not installed are skipped
(``pip install cheroot waitress gunicorn granian hypercorn uvicorn``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
BIN = Path(sys.executable).parent

CONFIG = """[DEFAULT]
state_path = {state}
auth_strategy = noauth
rpc_transport = none
log_file = {state}/ironic.log
enabled_hardware_types = fake-hardware
enabled_deploy_interfaces = fake
enabled_boot_interfaces = fake
enabled_power_interfaces = fake
enabled_management_interfaces = fake
[api]
host_ip = 127.0.0.1
port = {port}
[dhcp]
dhcp_provider = none
"""


def _commands(port: int, config: str) -> dict[str, tuple[str, list[str]]]:
    """server -> (module it needs, command line)."""
    app = "candidate_app:application"
    bind = f"127.0.0.1:{port}"
    return {
        "ours": ("ironic", [sys.executable, "-m",
                            "ironic.command.singleprocess",
                            "--config-file", config]),
        "cheroot": ("cheroot", [sys.executable, str(HERE / "candidate_app.py"),
                                "cheroot", str(port)]),
        "waitress": ("waitress", [sys.executable,
                                  str(HERE / "candidate_app.py"),
                                  "waitress", str(port)]),
        "gunicorn-gthread": ("gunicorn", [
            str(BIN / "gunicorn"), "-k", "gthread", "--threads", "8",
            "-w", "1", "-b", bind, "--chdir", str(HERE), app]),
        "granian": ("granian", [
            str(BIN / "granian"), "--interface", "wsgi", "--host",
            "127.0.0.1", "--port", str(port), "--workers", "1",
            "--blocking-threads", "8", "--working-dir", str(HERE), app]),
        "hypercorn": ("hypercorn", [
            str(BIN / "hypercorn"), "-b", bind, "--root-path", "",
            "-k", "asyncio", app]),
        "uvicorn": ("uvicorn", [
            str(BIN / "uvicorn"), "--interface", "wsgi", "--host",
            "127.0.0.1", "--port", str(port), "--app-dir", str(HERE), app]),
        "uvicorn-h11": ("uvicorn", [
            str(BIN / "uvicorn"), "--interface", "wsgi", "--http", "h11",
            "--host", "127.0.0.1", "--port", str(port), "--app-dir",
            str(HERE), app]),
    }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_up(url: str, proc: subprocess.Popen, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError("did not answer within 60 s")


def run_one(name: str, args: argparse.Namespace) -> list[dict] | None:
    port = _free_port()
    workdir = Path(tempfile.mkdtemp(prefix=f"hostile-{name}-"))
    config = workdir / "ironic.conf"
    config.write_text(CONFIG.format(state=workdir, port=port))
    module, command = _commands(port, str(config))[name]
    if importlib.util.find_spec(module) is None:
        print(f"{name}: {module} is not installed, skipped")
        return None
    env = dict(os.environ, IRONIC_BENCH_CONFIG=str(config),
               PYTHONPATH=os.pathsep.join([str(HERE), str(REPO)]))
    log = open(workdir / "server.log", "wb")
    proc = subprocess.Popen(command, cwd=HERE, env=env, stdout=log,
                            stderr=subprocess.STDOUT,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_up(url, proc)
        out = workdir / "results.json"
        suite = [sys.executable, "-m", "ironic.tests.hostile", url,
                 "--pid", str(proc.pid), "--json", str(out)]
        suite += ["--protocol"] if args.protocol else []
        suite += ["--floods"] if args.floods else []
        suite += ["--only", args.only] if args.only else []
        subprocess.run(suite, env=env, timeout=1800)
        return json.loads(out.read_text())
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"{name}: {e} (log {workdir / 'server.log'})")
        return None
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


def print_table(results: dict[str, list[dict]]) -> None:
    names = list(results)
    probes = []
    for rows in results.values():
        probes += [r["name"] for r in rows if r["name"] not in probes]
    width = max(len(p) for p in probes)
    print("| " + "probe".ljust(width) + " | " +
          " | ".join(names) + " |")
    print("|" + "-" * (width + 2) + "|" +
          "|".join("-" * (len(n) + 2) for n in names) + "|")
    for probe in probes:
        cells = []
        for n in names:
            row = next((r for r in results[n] if r["name"] == probe), None)
            cell = "-" if row is None else ("pass" if row["passed"]
                                            else "FAIL")
            cells.append(cell.ljust(len(n)))
        print(f"| {probe.ljust(width)} | " + " | ".join(cells) + " |")
    print("| " + "failed".ljust(width) + " | " + " | ".join(
        str(sum(not r["passed"] for r in results[n])).ljust(len(n))
        for n in names) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--servers", default="ours,cheroot,waitress,"
                        "gunicorn-gthread,granian,hypercorn,uvicorn,uvicorn-h11")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--protocol", action="store_true")
    group.add_argument("--floods", action="store_true")
    parser.add_argument("--only")
    parser.add_argument("--json")
    args = parser.parse_args()
    results = {}
    for name in args.servers.split(","):
        print(f"=== {name}", flush=True)
        rows = run_one(name, args)
        if rows is not None:
            results[name] = rows
    print_table(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
