"""Fixtures shared by unit and functional tests."""

from __future__ import annotations

import os

import pytest

from ironic import driver_registry, hash_ring
from ironic.common import policy, rpc
from ironic.conf import CONF
from ironic.db.sqlalchemy import api as sqla_api
from ironic.tests import entry_points
from ironic.tests import fixtures as ifx

CONF([], project="ironic", default_config_files=[])
# Plugins are found through entry points; publish ours when the package is
# not installed in the running venv.
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
entry_points.expose(os.path.join(_ROOT, "setup.cfg"))
entry_points.expose(os.path.join(ifx.OUT_OF_TREE, "setup.cfg"),
                    source_dir=ifx.OUT_OF_TREE)


@pytest.fixture
def config():
    overrides = ifx.ConfigOverrides()
    yield overrides
    overrides.cleanup()


@pytest.fixture
def database(tmp_path, config):
    """A fresh sqlite database at schema head, used by the whole service."""
    path = ifx.fresh_database(str(tmp_path))
    sqla_api.dispose()
    config("database", connection=f"sqlite:///{path}")
    # Conductors registered by the tests answer RPC in-process.
    config(state_path=str(tmp_path), auth_strategy="noauth",
           rpc_transport="none")
    ifx.configure_test_drivers(config)
    policy.reset()
    hash_ring.reset()
    rpc.reset()
    from ironic.api.controllers.v1 import node_documents
    node_documents.reset_documents()
    yield path
    ifx.stop_local_rpc()
    rpc.reset()
    sqla_api.dispose()
    hash_ring.reset()
    node_documents.reset_documents()
    driver_registry.reset()


@pytest.fixture
def api_without_conductor(database):
    """The API with no conductor registered (nodes cannot be created)."""
    from ironic.api import app as api_app
    return ifx.ApiClient(api_app.setup_app())


@pytest.fixture
def api(api_without_conductor):
    """The API and a live conductor serving the test drivers."""
    ifx.register_test_conductor()
    return api_without_conductor
