"""``ironic.wsgi:application`` under gunicorn (gthread workers), as the
install guide's gunicorn section runs it, beside an ``ironic-conductor``
on PostgreSQL and RabbitMQ: the same checks as under Apache mod_wsgi."""

from __future__ import annotations

import pytest

from ironic.tests.functional import wsgi_servers
from ironic.tests.functional.test_mod_wsgi import check_crud


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    with wsgi_servers.split_service("gunicorn", tmp_path_factory) as server:
        yield server


def test_crud_through_gunicorn(deployment):
    check_crud(deployment.endpoint, deployment.workdir)
