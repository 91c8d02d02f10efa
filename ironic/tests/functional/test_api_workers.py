"""``ironic-api`` with ``[api]api_workers = 2``: worker processes (spawned
by uvicorn's supervisor) on one port, replaced when one dies, all stopped
by SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from ironic.tests.functional import service as svc
from ironic.tests.scenario.cluster import wait_for


class ApiService(svc.Service):
    """ironic-api alone (no conductor: GETs need only the database)."""

    def start(self) -> ApiService:
        subprocess.run(
            [sys.executable, "-m", "ironic.command.dbsync", "--config-file",
             str(self.config), "upgrade"],
            cwd=self.workdir, env=svc._child_env(), check=True,
            capture_output=True)
        super().start()
        return self

    def _command(self) -> list[str]:
        return [sys.executable, "-m", "ironic.command.api",
                "--config-file", str(self.config)]


def _children(pid: int) -> set[int]:
    """The worker processes of ``pid`` (multiprocessing's resource tracker,
    also its child, is not one)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name may hold spaces; the parent pid follows it.
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid and \
                b"resource_tracker" not in (entry / "cmdline").read_bytes():
            found.add(int(entry.name))
    return found


def _wait_for(predicate):
    # A replacement worker is a fresh interpreter importing the service:
    # seconds on a quiet machine, tens of seconds on a loaded one.
    return wait_for(predicate, 60, "the API workers")


def _all_answer(endpoint: str, times: int = 20) -> None:
    # A new connection each time, so that the kernel hands them to both
    # workers. The timeout only bounds a hang: a worker's first requests
    # (routes, policy, database engine) next to a sibling still importing
    # took over 5 s on a loaded 2-core machine.
    for _ in range(times):
        with urllib.request.urlopen(endpoint + "/v1/nodes", timeout=60) as r:
            assert r.status == 200


@pytest.fixture
def api(tmp_path):
    (tmp_path / "state").mkdir()
    service = ApiService(tmp_path, api={"api_workers": "2"})
    service.start()
    yield service
    service.stop()


def test_workers_serve_one_port_and_are_replaced(api):
    parent = api.proc.pid
    workers = _wait_for(lambda: (c := _children(parent)) and len(c) == 2
                        and c)
    _all_answer(api.endpoint)

    # A worker killed outright is replaced; the other serves meanwhile.
    victim, survivor = sorted(workers)
    os.kill(victim, signal.SIGKILL)
    starting = _wait_for(lambda: (c := _children(parent) - {survivor})
                         and victim not in c and c).pop()

    # Its replacement, stopped while it still starts (before it can answer
    # the supervisor's health checks), is replaced in turn.
    os.kill(starting, signal.SIGTERM)
    _wait_for(lambda: (c := _children(parent)) and len(c) == 2
              and starting not in c)
    _all_answer(api.endpoint)

    # A serving worker stopped on its own (SIGTERM) must not stop the
    # listening socket its siblings accept on.
    os.kill(survivor, signal.SIGTERM)
    _wait_for(lambda: (c := _children(parent)) and len(c) == 2
              and survivor not in c)
    _all_answer(api.endpoint)
    assert "died" in api.logs_whole()

    remaining = _children(parent)
    assert api.stop() == 0, api.logs()
    assert all(not Path(f"/proc/{pid}").exists() for pid in remaining)
    assert "with 2 worker processes" in api.logs_whole()
