#!/usr/bin/env python3
"""The latency api_bench.py measures against a server that costs nothing.

A child process answers every request at once with a fixed JSON document
the size of a node (asyncio, no framework, no database); the benchmark's
own client then sends GETs to it with C requests in flight. The p50 it
reports is the floor of the ``get`` phase on this machine: the client's
threads share one interpreter lock, so with C in flight each request
waits for the client work of the others.

  python tools/bench/client_floor.py -c 8 -n 5000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import socket
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import api_bench  # noqa: E402

# About the size of GET /v1/nodes/{node} at the latest version.
DOCUMENT = json.dumps({"uuid": "0" * 36, "fields": "x" * 2400}).encode()
RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % len(DOCUMENT)) + DOCUMENT


class _Answer(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        self.pending = b""

    def data_received(self, data):
        # GETs only: every blank line ends a request.
        self.pending += data
        while b"\r\n\r\n" in self.pending:
            _, self.pending = self.pending.split(b"\r\n\r\n", 1)
            self.transport.write(RESPONSE)


def _serve(sock: socket.socket) -> None:
    async def main():
        server = await asyncio.get_running_loop().create_server(
            _Answer, sock=sock)
        await server.serve_forever()
    asyncio.run(main())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-c", "--concurrency", type=int, default=8)
    p.add_argument("-n", "--requests", type=int, default=5000)
    args = p.parse_args(argv)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    server = multiprocessing.Process(target=_serve, args=(sock,),
                                     daemon=True)
    server.start()
    try:
        url = "http://127.0.0.1:%d" % sock.getsockname()[1]
        client = api_bench.Client(url, "latest", 30.0)
        with ThreadPoolExecutor(args.concurrency) as pool:
            # Warm every thread's keep-alive connection first.
            list(pool.map(lambda _: client.call("GET", "/v1/nodes/x"),
                          range(args.concurrency * 2)))
            cpu, start = os.times(), time.perf_counter()
            results = list(pool.map(
                lambda _: client.call("GET", "/v1/nodes/x"),
                range(args.requests)))
            wall, cpu_end = time.perf_counter() - start, os.times()
    finally:
        server.kill()
    summary = api_bench.latency_summary(results, wall)
    used = (cpu_end.user + cpu_end.system) - (cpu.user + cpu.system)
    summary["client_cpu_ms_per_request"] = round(
        used / args.requests * 1000, 3)
    summary["concurrency"] = args.concurrency
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
