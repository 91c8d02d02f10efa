"""``ironic.wsgi:application`` under gunicorn (gthread workers), as the
install guide's gunicorn section runs it, beside an ``ironic-conductor``
on PostgreSQL and RabbitMQ: the same checks as under Apache mod_wsgi."""

from __future__ import annotations

import dataclasses
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ironic.tests import dbutils
from ironic.tests.functional import service as svc
from ironic.tests.functional.test_mod_wsgi import (
    check_crud,
    conductor,
    split_configs,
    wait_answering,
)
from ironic.tests.integration import conftest as integration


@dataclasses.dataclass
class Gunicorn:
    endpoint: str
    workdir: Path
    proc: subprocess.Popen


def _logs(workdir: Path) -> str:
    return "\n".join(p.read_text(errors="replace")[-4000:] for p in (
        workdir / "api" / "stdout.log", workdir / "api" / "ironic.log")
        if p.exists())


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    gunicorn = Path(sys.executable).parent / "gunicorn"
    if not gunicorn.exists():
        integration.unavailable("gunicorn", f"no {gunicorn} (it is in "
                                f"test-requirements.txt)")
    rabbit = integration.require_service("rabbitmq").replace(
        "amqp://", "rabbit://", 1)
    db_server = integration.require_db("postgresql")
    workdir = tmp_path_factory.mktemp("gunicorn")
    port = svc.free_port()
    with dbutils.scratch_database(db_server) as db_url:
        configs = split_configs(workdir, port, db_url, rabbit)
        with conductor(workdir, configs["conductor"]) as cond:
            env = svc._child_env()
            env["IRONIC_CONFIG_FILE"] = str(configs["api"])
            with open(workdir / "api" / "stdout.log", "wb") as out:
                proc = subprocess.Popen(
                    [str(gunicorn), "--worker-class", "gthread",
                     "--workers", "2", "--threads", "4", "--timeout", "60",
                     "--limit-request-fields", "50",
                     "--limit-request-field_size", "4094",
                     "--bind", f"127.0.0.1:{port}",
                     "ironic.wsgi:application"],
                    cwd=workdir, env=env, stdout=out,
                    stderr=subprocess.STDOUT)
            server = Gunicorn(f"http://127.0.0.1:{port}", workdir, proc)
            try:
                wait_answering(server.endpoint, cond,
                               lambda: _logs(workdir))
                yield server
            finally:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def test_crud_through_gunicorn(deployment):
    check_crud(deployment.endpoint, deployment.workdir)
    # Both workers built the application from IRONIC_CONFIG_FILE.
    log = (deployment.workdir / "api" / "ironic.log").read_text()
    assert log.count("WSGI application ready") == 2, log[-3000:]
