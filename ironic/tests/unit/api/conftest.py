"""API test fixtures."""

import pytest

from ironic.api.controllers.v1 import versions
from ironic.tests import fixtures as ifx


@pytest.fixture
def api_newest(database):
    """An API client that asks for the newest version the API defines."""
    from ironic.api import app as api_app
    ifx.register_test_conductor()
    return ifx.ApiClient(api_app.setup_app(), f"1.{versions.NEWEST_KNOWN}")
