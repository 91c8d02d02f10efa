"""The built-in server under the hostile-client suite.

One all-in-one ``ironic`` process per module, under ``http_basic`` (the
endpoints an attacker reaches without credentials are the ones that
matter), its memory watched through its pid. These tests run serially,
apart from the other suites (tox env ``hostile``, and a step of its own
in ``tests``): timing judgements need the cores to themselves.
"""

from __future__ import annotations

import pytest

from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.hostile.target import Target

USERS = {"operator": "hostile-suite-pass"}


@pytest.fixture(scope="module")
def aio(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("hostile-users")
    # A real cost (about 50 ms a check here), so that checking or not
    # checking a password shows in the time of a refusal.
    htpasswd = svc.write_htpasswd(workdir / "htpasswd", USERS, rounds=10)
    yield from fconf.run_service(tmp_path_factory, "aio-hostile",
                                 auth_strategy="http_basic",
                                 htpasswd=htpasswd)


@pytest.fixture(scope="module")
def target(aio):
    return Target(aio.endpoint, pid=aio.proc.pid)
