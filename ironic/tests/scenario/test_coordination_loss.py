"""An ``ironic-conductor`` whose coordination backend goes away for good:
it retries within ``[coordination]max_retries`` / ``retry_timeout``, then
logs one line saying so and exits 75 (as for the database or the bus) for
its supervisor to restart it."""

from __future__ import annotations

import subprocess
import sys
import time

from ironic.tests.functional import service as svc
from ironic.tests.scenario.cluster import ROOT, wait_for
from ironic.tests.scenario.redis_server import RedisServer

RETRY_TIMEOUT = 5


def test_conductor_exits_75_when_the_backend_is_gone(tmp_path):
    redis_server = RedisServer(tmp_path / "redis").start()
    log = tmp_path / "conductor.log"
    conf = tmp_path / "ironic.conf"
    conf.write_text(
        f"[DEFAULT]\nhost = lonely\nstate_path = {tmp_path}\n"
        f"rpc_transport = none\nenabled_hardware_types = fake-hardware\n"
        f"log_file = {log}\n"
        + "".join(f"enabled_{kind}_interfaces = fake\n" for kind in
                  ("power", "management", "boot", "deploy"))
        + f"[database]\nconnection = sqlite:///{tmp_path}/ironic.sqlite\n"
        f"[dhcp]\ndhcp_provider = none\n"
        f"[coordination]\nbackend_url = {redis_server.url}\n"
        f"member_timeout = 2\nmax_retries = 2\nretry_interval = 0.5\n"
        f"retry_timeout = {RETRY_TIMEOUT}\n")
    env = svc._child_env()
    subprocess.run([sys.executable, "-m", "ironic.command.dbsync",
                    "--config-file", str(conf), "upgrade"], cwd=ROOT,
                   env=env, check=True, capture_output=True, timeout=120)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ironic.command.conductor", "--config-file",
         str(conf)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT)
    try:
        wait_for(lambda: log.exists() and "is now the leader" in
                 log.read_text(), 90, "the conductor to lead")
        redis_server.stop()
        started = time.monotonic()
        code = proc.wait(RETRY_TIMEOUT + 30)
        took = time.monotonic() - started
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        redis_server.stop()
    text = log.read_text()
    assert code == 75, text[-3000:]
    assert "steps down as leader" in text
    fatal = [line for line in text.splitlines()
             if "Conductor lonely stops: the coordination backend did not "
                "answer" in line]
    assert len(fatal) == 1, text[-3000:]
    assert "exiting with status 75 so that the supervisor restarts it" \
        in fatal[0]
    # Stopping after the loss raised nothing (it once crashed, status 1).
    assert "Traceback" not in text, text[-3000:]
    print(f"\nexited 75 {took:.1f} s after the backend went away")

