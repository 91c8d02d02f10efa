"""Shared pieces of the Redfish functional tests: an ISO web server, a
fresh sushy view of the emulator (its own state, not our cache) and a
task-like object for calling interfaces directly."""

from __future__ import annotations

import functools
import http.server
import os
import tempfile
import threading
import types

import sushy


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
