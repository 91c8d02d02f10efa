"""Config drives built from their parts (API 1.56, vendor_data 1.59).

A deploy request may give ``configdrive`` as a JSON object with
``meta_data``, ``network_data``, ``user_data`` and (from 1.59)
``vendor_data``. The conductor turns it into what the agent and the boot
interfaces already understand: an ISO 9660 image labelled ``config-2``
(Rock Ridge and Joliet names, so cloud-init and Glean find
``openstack/latest/meta_data.json``), gzip-compressed and base64-encoded,
stored as ``instance_info['configdrive']``.

Layout, for each of the versions ``2012-08-10`` and ``latest``::

    openstack/<version>/meta_data.json
    openstack/<version>/network_data.json   (when given)
    openstack/<version>/vendor_data2.json   (when given)
    openstack/<version>/user_data           (when given)
"""

from __future__ import annotations

import base64
import gzip
import io
import json
from typing import Any

from ironic.common import exception

LABEL = "config-2"
VERSIONS = ("2012-08-10", "latest")
PARTS = ("meta_data", "network_data", "user_data", "vendor_data")


def _iso_name(name: str, is_dir: bool = False) -> str:
    """A strict ISO 9660 (level 3) name for ``name``; Rock Ridge and
    Joliet carry the real one."""
    clean = "".join(c if c.isalnum() else "_" for c in name.upper())
    if is_dir:
        return clean
    stem, _, ext = name.upper().rpartition(".")
    if not stem:
        stem, ext = ext, ""
    stem = "".join(c if c.isalnum() else "_" for c in stem)
    ext = "".join(c if c.isalnum() else "_" for c in ext)
    return f"{stem}.{ext};1"


def files_for(node: Any, parts: dict) -> dict[str, bytes]:
    """The files of the drive ``{path: content}`` for this node."""
    meta = dict(parts.get("meta_data") or {})
    # Cloud-init needs an instance identity; the node gives one.
    meta.setdefault("uuid", node.uuid)
    if getattr(node, "name", None):
        meta.setdefault("name", node.name)
    network = parts.get("network_data")
    if network is None:
        network = getattr(node, "network_data", None) or None
    files: dict[str, bytes] = {}
    for version in VERSIONS:
        base = f"openstack/{version}"
        files[f"{base}/meta_data.json"] = json.dumps(meta).encode()
        if network:
            files[f"{base}/network_data.json"] = json.dumps(network).encode()
        if parts.get("vendor_data"):
            files[f"{base}/vendor_data2.json"] = json.dumps(
                parts["vendor_data"]).encode()
        user = parts.get("user_data")
        if user:
            files[f"{base}/user_data"] = (
                user.encode() if isinstance(user, str)
                else json.dumps(user).encode())
    return files


def make_iso(files: dict[str, bytes]) -> bytes:
    """An ISO 9660 image labelled config-2 holding ``files``."""
    import pycdlib
    iso = pycdlib.PyCdlib()
    iso.new(interchange_level=3, vol_ident=LABEL, joliet=3,
            rock_ridge="1.09")
    made: set[str] = set()
    try:
        for path in sorted(files):
            parts = path.split("/")
            for depth in range(1, len(parts)):
                directory = "/".join(parts[:depth])
                if directory in made:
                    continue
                iso.add_directory(
                    "/" + "/".join(_iso_name(p, True)
                                   for p in parts[:depth]),
                    rr_name=parts[depth - 1], joliet_path="/" + directory)
                made.add(directory)
            data = files[path]
            iso.add_fp(io.BytesIO(data), len(data),
                       "/" + "/".join([*(_iso_name(p, True)
                                         for p in parts[:-1]),
                                       _iso_name(parts[-1])]),
                       rr_name=parts[-1], joliet_path="/" + path)
        out = io.BytesIO()
        iso.write_fp(out)
        return out.getvalue()
    finally:
        iso.close()


def encode(image: bytes) -> str:
    """gzip then base64: the configdrive string the agent writes out."""
    return base64.b64encode(gzip.compress(image)).decode()


def validate_parts(parts: Any) -> None:
    """Checks the conductor repeats (the API has checked the schema)."""
    if not isinstance(parts, dict) or set(parts) - set(PARTS):
        raise exception.InvalidParameterValue(
            err=f"A configdrive object may only have the keys "
                f"{', '.join(PARTS)}.")
    for key in ("meta_data", "network_data", "vendor_data"):
        if parts.get(key) is not None and not isinstance(parts[key], dict):
            raise exception.InvalidParameterValue(
                err=f"configdrive {key} must be a JSON object.")
    user = parts.get("user_data")
    if user is not None and not isinstance(user, (str, dict, list)):
        raise exception.InvalidParameterValue(
            err="configdrive user_data must be a string, an object or a "
                "list.")


def build(node: Any, parts: dict) -> str:
    """The encoded config drive for ``node`` built from ``parts``."""
    validate_parts(parts)
    return encode(make_iso(files_for(node, parts)))


def read_files(encoded: str) -> dict[str, bytes]:
    """Decode and read back a config drive by its Rock Ridge names
    (tests and diagnostics): ``{path: content}`` plus the volume label
    under the key ``"<label>"``."""
    import pycdlib
    raw = gzip.decompress(base64.b64decode(encoded))
    iso = pycdlib.PyCdlib()
    iso.open_fp(io.BytesIO(raw))
    try:
        found: dict[str, bytes] = {
            "<label>": iso.pvd.volume_identifier.decode().strip().encode()}
        for root, _dirs, names in iso.walk(rr_path="/"):
            for name in names:
                path = f"{root.rstrip('/')}/{name}"
                buf = io.BytesIO()
                iso.get_file_from_iso_fp(buf, rr_path=path)
                found[path.lstrip("/")] = buf.getvalue()
        return found
    finally:
        iso.close()
