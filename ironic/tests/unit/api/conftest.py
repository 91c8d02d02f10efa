"""API test fixtures: a client that may use versions above the maximum."""

import pytest

from ironic.api.controllers.v1 import versions
from ironic.tests import fixtures as ifx


@pytest.fixture
def api_newest(database, monkeypatch):
    """An API client whose service accepts every known version.

    Features above the advertised maximum are built and tested before the
    maximum may rise; this lifts the ceiling for one test only.
    """
    from ironic.api import app as api_app
    monkeypatch.setattr(versions, "MAX_VERSION", versions.NEWEST_KNOWN)
    monkeypatch.setattr(versions, "MAX_VERSION_STRING",
                        f"1.{versions.NEWEST_KNOWN}")
    ifx.register_test_conductor()
    return ifx.ApiClient(api_app.setup_app(), f"1.{versions.NEWEST_KNOWN}")
