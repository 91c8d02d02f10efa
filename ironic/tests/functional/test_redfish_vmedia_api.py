"""/v1/nodes/{node}/vmedia (1.89) on a redfish node: the API, an
in-process conductor and the Redfish emulator, whose own virtual drives
are read after each call."""

from __future__ import annotations

import pytest

from ironic.tests.emulators.launch import RedfishEmulator
from ironic.tests.functional.redfish_helpers import (
    ImageServer,
    emulator_system,
    redfish_conductor,
)

V = "1.89"


@pytest.fixture(scope="module")
def bmc():
    with RedfishEmulator(count=1, user="admin", password="pw") as emu:
        yield emu


@pytest.fixture(scope="module")
def images():
    with ImageServer(("boot.iso", "config.img")) as server:
        yield server


@pytest.fixture
def env(api_without_conductor, config, monkeypatch):
    with redfish_conductor(
            api_without_conductor, config, monkeypatch, V,
            automated_clean=None, vendor=["redfish", "no-vendor"]) as env:
        yield env


def _drives(bmc) -> dict[str, tuple[bool, str]]:
    media = emulator_system(bmc).virtual_media
    return {m.identity: (m.inserted, m.image) for m in media.get_members()}


def _done(env, resp):
    assert resp.status_int == 204, resp.body
    assert env[1].pool.wait_idle(30)


def _node(env, bmc) -> str:
    resp = env[0].post("/v1/nodes", {
        "driver": "redfish", "driver_info": {
            "redfish_address": bmc.url, "redfish_username": "admin",
            "redfish_password": "pw",
            "redfish_system_id": f"/redfish/v1/Systems/{bmc.systems()[0]}"}})
    assert resp.status_int == 201, resp.body
    assert resp.json["vendor_interface"] == "redfish"
    return resp.json["uuid"]


def test_attach_and_detach_reach_the_bmc(env, bmc, images):
    api = env[0]
    uuid = _node(env, bmc)
    _done(env, api.post(f"/v1/nodes/{uuid}/vmedia", {
        "device_type": "cdrom", "image_url": images.url("boot.iso"),
        "image_download_source": "http"}))
    _done(env, api.post(f"/v1/nodes/{uuid}/vmedia", {
        "device_type": "floppy", "image_url": images.url("config.img")}))
    assert _drives(bmc) == {"Cd": (True, images.url("boot.iso")),
                            "Floppy": (True, images.url("config.img"))}
    _done(env, api.delete(f"/v1/nodes/{uuid}/vmedia?device_types=cdrom"))
    assert _drives(bmc)["Cd"] == (False, "")
    assert _drives(bmc)["Floppy"][0] is True
    _done(env, api.delete(f"/v1/nodes/{uuid}/vmedia"))
    assert _drives(bmc) == {"Cd": (False, ""), "Floppy": (False, "")}

    # The BMC cannot fetch a missing image: the node says so.
    _done(env, api.post(f"/v1/nodes/{uuid}/vmedia", {
        "device_type": "cdrom", "image_url": images.url("missing.iso")}))
    node = api.get(f"/v1/nodes/{uuid}").json
    assert "missing.iso" in node["last_error"]
    assert _drives(bmc)["Cd"] == (False, "")


def test_vendor_passthru_ejects_media(env, bmc, images):
    api = env[0]
    uuid = _node(env, bmc)
    for kind, name in (("cdrom", "boot.iso"), ("floppy", "config.img")):
        _done(env, api.post(f"/v1/nodes/{uuid}/vmedia", {
            "device_type": kind, "image_url": images.url(name)}))
    resp = api.post(f"/v1/nodes/{uuid}/vendor_passthru?method=eject_vmedia",
                    {"boot_device": "floppy"})
    assert resp.status_int == 202, resp.body
    assert env[1].pool.wait_idle(30)
    assert _drives(bmc) == {"Cd": (True, images.url("boot.iso")),
                            "Floppy": (False, "")}
    resp = api.post(f"/v1/nodes/{uuid}/vendor_passthru?method=eject_vmedia",
                    {"boot_device": "tape"})
    assert resp.status_int == 400
    resp = api.post(f"/v1/nodes/{uuid}/vendor_passthru?method=eject_vmedia",
                    {})
    assert resp.status_int == 202, resp.body
    assert env[1].pool.wait_idle(30)
    assert _drives(bmc) == {"Cd": (False, ""), "Floppy": (False, "")}


def test_get_reads_the_drives_from_the_bmc(env, bmc, images, monkeypatch):
    """1.93: GET answers what the emulator's drives hold, whoever put it
    there (here the API, then the BMC's own eject)."""
    api = env[0]
    uuid = _node(env, bmc)
    _done(env, api.delete(f"/v1/nodes/{uuid}/vmedia"))
    resp = api.get(f"/v1/nodes/{uuid}/vmedia", version="1.93")
    assert resp.status_int == 200, resp.body
    assert resp.json == [
        {"media_types": ["CD", "DVD"], "inserted": False, "image": ""},
        {"media_types": ["Floppy", "USBStick"], "inserted": False,
         "image": ""}]
    _done(env, api.post(f"/v1/nodes/{uuid}/vmedia", {
        "device_type": "cdrom", "image_url": images.url("boot.iso")}))
    got = api.get(f"/v1/nodes/{uuid}/vmedia", version="1.93").json
    assert got[0] == {"media_types": ["CD", "DVD"], "inserted": True,
                      "image": images.url("boot.iso")}
    # Ejected behind the service's back: GET asks the BMC, not a cache.
    for drive in emulator_system(bmc).virtual_media.get_members():
        if drive.inserted:
            drive.eject_media()
    got = api.get(f"/v1/nodes/{uuid}/vmedia", version="1.93").json
    assert [d["inserted"] for d in got] == [False, False]
    assert api.get(f"/v1/nodes/{uuid}/vmedia",
                   version="1.92").status_int == 404
