"""A redis-server of the test's own, on a free loopback port, so that a
test may stop it (the machine's shared Redis is never touched)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import redis

from ironic.tests.scenario.cluster import free_port


class RedisServer:
    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self) -> RedisServer:
        binary = shutil.which("redis-server")
        if binary is None:
            message = ("redis-server is not installed "
                       "(tools/install-system-deps.sh)")
            if os.environ.get("CI", "").lower() == "true":
                pytest.fail(message, pytrace=False)
            pytest.skip(message)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--dir",
             str(self.workdir)],
            stdout=open(self.workdir / "redis.log", "wb"),
            stderr=subprocess.STDOUT)
        client = redis.Redis(host="127.0.0.1", port=self.port)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                return self
            except redis.ConnectionError:
                if time.monotonic() > deadline or \
                        self.proc.poll() is not None:
                    raise AssertionError(
                        "redis-server did not start") from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
