"""Floods of the hostile-client suite against the shipped Apache site.

The deployment of ``ironic/tests/functional/test_mod_wsgi.py`` (the
sample ``etc/apache2/ironic.conf`` on a private Apache, a conductor on
PostgreSQL and RabbitMQ), attacked by ``python -m ironic.tests.hostile``
as an operator would run it. Only the quick, deterministic floods run by
default (a normal client's GETs answered within 1 s while 300 slowloris
connections trickle their heads and while 16 clients send their
``Content-Length`` bodies a byte at a time); ``IRONIC_APACHE_FLOODS``
names others (comma-separated parts of flood names, or ``all``), as used
for tools/bench/RESULTS.md.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ironic.tests.functional import service as svc
from ironic.tests.functional.test_mod_wsgi import deployment  # noqa: F401

DEFAULT_FLOODS = ("slowloris-300", "slow-body-cl-16")


def _floods() -> list[str | None]:
    chosen = os.environ.get("IRONIC_APACHE_FLOODS")
    if not chosen:
        return list(DEFAULT_FLOODS)
    if chosen == "all":
        return [None]
    return [part.strip() for part in chosen.split(",") if part.strip()]


@pytest.mark.parametrize("only", _floods())
def test_flood_leaves_apache_serving(deployment, only):  # noqa: F811
    command = [sys.executable, "-m", "ironic.tests.hostile",
               deployment.endpoint, "--floods", "--pid",
               str(deployment.pid)]
    if only:
        command += ["--only", only]
    result = subprocess.run(command, env=svc._child_env(),
                            capture_output=True, text=True, timeout=900)
    print(result.stdout)
    assert result.returncode == 0, \
        result.stdout + result.stderr + deployment.logs()[-3000:]
