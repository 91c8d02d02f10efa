"""Scenario tests: the services as separate processes on real backends.

The services are probed as in the integration suite: one that cannot be
reached skips the scenario, except under ``CI=true`` where it fails it.
A failed scenario carries the tails of every process's log in its report.
"""

from __future__ import annotations

import time
import uuid

import pytest

from ironic.tests import dbutils
from ironic.tests.integration import conftest as integration
from ironic.tests.scenario.cluster import Cluster


def pytest_report_header(config) -> list[str]:
    return integration.pytest_report_header(config)


@pytest.fixture(params=["mysql", "postgresql"])
def db_server(request) -> str:
    """MariaDB, then PostgreSQL."""
    return integration.require_db(request.param)


@pytest.fixture
def rabbit() -> str:
    url = integration.require_service("rabbitmq")
    return url.replace("amqp://", "rabbit://", 1)


@pytest.fixture
def cluster(request, db_server, rabbit, tmp_path):
    """One ironic-api and three ironic-conductor processes, on a database
    of their own; stopped (and the database dropped) afterwards."""
    with dbutils.scratch_database(db_server) as url:
        cl = Cluster(tmp_path, url, rabbit, tag=uuid.uuid4().hex[:6])
        request.node.scenario_cluster = cl
        try:
            t0 = time.monotonic()
            cl.start()
            print(f"\ncluster started in {time.monotonic() - t0:.1f}s")
            yield cl
        finally:
            t0 = time.monotonic()
            cl.stop()
            print(f"\ncluster stopped in {time.monotonic() - t0:.1f}s")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    cl = getattr(item, "scenario_cluster", None)
    if cl is not None and report.failed:
        report.sections.extend(cl.report())
    return report
