"""Integration tests run against real services on loopback.

A service that cannot be reached skips its tests with the reason, except
under ``CI=true`` where it fails them: CI must never go green by skipping.
Addresses can be changed through ``IRONIC_TEST_*`` environment variables.
"""

from __future__ import annotations

import functools
import os
import socket
from urllib import parse

import pytest
import sqlalchemy as sa

from ironic.db import migration
from ironic.db.sqlalchemy import api as sqla_api
from ironic.tests import dbutils

DB_SERVERS = {
    "mysql": os.environ.get("IRONIC_TEST_MYSQL_URL",
                            "mysql+pymysql://root@127.0.0.1:3306/"),
    "postgresql": os.environ.get(
        "IRONIC_TEST_POSTGRESQL_URL",
        "postgresql+psycopg2://postgres@127.0.0.1:5432/postgres"),
}
TCP_SERVICES = {
    "rabbitmq": os.environ.get("IRONIC_TEST_RABBITMQ_URL",
                               "amqp://guest:guest@127.0.0.1:5672/"),
    "redis": os.environ.get("IRONIC_TEST_REDIS_URL",
                            "redis://127.0.0.1:6379/"),
}


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def unavailable(service: str, reason: str) -> None:
    """Skip (locally) or fail (in CI) the current test."""
    message = f"{service} is not reachable: {reason}"
    if in_ci():
        pytest.fail(f"{message} (CI=true: integration services are "
                    f"required)", pytrace=False)
    pytest.skip(message)


@functools.cache
def _probe_db(kind: str) -> str | None:
    """None when the server answers, else why not (asked once per run)."""
    args = {"connect_timeout": 3}
    engine = sa.create_engine(DB_SERVERS[kind], connect_args=args)
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
        return None
    except Exception as e:  # noqa: BLE001 - any failure means "absent"
        return f"{DB_SERVERS[kind]}: {str(e).splitlines()[0]}"
    finally:
        engine.dispose()


@functools.cache
def _probe_tcp(kind: str) -> str | None:
    url = parse.urlsplit(TCP_SERVICES[kind])
    try:
        socket.create_connection((url.hostname, url.port), timeout=3).close()
        return None
    except OSError as e:
        return f"{url.hostname}:{url.port}: {e}"


def require_db(kind: str) -> str:
    """The server URL of a database service, or skip/fail."""
    reason = _probe_db(kind)
    if reason:
        unavailable(kind, reason)
    return DB_SERVERS[kind]


def require_service(kind: str) -> str:
    """The URL of rabbitmq or redis, or skip/fail."""
    reason = _probe_tcp(kind)
    if reason:
        unavailable(kind, reason)
    return TCP_SERVICES[kind]


def pytest_report_header(config) -> list[str]:
    # Printed at the top of every run, so a skip is never silent.
    lines = []
    for kind in DB_SERVERS:
        lines.append(f"integration {kind}: {_probe_db(kind) or 'reachable'}")
    for kind in TCP_SERVICES:
        lines.append(f"integration {kind}: {_probe_tcp(kind) or 'reachable'}")
    return lines


@pytest.fixture(params=sorted(DB_SERVERS))
def db_server(request) -> str:
    """Each database server in turn (MariaDB/MySQL, PostgreSQL)."""
    return require_db(request.param)


@pytest.fixture
def empty_db(db_server, config):
    """A new, randomly named database, used by the whole service; dropped
    afterwards."""
    with dbutils.scratch_database(db_server) as url:
        sqla_api.dispose()
        config("database", connection=url)
        yield url
        sqla_api.dispose()


@pytest.fixture
def backend_db(empty_db):
    """Like ``empty_db`` but migrated to head."""
    migration.upgrade("head")
    return empty_db


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # Fixtures read ``item.rep_call`` at teardown to add the logs of the
    # processes they started when the test failed.
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)
