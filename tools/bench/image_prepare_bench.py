#!/usr/bin/env python3
"""What preparing an instance image costs the conductor, against ``dd``.

A raw image of ``--size-mib`` MiB (random bytes, so nothing compresses or
sparsifies) is served by a loopback HTTP server; ``instance_image.prepare``
(``image_download_source = local``) then downloads it into a fresh
instance image cache, verifies its SHA-256, inspects its format and
publishes it under an HTTP root: the work the conductor does before the
agent is given the image. Compared with ``dd`` copying the same bytes
(``bs=1M conv=fsync``) and with ``curl -o`` fetching them over the same
loopback server, and, with ``--qcow2``, the same image as qcow2 converted
to raw (``force_raw_images``). A second ``prepare`` of the same image shows
the cached path (a HEAD request and a link).

    python tools/bench/image_prepare_bench.py --size-mib 1024 --qcow2

The last line printed is the JSON result.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import types

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))

from ironic.conf import CONF  # noqa: E402
from ironic.drivers.modules import instance_image  # noqa: E402


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _serve(directory: str):
    handler = functools.partial(_Quiet, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def _timed(fn):
    start = time.perf_counter()
    fn()
    return round(time.perf_counter() - start, 3)


def _prepare(url: str, checksum: str, work: str, name: str) -> float:
    node = types.SimpleNamespace(
        uuid=f"00000000-0000-4000-8000-{abs(hash(name)) % 10**12:012d}",
        instance_info={"image_source": url,
                       "image_os_hash_algo": "sha256",
                       "image_os_hash_value": checksum,
                       "image_download_source": "local"},
        driver_info={}, driver_internal_info={})
    return _timed(lambda: instance_image.prepare(node))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mib", type=int, default=256)
    parser.add_argument("--qcow2", action="store_true")
    args = parser.parse_args(argv)
    CONF([], project="ironic")
    result: dict = {"size_mib": args.size_mib}
    with tempfile.TemporaryDirectory(prefix="image-bench-") as work:
        images = os.path.join(work, "images")
        os.makedirs(images)
        raw = os.path.join(images, "disk.raw")
        digest = hashlib.sha256()
        with open(raw, "wb") as f:
            for _ in range(args.size_mib):
                chunk = os.urandom(1 << 20)
                digest.update(chunk)
                f.write(chunk)
        CONF.set_override("http_url", "http://127.0.0.1:1", "deploy")
        CONF.set_override("http_root", os.path.join(work, "httpboot"),
                          "deploy")
        CONF.set_override("instance_master_path",
                          os.path.join(work, "cache"), "pxe")
        server, url = _serve(images)
        try:
            subprocess.run(["sync"], check=True)
            result["dd_s"] = _timed(lambda: subprocess.run(
                ["dd", f"if={raw}", f"of={work}/dd.out", "bs=1M",
                 "conv=fsync", "status=none"], check=True))
            result["curl_s"] = _timed(lambda: subprocess.run(
                ["curl", "-sf", "-o", f"{work}/curl.out",
                 f"{url}/disk.raw"], check=True))
            for path in (f"{work}/dd.out", f"{work}/curl.out"):
                os.unlink(path)
            result["prepare_raw_s"] = _prepare(
                f"{url}/disk.raw", digest.hexdigest(), work, "raw")
            result["prepare_raw_cached_s"] = _prepare(
                f"{url}/disk.raw", digest.hexdigest(), work, "raw-again")
            if args.qcow2:
                qcow = os.path.join(images, "disk.qcow2")
                subprocess.run(["qemu-img", "convert", "-f", "raw", "-O",
                                "qcow2", raw, qcow], check=True)
                with open(qcow, "rb") as f:
                    qsum = hashlib.file_digest(f, "sha256").hexdigest()
                result["prepare_qcow2_to_raw_s"] = _prepare(
                    f"{url}/disk.qcow2", qsum, work, "qcow2")
        finally:
            server.shutdown()
            server.server_close()
    result["prepare_raw_vs_dd"] = round(result["prepare_raw_s"]
                                        / result["dd_s"], 2)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
