"""Shared pieces of the Redfish functional tests: an ISO web server, a
fresh sushy view of the emulator (its own state, not our cache) and a
task-like object for calling interfaces directly."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import tempfile
import threading
import types
from typing import Any, Iterator

import sushy

from ironic.tests import fixtures as ifx


class ImageServer:
    """Serves a directory of small fake images over HTTP on loopback, as
    the BMC must download what it is told to insert."""

    def __init__(self, names: tuple[str, ...] = ("deploy.iso", "boot.iso")):
        self.root = tempfile.mkdtemp(prefix="rf-images-")
        for name in names:
            with open(os.path.join(self.root, name), "wb") as f:
                f.write(b"\0" * 4096)
        handler = functools.partial(_QuietHandler, directory=self.root)
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                      handler)
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       daemon=True)

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/{name}"

    def __enter__(self) -> ImageServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        return None


def emulator_system(emu, index: int = 0, user: str = "admin",
                    password: str = "pw"):
    client = sushy.Sushy(f"{emu.url}/redfish/v1",
                         auth=sushy.auth.BasicAuth(user, password))
    return client.get_system(f"/redfish/v1/Systems/{emu.systems()[index]}")


def emulator_cd(emu, index: int = 0):
    """The emulator's CD drive of system ``index``, freshly read."""
    media = emulator_system(emu, index).virtual_media
    return media.get_member(f"{media.path}/Cd")


def make_task(emu, index: int = 0, **driver_info):
    info = {"redfish_address": emu.url, "redfish_username": "admin",
            "redfish_password": "pw",
            "redfish_system_id": f"/redfish/v1/Systems/{emu.systems()[index]}",
            **driver_info}
    node = types.SimpleNamespace(uuid=f"node-{index}", id=index + 1,
                                 driver_info=info, instance_info={},
                                 driver_internal_info={},
                                 power_state="power off",
                                 provision_state=None)
    return types.SimpleNamespace(node=node, context=None)


@contextlib.contextmanager
def redfish_conductor(api, config, monkeypatch, version: str,
                      automated_clean: bool | None = False,
                      **interfaces: list[str]) -> Iterator[tuple[Any, Any]]:
    """``(api, conductor)``: redfish hardware enabled with ``interfaces``
    on top of redfish power and management, an in-process conductor that
    gives up on an unanswering BMC after two quick tries, and the API
    client pinned to ``version``. ``automated_clean=None`` leaves the
    option alone."""
    ifx.configure_test_drivers(
        config, **{"hardware_types": ["redfish"], "power": ["redfish"],
                   "management": ["redfish"], **interfaces})
    config(rpc_transport="none", host="test-conductor")
    if automated_clean is not None:
        config("conductor", automated_clean=automated_clean)
    config("redfish", connection_retry_interval=0, connection_attempts=2)
    with ifx.conductor_in_process(monkeypatch) as svc:
        api.version = version
        yield api, svc

