"""Test helpers: configuration, a migrated sqlite database, an API client."""

from __future__ import annotations

import contextlib
import http
import json
import os
import shutil
import tempfile
from typing import Any, Iterator

import webob

from ironic.api.controllers.v1 import versions
from ironic.conf import CONF
from ironic.db import migration
from ironic.db.sqlalchemy import api as sqla_api

_TEMPLATE_DB: str | None = None
# The example out-of-tree distribution (its own setup.cfg, entry points).
OUT_OF_TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "outoftree_example")


def template_database() -> str:
    """A sqlite file migrated to head once per test process."""
    global _TEMPLATE_DB
    if _TEMPLATE_DB is None:
        path = os.path.join(tempfile.mkdtemp(prefix="ironic-tpl-"),
                            "template.sqlite")
        CONF.set_override("connection", f"sqlite:///{path}",
                          group="database")
        sqla_api.dispose()
        migration.upgrade("head")
        sqla_api.dispose()
        _TEMPLATE_DB = path
    return _TEMPLATE_DB


class ConfigOverrides:
    """Set options for one test and put them back afterwards."""

    def __init__(self):
        self._set: list[tuple[str, str | None]] = []

    def __call__(self, group: str | None = None, **kwargs: Any) -> None:
        for name, value in kwargs.items():
            CONF.set_override(name, value, group=group)
            self._set.append((name, group))

    def cleanup(self) -> None:
        for name, group in reversed(self._set):
            CONF.clear_override(name, group=group)
        self._set.clear()


def fresh_database(directory: str) -> str:
    path = os.path.join(directory, "ironic.sqlite")
    shutil.copyfile(template_database(), path)
    return path


class ApiClient:
    """Calls the WSGI application in-process, as a client would over HTTP."""

    def __init__(self, app, version: str | None = None):
        self.app = app
        self.version = version or versions.MAX_VERSION_STRING

    def request(self, method: str, path: str, body: Any = None, *,
                version: str | None = None, headers: dict | None = None,
                raw: bytes | None = None) -> webob.Response:
        hdrs = {}
        ver = version or self.version
        if ver:
            hdrs["X-OpenStack-Ironic-API-Version"] = ver
        hdrs.update(headers or {})
        req = webob.Request.blank(path, method=method, headers=hdrs)
        if raw is not None:
            req.body = raw
            req.content_type = "application/json"
        elif body is not None:
            req.body = json.dumps(body).encode()
            req.content_type = "application/json"
        return req.get_response(self.app)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body, **kw)

    def patch(self, path, body=None, **kw):
        return self.request("PATCH", path, body, **kw)

    def put(self, path, body=None, **kw):
        return self.request("PUT", path, body, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)


def error_message(resp: webob.Response) -> str:
    """The faultstring of an API error response (asserting its shape)."""
    outer = resp.json
    assert set(outer) == {"error_message"}, outer
    inner = json.loads(outer["error_message"])
    if "description" in inner:
        # A refusal Ironic 39 answers in a plain HTTP error body (a version
        # below the root, a malformed node or port group in the URL).
        phrase = http.HTTPStatus(resp.status_int).phrase
        assert inner == {"code": resp.status_int, "title": phrase,
                         "description": inner["description"]}, inner
        return inner["description"]
    assert set(inner) == {"faultstring", "faultcode", "debuginfo"}, inner
    return inner["faultstring"]


# Interfaces the unit tests enable: everything that exists without
# hardware, so that fake-hardware nodes can use every interface type.
TEST_INTERFACES = {
    "bios": ["fake", "no-bios"], "boot": ["fake"],
    "console": ["fake", "no-console"], "deploy": ["fake"],
    "firmware": ["fake", "no-firmware"], "inspect": ["fake", "no-inspect"],
    "management": ["fake"], "network": ["noop", "flat"],
    "power": ["fake"],
    "raid": ["fake", "no-raid"], "rescue": ["fake", "no-rescue"],
    "storage": ["noop"], "vendor": ["fake", "no-vendor"],
}


def configure_test_drivers(overrides: ConfigOverrides,
                           hardware_types: list[str] | None = None,
                           **interfaces: list[str]) -> None:
    """Enable fake-hardware (or ``hardware_types``) and TEST_INTERFACES,
    with per-type replacements in ``interfaces`` (``power=[...]``)."""
    from ironic import driver_registry
    overrides(enabled_hardware_types=hardware_types or ["fake-hardware"])
    # No Neutron here: the computed network default is then "noop".
    overrides("dhcp", dhcp_provider="none")
    for kind, names in {**TEST_INTERFACES, **interfaces}.items():
        overrides(**{f"enabled_{kind}_interfaces": names})
    driver_registry.reset()


def register_test_conductor(hostname: str = "test-conductor",
                            group: str = "") -> None:
    """Register a live conductor serving what the configuration enables,
    as a starting conductor does, so the API accepts nodes."""
    from ironic import driver_registry
    from ironic.db import api as db_api

    registry = driver_registry.load()
    dbapi = db_api.get_instance()
    row = dbapi.register_conductor(
        {"hostname": hostname, "conductor_group": group,
         "drivers": list(registry.hardware_types)}, update_existing=True)
    dbapi.register_conductor_hardware_interfaces(row.id, registry.records())
    serve_local_rpc(hostname)
    # The API finds the conductor of a node through the hash rings.
    from ironic import hash_ring
    hash_ring.reset()


def serve_local_rpc(hostname: str) -> None:
    """Answer the ``none`` transport's calls for ``hostname`` in-process
    (the RPC endpoint alone: no heartbeat, no periodic tasks)."""
    from ironic.common import rpc
    from ironic.conductor import manager
    if hostname not in rpc.local_hosts():
        rpc.register_local(hostname, manager.ConductorManager(hostname))


def stop_local_rpc() -> None:
    from ironic.common import rpc
    for hostname in rpc.local_hosts():
        rpc.unregister_local(hostname)


@contextlib.contextmanager
def module_api_database(directory: str, **conductor: Any
                        ) -> Iterator[ConfigOverrides]:
    """What a test module sharing one API application needs: a migrated
    sqlite database in ``directory``, no authentication, the test drivers
    and a registered in-process conductor (``conductor`` adds options of
    its group). Yields the overrides for more; all undone afterwards."""
    from ironic import driver_registry
    from ironic.common import policy
    overrides = ConfigOverrides()
    path = fresh_database(directory)
    sqla_api.dispose()
    overrides("database", connection=f"sqlite:///{path}")
    overrides(state_path=directory, auth_strategy="noauth",
              rpc_transport="none")
    # Registered once: on a busy machine the module may run longer than a
    # heartbeat period.
    overrides("conductor", heartbeat_timeout=3600, **conductor)
    configure_test_drivers(overrides)
    policy.reset()
    register_test_conductor()
    try:
        yield overrides
    finally:
        sqla_api.dispose()
        stop_local_rpc()
        overrides.cleanup()
        driver_registry.reset()


@contextlib.contextmanager
def conductor_in_process(monkeypatch) -> Iterator[Any]:
    """A conductor service started in the test's own process, which the
    API reaches in-process (``rpc_transport = none``), stopped after."""
    from ironic import driver_registry, hash_ring
    from ironic.common import rpc
    from ironic.conductor import base_manager, rpcapi
    rpc.reset()
    hash_ring.reset()
    monkeypatch.setattr(rpcapi, "_API", None)
    svc = base_manager.ConductorService()
    svc.start()
    try:
        yield svc
    finally:
        svc.stop(timeout=5)
        rpc.reset()
        driver_registry.reset()
