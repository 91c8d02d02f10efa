"""Fixtures: a running all-in-one service and clients pointed at it.

``service`` is one process for the whole session (tests there create their
own uniquely named resources); a module that needs a database or options of
its own starts its own process with ``run_service`` in a module fixture.

``IRONIC_TEST_API_SERVER=mod_wsgi`` or ``gunicorn`` makes ``service`` the
API under that server beside a conductor, on PostgreSQL and RabbitMQ
(``wsgi_servers``), so that the tests using it run through a maintained
WSGI server as deployments do (``tox -e functional-wsgi``); the other
tests, which start services of their own, are deselected then.
"""

from __future__ import annotations

import os
import time
import uuid

import openstack
import pytest

from ironic.tests.functional import service as svc
from ironic.tests.functional import wsgi_servers

BASIC_USERS = {"operator": "s3cret-pass", "auditor": "another-pass"}


def run_service(tmp_factory, name: str, **kwargs):
    """Start a service for a fixture, stop it (checking the exit) after."""
    workdir = tmp_factory.mktemp(name)
    server = svc.Service(workdir, **kwargs).start()
    try:
        yield server
    finally:
        code = server.stop()
        # A service that ignores SIGTERM would leak processes on every
        # host running it; fail the test run so it is seen.
        assert code == 0, (f"the service did not stop cleanly on SIGTERM "
                           f"(exit {code}):\n{server.logs()}")


@pytest.fixture(scope="session")
def service(tmp_path_factory):
    server = os.environ.get("IRONIC_TEST_API_SERVER", "")
    if server:
        with wsgi_servers.split_service(server, tmp_path_factory) as split:
            yield split
        return
    yield from run_service(tmp_path_factory, "aio")


def pytest_collection_modifyitems(config, items) -> None:
    if not os.environ.get("IRONIC_TEST_API_SERVER"):
        return
    shared, own = [], []
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        chosen = info.name2fixturedefs.get("service") if info else None
        # A module's own ``service`` fixture has the module as its base.
        if chosen and not chosen[-1].baseid.endswith(".py"):
            shared.append(item)
        else:
            own.append(item)
    if own:
        config.hook.pytest_deselected(items=own)
        items[:] = shared


def needs_all_in_one(service) -> None:
    """Skip a test that reads the all-in-one's own files (its sqlite
    database, say) when ``service`` is a split deployment."""
    if not isinstance(service, svc.Service):
        pytest.skip("reads the all-in-one's files; the service here is "
                    "the API under a WSGI server beside a conductor")


@pytest.fixture(scope="module")
def basic_service(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("htpasswd")
    htpasswd = svc.write_htpasswd(workdir / "htpasswd", BASIC_USERS)
    yield from run_service(tmp_path_factory, "aio-basic",
                    auth_strategy="http_basic", htpasswd=htpasswd)


def sdk_connection(endpoint: str, **kwargs) -> openstack.connection.Connection:
    kwargs.setdefault("auth_type", "none")
    return openstack.connection.Connection(
        baremetal_endpoint_override=endpoint, **kwargs)


@pytest.fixture(scope="session")
def conn(service):
    connection = sdk_connection(service.endpoint)
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def no_retry_conn(service):
    """The SDK retries a 409 (node locked) for seconds; a test expecting a
    409 for a genuine conflict does not want to wait for that."""
    connection = sdk_connection(service.endpoint,
                                baremetal_status_code_retries=0)
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def cli(service):
    return svc.Cli(service.endpoint)


@pytest.fixture
def unique():
    """A short unique suffix so tests sharing a service never collide."""
    return uuid.uuid4().hex[:8]


@pytest.fixture(scope="session")
def needs_version(service):
    """Skip (saying why) when the service does not advertise 1.<minor> yet.

    Features land with their microversion; a test of a field the advertised
    maximum does not cover yet cannot run against this service.
    """
    advertised = svc.max_minor_version(service.endpoint)

    def check(minor: int) -> None:
        if advertised < minor:
            pytest.skip(f"the service advertises 1.{advertised}, the test "
                        f"needs 1.{minor}")
    return check


def wait_for_node(conn, node_id: str, timeout: float = 60, **expected):
    """Poll the node until its attributes have the expected values.

    Changes made by a conductor worker (202 answers) land after the
    request returns; openstacksdk's ``wait_for_node_reservation`` returns
    at once for a node object fetched before the request, so it cannot
    tell that the worker finished.
    """
    deadline = time.monotonic() + timeout
    while True:
        node = conn.baremetal.get_node(node_id)
        seen = {name: getattr(node, name) for name in expected}
        if seen == expected and node.reservation is None:
            return node
        if time.monotonic() > deadline:
            raise AssertionError(f"node {node_id} has {seen}, not "
                                 f"{expected}, after {timeout} s "
                                 f"(last_error: {node.last_error})")
        time.sleep(0.2)
