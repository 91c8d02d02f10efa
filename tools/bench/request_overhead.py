#!/usr/bin/env python3
"""CPU each API request pays for its log line and its metrics.

Calls a trivial WSGI application (a fixed 200 answer) directly, bare and
then inside the service's request log middleware, with oslo.log writing
to a file exactly as the service configures it, and with the metrics
observers (Prometheus series, statsd datagrams to a local UDP socket
nobody reads) on top. Prints the process CPU microseconds per request of
each layout and the difference to the bare application, the median of
``--repeat`` rounds of ``-n`` requests::

    .tox/py3/bin/python tools/bench/request_overhead.py -n 20000 --threads 8

Only the differences mean anything: the bare application costs nothing a
real request would not also pay.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

ENVIRON = {
    "REQUEST_METHOD": "GET", "PATH_INFO": "/v1/nodes/4c9f3a1e-6d1b-4a36-"
    "9d1c-1f2e3d4c5b6a", "QUERY_STRING": "fields=uuid,name",
    "REMOTE_ADDR": "127.0.0.1", "SERVER_NAME": "127.0.0.1",
    "SERVER_PORT": "6385", "wsgi.url_scheme": "http",
    "openstack.request_id": "req-4c9f3a1e-6d1b-4a36-9d1c-1f2e3d4c5b6a",
    "ironic.api_version": 115,
}
BODY = [b'{"uuid": "4c9f3a1e-6d1b-4a36-9d1c-1f2e3d4c5b6a", "name": "n"}']


def bare(environ, start_response):
    start_response("200 OK", [("Content-Type", "application/json"),
                              ("Content-Length", str(len(BODY[0])))])
    return BODY


def _start(status, headers, exc_info=None):
    return None


def _calls(app, n: int) -> None:
    for _ in range(n):
        app(dict(ENVIRON), _start)


def cpu_per_request(app, n: int, threads: int = 1) -> float:
    """Process CPU microseconds per request, ``n`` requests made by
    ``threads`` threads at once (as the server's request threads do: the
    log line's file writes then hand the interpreter lock around)."""
    workers = [threading.Thread(target=_calls, args=(app, n // threads))
               for _ in range(threads)]
    start = time.process_time()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return (time.process_time() - start) / (n // threads * threads) * 1e6


def configure(workdir: str, metrics: bool, statsd_port: int) -> None:
    from oslo_log import log

    from ironic.conf import CONF
    CONF([], project="ironic", default_config_files=[])
    CONF.set_override("log_file", f"{workdir}/ironic.log")
    if metrics:
        CONF.set_override("backend", "statsd", group="metrics")
        CONF.set_override("statsd_port", statsd_port, group="metrics_statsd")
        CONF.set_override("prometheus_port", 0, group="metrics")
    log.setup(CONF, "ironic")
    from ironic import metrics as metrics_mod
    metrics_mod.setup(CONF)  # the sinks, without a listener


def layouts(metrics: bool) -> dict:
    from ironic.api.middleware import request_log
    found = {"bare": bare,
             "request log": request_log.RequestLogMiddleware(bare)}
    if metrics:
        from ironic.metrics import api as api_metrics
        found["request log + metrics"] = request_log.RequestLogMiddleware(
            bare, observers=api_metrics.observers())
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1,
                        help="threads calling at once (the server has 8)")
    parser.add_argument("--no-metrics", action="store_true")
    args = parser.parse_args()
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind(("127.0.0.1", 0))
    with tempfile.TemporaryDirectory() as workdir:
        configure(workdir, not args.no_metrics, sink.getsockname()[1])
        found = layouts(not args.no_metrics)
        result = {}
        for name, app in found.items():
            cpu_per_request(app, 1000)  # warm up
            result[name] = round(statistics.median(
                cpu_per_request(app, args.n, args.threads)
                for _ in range(args.repeat)), 2)
    base = result["bare"]
    for name, micros in result.items():
        print(f"{name:24} {micros:8.2f} us CPU/request  "
              f"(+{micros - base:.2f})")
    print(json.dumps({"us_cpu_per_request": result, "n": args.n,
                      "threads": args.threads}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
