"""Disk images stored as artifacts in an OCI container registry.

``image_source = oci://<registry>[:<port>]/<repository>[:<tag>|@<digest>]``
names an artifact the way container tools do. It is resolved, with the
registry's HTTP API (``/v2/``), to the blob holding the disk image, whose
digest is its checksum:

* a tag (``latest`` when none is given) or a digest names an image index
  or a manifest; from an index, the manifest for the node's
  ``properties/cpu_arch`` (``x86_64`` and ``amd64`` are the same) is used,
  preferring the disk format the download wants (qcow2 when the conductor
  serves the image and converts it, raw when the agent streams it; from
  the ``disktype`` annotation of each manifest);
* the manifest's first layer is the disk image; its ``disktype`` (or
  ``org.opencontainers.image.title`` file extension) gives its format.

Registries are reached over https; ``[oci]permit_fallback_to_http_transport``
allows plain http when https cannot connect. A registry that challenges
with a bearer token (``WWW-Authenticate: Bearer realm=...``) is asked for
an anonymous token; private registries (pull secrets) are not supported.
"""

from __future__ import annotations

import logging
import re
import urllib.parse
from typing import Any

import requests

from ironic.common import exception
from ironic.conf import CONF
from ironic.drivers.modules import image_cache

LOG = logging.getLogger(__name__)

INDEX_TYPES = ("application/vnd.oci.image.index.v1+json",
               "application/vnd.docker.distribution.manifest.list.v2+json")
MANIFEST_TYPES = ("application/vnd.oci.image.manifest.v1+json",
                  "application/vnd.docker.distribution.manifest.v2+json")
_ARCH = {"x86_64": "amd64", "aarch64": "arm64"}
_REF = re.compile(r"^(?P<repo>[a-z0-9][a-z0-9._/-]*?)"
                  r"(?::(?P<tag>[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?"
                  r"(?:@(?P<digest>[a-z0-9]+:[a-f0-9]{32,}))?$")


class OciImageError(exception.IronicException):
    _msg_fmt = "OCI image %(source)s: %(reason)s"


def is_oci(source: Any) -> bool:
    return isinstance(source, str) and source.startswith("oci://")


def parse(source: str) -> tuple[str, str, str]:
    """(registry host[:port], repository, tag or digest); ValueError when
    it is not an OCI reference."""
    parsed = urllib.parse.urlparse(source)
    path = parsed.path.lstrip("/")
    found = _REF.match(path) if parsed.scheme == "oci" and parsed.netloc \
        else None
    if not found:
        raise ValueError(f"{source!r} is not oci://<registry>/<repository>"
                         f"[:<tag>|@<digest>]")
    return (parsed.netloc, found.group("repo"),
            found.group("digest") or found.group("tag") or "latest")


class _Registry:
    def __init__(self, source: str, host: str, repo: str) -> None:
        self.source = source
        self.host = host
        self.repo = repo
        self.scheme = "https"
        self.token: str | None = None

    def url(self, kind: str, ref: str) -> str:
        return f"{self.scheme}://{self.host}/v2/{self.repo}/{kind}/{ref}"

    def get(self, kind: str, ref: str, accept: tuple[str, ...]) -> Any:
        headers = {"Accept": ", ".join(accept)}
        resp = self._send(kind, ref, headers)
        if resp.status_code == 401 and self.token is None:
            self.token = self._anonymous_token(resp)
            resp = self._send(kind, ref, headers)
        if resp.status_code != 200:
            raise OciImageError(source=self.source, reason=(
                f"the registry answered {resp.status_code} for "
                f"{kind} {ref}."))
        return resp

    def _send(self, kind: str, ref: str, headers: dict) -> Any:
        if self.token:
            headers = dict(headers, Authorization=f"Bearer {self.token}")
        try:
            return requests.get(self.url(kind, ref), headers=headers,
                                timeout=image_cache.HTTP_TIMEOUT)
        except requests.ConnectionError as e:
            if self.scheme == "https" and \
                    CONF.oci.permit_fallback_to_http_transport:
                LOG.warning("Registry %s cannot be reached over https "
                            "(%s); trying http", self.host, e)
                self.scheme = "http"
                return self._send(kind, ref, headers)
            raise OciImageError(source=self.source, reason=(
                f"the registry cannot be reached: {e}")) from e
        except requests.RequestException as e:
            raise OciImageError(source=self.source, reason=(
                f"the registry cannot be reached: {e}")) from e

    def _anonymous_token(self, resp: Any) -> str:
        challenge = resp.headers.get("WWW-Authenticate", "")
        if not challenge.lower().startswith("bearer "):
            raise OciImageError(source=self.source, reason=(
                "the registry wants credentials; private registries are "
                "not supported."))
        params = dict(re.findall(r'(\w+)="([^"]*)"', challenge))
        realm = params.pop("realm", None)
        if not realm:
            raise OciImageError(source=self.source,
                                reason="the registry's challenge names no "
                                       "token realm.")
        try:
            answer = requests.get(realm, params=params,
                                  timeout=image_cache.HTTP_TIMEOUT)
            answer.raise_for_status()
            doc = answer.json()
        except (requests.RequestException, ValueError) as e:
            raise OciImageError(source=self.source, reason=(
                f"no anonymous token from {realm}: {e}")) from e
        token = doc.get("token") or doc.get("access_token")
        if not token:
            raise OciImageError(source=self.source,
                                reason=f"no token in the answer of {realm}.")
        return token


def _disktype(doc: dict) -> str | None:
    annotations = doc.get("annotations") or {}
    kind = annotations.get("disktype")
    if kind:
        return str(kind).lower()
    title = annotations.get("org.opencontainers.image.title") or ""
    for ext, fmt in ((".qcow2", "qcow2"), (".raw", "raw"), (".img", "raw"),
                     (".iso", "iso")):
        if title.lower().endswith(ext):
            return fmt
    return None


def _pick(source: str, manifests: list[dict], cpu_arch: str | None,
          preferred: str) -> dict:
    arch = _ARCH.get(cpu_arch or "", cpu_arch)
    usable = [m for m in manifests
              if m.get("mediaType", MANIFEST_TYPES[0]) in MANIFEST_TYPES]
    if arch:
        usable = [m for m in usable
                  if (m.get("platform") or {}).get("architecture") in
                  (None, arch)]
    if not usable:
        raise OciImageError(source=source, reason=(
            f"its index has no manifest for architecture {arch}."))
    return sorted(usable, key=lambda m: _disktype(m) != preferred)[0]


def resolve(source: str, cpu_arch: str | None, served_locally: bool
            ) -> dict:
    """{"url": blob URL, "checksum": ("sha256", digest), "disk_format"}
    of the disk image the reference names."""
    try:
        host, repo, ref = parse(source)
    except ValueError as e:
        raise OciImageError(source=source, reason=str(e)) from e
    registry = _Registry(source, host, repo)
    resp = registry.get("manifests", ref, INDEX_TYPES + MANIFEST_TYPES)
    doc = resp.json()
    media = doc.get("mediaType") or resp.headers.get("Content-Type", "")
    fmt = None
    if media in INDEX_TYPES or "manifests" in doc:
        chosen = _pick(source, doc.get("manifests") or [], cpu_arch,
                       "qcow2" if served_locally else "raw")
        fmt = _disktype(chosen)
        doc = registry.get("manifests", chosen["digest"],
                           MANIFEST_TYPES).json()
    layers = doc.get("layers") or []
    if not layers:
        raise OciImageError(source=source,
                            reason="its manifest has no layers.")
    layer = layers[0]
    algo, _, digest = str(layer.get("digest", "")).partition(":")
    if algo not in ("sha256", "sha512") or not digest:
        raise OciImageError(source=source, reason=(
            f"unusable layer digest {layer.get('digest')!r}."))
    return {"url": registry.url("blobs", layer["digest"]),
            "checksum": (algo, digest),
            "disk_format": _disktype(layer) or fmt}
