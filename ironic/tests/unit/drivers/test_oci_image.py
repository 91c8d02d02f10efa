"""oci:// images resolved against a tiny OCI registry on loopback.

The registry is served by the test (plain http, the distribution API's
``/v2/<repo>/manifests/<ref>`` and ``/v2/<repo>/blobs/<digest>``, with an
optional anonymous bearer-token challenge); the conductor reaches it with
``[oci]permit_fallback_to_http_transport``.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
import types

import pytest

from ironic.drivers.modules import instance_image, oci_image

RAW = b"raw disk image " * 2048
QCOW = b"QFI\xfb" + b"\x00" * 100  # only resolved, never downloaded here
ARM = b"arm disk image " * 1024
MANIFEST = oci_image.MANIFEST_TYPES[0]
INDEX = oci_image.INDEX_TYPES[0]


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


class Registry:
    def __init__(self, token: str | None = None):
        self.token = token
        self.docs: dict[str, tuple[str, bytes]] = {}
        self.blobs: dict[str, bytes] = {}
        self.requests: list[str] = []

    def add_blob(self, data: bytes) -> str:
        self.blobs[_digest(data)] = data
        return _digest(data)

    def add_manifest(self, data: bytes, disktype: str, title: str) -> dict:
        doc = {"schemaVersion": 2, "mediaType": MANIFEST,
               "config": {"mediaType": "application/vnd.oci.empty.v1+json",
                          "digest": self.add_blob(b"{}"), "size": 2},
               "layers": [{"mediaType": "application/octet-stream",
                           "digest": self.add_blob(data), "size": len(data),
                           "annotations": {
                               "org.opencontainers.image.title": title,
                               "disktype": disktype}}]}
        raw = json.dumps(doc).encode()
        self.docs[_digest(raw)] = (MANIFEST, raw)
        return {"mediaType": MANIFEST, "digest": _digest(raw),
                "size": len(raw)}

    def tag(self, name: str, media: str, doc: dict) -> None:
        self.docs[name] = (media, json.dumps(doc).encode())


@pytest.fixture
def registry(config):
    config("oci", permit_fallback_to_http_transport=True)
    reg = Registry()
    amd_raw = dict(reg.add_manifest(RAW, "raw", "disk.raw"),
                   platform={"architecture": "amd64", "os": "linux"},
                   annotations={"disktype": "raw"})
    amd_qcow = dict(reg.add_manifest(QCOW, "qcow2", "disk.qcow2"),
                    platform={"architecture": "amd64", "os": "linux"},
                    annotations={"disktype": "qcow2"})
    arm = dict(reg.add_manifest(ARM, "raw", "disk.raw"),
               platform={"architecture": "arm64", "os": "linux"},
               annotations={"disktype": "raw"})
    reg.tag("v1", INDEX, {"schemaVersion": 2, "mediaType": INDEX,
                          "manifests": [amd_qcow, arm, amd_raw]})
    reg.amd_raw = amd_raw

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            reg.requests.append(self.path)
            if self.path.startswith("/token"):
                return self._send(200, "application/json",
                                  json.dumps({"token": reg.token}).encode())
            if reg.token and self.headers.get("Authorization") != \
                    f"Bearer {reg.token}":
                self.send_response(401)
                self.send_header(
                    "WWW-Authenticate",
                    f'Bearer realm="http://127.0.0.1:{port}/token",'
                    f'service="test",scope="repository:os/disk:pull"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            parts = self.path.split("/")
            if len(parts) == 6 and parts[1] == "v2" and \
                    parts[2:4] == ["os", "disk"]:
                kind, ref = parts[4], parts[5]
                if kind == "manifests" and ref in reg.docs:
                    return self._send(200, *reg.docs[ref])
                if kind == "blobs" and ref in reg.blobs:
                    return self._send(200, "application/octet-stream",
                                      reg.blobs[ref])
            return self._send(404, "application/json", b"{}")

        def _send(self, status, media, body):
            self.send_response(status)
            self.send_header("Content-Type", media)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    reg.host = f"127.0.0.1:{port}"
    yield reg
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("ref,parsed", [
    ("oci://quay.io/org/disk", ("quay.io", "org/disk", "latest")),
    ("oci://r:5000/disk:v1", ("r:5000", "disk", "v1")),
    ("oci://r/os/disk@sha256:" + "a" * 64,
     ("r", "os/disk", "sha256:" + "a" * 64)),
])
def test_parse(ref, parsed):
    assert oci_image.parse(ref) == parsed


@pytest.mark.parametrize("bad", ["oci://", "oci://r/", "http://r/disk",
                                 "oci://r/UPPER:tag", "oci://r/d@md5:zz"])
def test_parse_refuses(bad):
    with pytest.raises(ValueError):
        oci_image.parse(bad)


def test_index_picks_architecture_and_format(registry):
    ref = f"oci://{registry.host}/os/disk:v1"
    agent = oci_image.resolve(ref, "x86_64", served_locally=False)
    assert agent["disk_format"] == "raw"
    assert agent["checksum"] == ("sha256", hashlib.sha256(RAW).hexdigest())
    assert agent["url"] == (f"http://{registry.host}/v2/os/disk/blobs/"
                            f"{_digest(RAW)}")
    conductor = oci_image.resolve(ref, "x86_64", served_locally=True)
    assert conductor["disk_format"] == "qcow2"
    arm = oci_image.resolve(ref, "aarch64", served_locally=False)
    assert arm["checksum"][1] == hashlib.sha256(ARM).hexdigest()
    with pytest.raises(oci_image.OciImageError, match="architecture ppc"):
        oci_image.resolve(ref, "ppc", served_locally=False)


def test_manifest_by_digest_and_missing_tag(registry):
    ref = f"oci://{registry.host}/os/disk@{registry.amd_raw['digest']}"
    found = oci_image.resolve(ref, None, served_locally=False)
    assert found["checksum"][1] == hashlib.sha256(RAW).hexdigest()
    with pytest.raises(oci_image.OciImageError, match="answered 404"):
        oci_image.resolve(f"oci://{registry.host}/os/disk:nope", None,
                          served_locally=False)


def test_anonymous_bearer_token(registry):
    registry.token = "t0ken"
    found = oci_image.resolve(f"oci://{registry.host}/os/disk:v1", None,
                              served_locally=False)
    assert found["disk_format"] == "raw"
    assert any(p.startswith("/token?") and "scope=" in p
               for p in registry.requests)


def test_https_only_without_the_fallback(registry, config):
    config("oci", permit_fallback_to_http_transport=False)
    with pytest.raises(oci_image.OciImageError, match="cannot be reached"):
        oci_image.resolve(f"oci://{registry.host}/os/disk:v1", None,
                          served_locally=False)


def test_conductor_serves_the_verified_blob(registry, tmp_path, config):
    config("deploy", http_url="http://127.0.0.1:8080",
           http_root=str(tmp_path / "root"))
    config("pxe", instance_master_path=str(tmp_path / "cache"))
    node = types.SimpleNamespace(
        uuid="5e1f0c2a-7b3d-4e8f-9a6b-1c2d3e4f5a6b",
        instance_info={"image_source":
                       f"oci://{registry.host}/os/disk@"
                       f"{registry.amd_raw['digest']}",
                       "image_download_source": "local"},
        driver_info={}, driver_internal_info={}, properties={})
    served = instance_image.prepare(node)
    assert served["os_hash_value"] == hashlib.sha256(RAW).hexdigest()
    assert served["disk_format"] == "raw"
    assert (tmp_path / "root" / "agent_images" / node.uuid).read_bytes() \
        == RAW
    # A blob that does not match its digest is refused, nothing kept.
    registry.blobs[_digest(RAW)] = RAW[:-1] + b"!"
    config("pxe", instance_master_path=str(tmp_path / "cache2"))
    with pytest.raises(instance_image.ImageFault, match="checksum"):
        instance_image.prepare(node)
    assert [p.name for p in (tmp_path / "cache2").iterdir()
            if not p.name.endswith(".lock")] == []
