"""Fixtures shared by the conductor flow tests."""

import pytest

from ironic.api.controllers.v1 import versions

# The in-process conductor behind the API (see test_lifecycle).
from ironic.tests.unit.conductor.test_lifecycle import env  # noqa: F401


@pytest.fixture
def env_newest(env, monkeypatch):  # noqa: F811 - the fixture above
    """``env`` whose API accepts every known microversion (features are
    built and tested before the advertised maximum may rise)."""
    env[0].version = f"1.{versions.NEWEST_KNOWN}"
    return env
