"""/v1/nodes/{node}/vmedia (1.89) through the API and an in-process
conductor, on fake-hardware (whose management records the media)."""

from __future__ import annotations

import json

import pytest

from ironic import hash_ring
from ironic.common import rpc
from ironic.conductor import base_manager, rpcapi
from ironic.tests.fixtures import error_message

V = "1.89"
URL = "http://images.example/boot.iso"


@pytest.fixture
def env(api_newest, config, monkeypatch):
    config(rpc_transport="none", host="test-conductor")
    config("conductor", node_locked_retry_attempts=0)
    rpc.reset()
    hash_ring.reset()
    monkeypatch.setattr(rpcapi, "_API", None)
    svc = base_manager.ConductorService()
    svc.start()
    yield api_newest, svc
    svc.stop(timeout=5)
    rpc.reset()


def _node(api, **extra) -> str:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", **extra})
    assert resp.status_int == 201, resp.body
    return resp.json["uuid"]


def _media(env, uuid):
    assert env[1].pool.wait_idle(10)
    node = env[0].get(f"/v1/nodes/{uuid}", version=V).json
    return node["driver_internal_info"].get("fake_vmedia"), node


def test_attach_then_detach_some_then_all(env):
    api = env[0]
    uuid = _node(api)
    for kind in ("cdrom", "floppy"):
        resp = api.post(f"/v1/nodes/{uuid}/vmedia", {
            "device_type": kind, "image_url": URL,
            "image_download_source": "http"}, version=V)
        assert resp.status_int == 204, resp.body
        assert resp.body == b""
        assert env[1].pool.wait_idle(10)
    assert _media(env, uuid)[0] == {"cdrom": URL, "floppy": URL}
    resp = api.delete(f"/v1/nodes/{uuid}/vmedia?device_types=floppy",
                      version=V)
    assert resp.status_int == 204, resp.body
    assert _media(env, uuid)[0] == {"cdrom": URL}
    resp = api.delete(f"/v1/nodes/{uuid}/vmedia", version=V)
    assert resp.status_int == 204
    assert _media(env, uuid)[0] is None


def test_detach_accepts_device_types_in_the_body(env):
    api = env[0]
    uuid = _node(api)
    api.post(f"/v1/nodes/{uuid}/vmedia", {"device_type": "disk",
                                          "image_url": URL}, version=V)
    assert _media(env, uuid)[0] == {"disk": URL}
    resp = api.request("DELETE", f"/v1/nodes/{uuid}/vmedia", version=V,
                       raw=json.dumps({"device_types": "disk"}).encode())
    assert resp.status_int == 204, resp.body
    assert _media(env, uuid)[0] is None


@pytest.mark.parametrize("body,named", [
    ({"image_url": URL}, "device_type"),
    ({"device_type": "tape", "image_url": URL}, "tape"),
    ({"device_type": "cdrom"}, "image_url"),
    ({"device_type": "cdrom", "image_url": URL,
      "image_download_source": "ftp"}, "ftp"),
    ({"device_type": "cdrom", "image_url": URL,
      "image_download_source": "swift"}, "swift"),
    ({"device_type": "cdrom", "image_url": URL, "extra": 1}, "extra"),
])
def test_bad_attach_requests_are_400(env, body, named):
    api = env[0]
    uuid = _node(api)
    resp = api.post(f"/v1/nodes/{uuid}/vmedia", body, version=V)
    assert resp.status_int == 400, resp.body
    assert named in error_message(resp)


def test_bad_detach_requests_are_400(env):
    api = env[0]
    uuid = _node(api)
    resp = api.delete(f"/v1/nodes/{uuid}/vmedia?device_types=cdrom,tape",
                      version=V)
    assert resp.status_int == 400
    assert "tape" in error_message(resp)
    resp = api.delete(f"/v1/nodes/{uuid}/vmedia?device=cdrom", version=V)
    assert resp.status_int == 400


def test_older_versions_and_unknown_nodes_are_404(env):
    api = env[0]
    uuid = _node(api)
    body = {"device_type": "cdrom", "image_url": URL}
    assert api.post(f"/v1/nodes/{uuid}/vmedia", body,
                    version="1.88").status_int == 404
    assert api.post("/v1/nodes/nope/vmedia", body,
                    version=V).status_int == 404


def test_unsupported_management_is_400(env, monkeypatch):
    api = env[0]
    uuid = _node(api)
    # A management interface without virtual media (the base class's
    # method): the conductor refuses before answering.
    from ironic.drivers import base
    from ironic.drivers.modules import fake
    monkeypatch.setattr(fake.FakeManagement, "attach_virtual_media",
                        base.ManagementInterface.attach_virtual_media)
    resp = api.post(f"/v1/nodes/{uuid}/vmedia", {
        "device_type": "cdrom", "image_url": URL}, version=V)
    assert resp.status_int == 400, resp.body
    assert "attach_virtual_media" in error_message(resp)


def test_a_failing_attach_lands_in_last_error(env, monkeypatch):
    from ironic.common import exception
    from ironic.drivers.modules import fake

    def refuse(self, task, device_type, image_url):
        raise exception.IronicException("the BMC refused the image")
    monkeypatch.setattr(fake.FakeManagement, "attach_virtual_media", refuse)
    api = env[0]
    uuid = _node(api)
    resp = api.post(f"/v1/nodes/{uuid}/vmedia", {
        "device_type": "floppy", "image_url": URL}, version=V)
    assert resp.status_int == 204
    error = _media(env, uuid)[1]["last_error"]
    assert "the BMC refused the image" in error
    assert URL in error


# -- GET (1.93) -------------------------------------------------------------

def _drives(api, uuid, version="1.93"):
    resp = api.get(f"/v1/nodes/{uuid}/vmedia", version=version)
    assert resp.status_int == 200, resp.body
    return resp.json


def test_get_lists_the_drives_from_1_93(env):
    api, svc = env
    uuid = _node(api)
    assert api.get(f"/v1/nodes/{uuid}/vmedia",
                   version="1.92").status_int == 404
    empty = _drives(api, uuid)
    # A bare list, one entry per drive, as the reference answers.
    assert empty == [
        {"media_types": ["CD", "DVD"], "inserted": False, "image": ""},
        {"media_types": ["Floppy"], "inserted": False, "image": ""},
        {"media_types": ["USBStick"], "inserted": False, "image": ""}]
    resp = api.post(f"/v1/nodes/{uuid}/vmedia", {
        "device_type": "cdrom", "image_url": URL}, version=V)
    assert resp.status_int == 204, resp.body
    assert svc.pool.wait_idle(10)
    drives = _drives(api, uuid)
    assert drives[0] == {"media_types": ["CD", "DVD"], "inserted": True,
                         "image": URL}
    assert not drives[1]["inserted"] and not drives[2]["inserted"]
    assert api.delete(f"/v1/nodes/{uuid}/vmedia",
                      version=V).status_int == 204
    assert svc.pool.wait_idle(10)
    assert _drives(api, uuid) == empty


def test_get_bad_requests(env):
    api, _ = env
    uuid = _node(api)
    assert api.get(f"/v1/nodes/{uuid}/vmedia?x=1",
                   version="1.93").status_int == 400
    assert api.get("/v1/nodes/nope/vmedia", version="1.93").status_int == \
        404
    # Reading shares the node: a node another task holds is still read.
    from ironic.objects.node import Node
    node = Node.get(uuid)
    node.reservation = "another-conductor"
    node.save()
    assert api.get(f"/v1/nodes/{uuid}/vmedia",
                   version="1.93").status_int == 200
    assert api.post(f"/v1/nodes/{uuid}/vmedia", {
        "device_type": "cdrom", "image_url": URL},
        version=V).status_int == 409


def test_get_unsupported_by_the_management_interface(env, monkeypatch):
    from ironic.drivers import base
    from ironic.drivers.modules import fake
    api, _ = env
    uuid = _node(api)
    # A management interface without virtual media (the base's answer).
    monkeypatch.setattr(fake.FakeManagement, "get_virtual_media",
                        base.ManagementInterface.get_virtual_media)
    resp = api.get(f"/v1/nodes/{uuid}/vmedia", version="1.93")
    assert resp.status_int == 400
    assert "get_virtual_media" in error_message(resp)
