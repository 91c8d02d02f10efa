"""Config drives built from meta_data/network_data/user_data/vendor_data."""

from __future__ import annotations

import base64
import gzip
import json
import shutil
import subprocess
import types

import pytest

from ironic.common import configdrive, exception, states
from ironic.db import api as db_api
from ironic.tests.unit.conductor.test_lifecycle import (
    _node,
    _provision,
    _state,
)

PARTS = {"meta_data": {"public_keys": {"0": "ssh-ed25519 AAAA me"},
                       "hostname": "web-1"},
         "network_data": {"links": [], "networks": [], "services": []},
         "user_data": "#cloud-config\npackages: [htop]\n",
         "vendor_data": {"site": {"rack": "r12"}}}


def _available(env, **extra):
    uuid = _node(env[0], **extra)
    _provision(env, uuid, "manage")
    _provision(env, uuid, "provide")
    return uuid


def _stored_configdrive(uuid):
    # The API masks it; read what the conductor stored.
    return db_api.get_instance().get_node_by_uuid(uuid).instance_info[
        "configdrive"]


def test_deploy_builds_iso_from_parts(env_newest):
    env = env_newest
    uuid = _available(env, name="web-1-node")
    _provision(env, uuid, "active", configdrive=PARTS)
    assert _state(env, uuid) == (states.ACTIVE, None, None)
    files = configdrive.read_files(_stored_configdrive(uuid))
    assert files["<label>"] == b"config-2"
    meta = json.loads(files["openstack/latest/meta_data.json"])
    assert meta["public_keys"] == {"0": "ssh-ed25519 AAAA me"}
    assert meta["uuid"] == uuid and meta["name"] == "web-1-node"
    assert json.loads(files["openstack/latest/network_data.json"]) == \
        PARTS["network_data"]
    assert json.loads(files["openstack/latest/vendor_data2.json"]) == \
        PARTS["vendor_data"]
    assert files["openstack/latest/user_data"] == \
        PARTS["user_data"].encode()
    assert files["openstack/2012-08-10/meta_data.json"] == \
        files["openstack/latest/meta_data.json"]
    shown = env[0].get(f"/v1/nodes/{uuid}").json["instance_info"]
    assert shown["configdrive"] == "******"


def test_rebuild_with_parts_and_json_user_data(env_newest):
    env = env_newest
    uuid = _available(env)
    _provision(env, uuid, "active", configdrive="opaque-string")
    assert _stored_configdrive(uuid) == "opaque-string"
    _provision(env, uuid, "rebuild", configdrive={
        "user_data": {"runcmd": ["true"]}})
    assert _state(env, uuid)[0] == states.ACTIVE
    files = configdrive.read_files(_stored_configdrive(uuid))
    assert json.loads(files["openstack/latest/user_data"]) == \
        {"runcmd": ["true"]}
    assert "openstack/latest/vendor_data2.json" not in files
    assert json.loads(files["openstack/latest/meta_data.json"]) == \
        {"uuid": uuid}


def test_node_network_data_used_when_not_given(env_newest):
    env = env_newest
    net = {"links": [{"id": "eth0", "type": "phy"}], "networks": [],
           "services": []}
    uuid = _available(env, network_data=net)
    _provision(env, uuid, "active", configdrive={"meta_data": {}})
    files = configdrive.read_files(_stored_configdrive(uuid))
    assert json.loads(files["openstack/latest/network_data.json"]) == net


@pytest.mark.parametrize("version,body,fragment", [
    ("1.55", {"meta_data": {}}, "1.56"),
    ("1.58", {"vendor_data": {"a": 1}}, "1.59"),
])
def test_version_gates_are_400(env_newest, version, body, fragment):
    env = env_newest
    uuid = _available(env)
    env[0].version = version
    resp = _provision(env, uuid, "active", status=400, configdrive=body)
    assert fragment in resp.json["error_message"]
    assert _state(env, uuid)[0] == states.AVAILABLE


@pytest.mark.parametrize("body", [
    {"meta_data": "not-an-object"},
    {"unknown_part": {}},
    {"user_data": 42},
    {"vendor_data": ["x"]},
])
def test_malformed_parts_are_400(env_newest, body):
    env = env_newest
    uuid = _available(env)
    resp = _provision(env, uuid, "active", status=400, configdrive=body)
    assert resp.json["error_message"]
    assert _state(env, uuid)[0] == states.AVAILABLE


def test_validate_parts_rejects_bad_types():
    with pytest.raises(exception.InvalidParameterValue):
        configdrive.validate_parts({"meta_data": []})
    with pytest.raises(exception.InvalidParameterValue):
        configdrive.validate_parts({"extra": {}})


def test_encoding_is_gzipped_base64_iso():
    node = types.SimpleNamespace(uuid="u-1", name=None, network_data=None)
    raw = gzip.decompress(base64.b64decode(configdrive.build(node, {})))
    # ISO 9660: primary volume descriptor at sector 16, "CD001" magic.
    assert raw[16 * 2048 + 1:16 * 2048 + 6] == b"CD001"
    assert raw[16 * 2048 + 40:16 * 2048 + 48] == b"config-2"


@pytest.mark.skipif(not shutil.which("blkid"), reason="needs blkid")
def test_label_seen_by_blkid(tmp_path):
    node = types.SimpleNamespace(uuid="u-1", name="n", network_data=None)
    raw = gzip.decompress(base64.b64decode(configdrive.build(node, PARTS)))
    image = tmp_path / "cd.iso"
    image.write_bytes(raw)
    out = subprocess.run(["blkid", "-o", "export", str(image)],
                         capture_output=True, text=True, check=True).stdout
    assert "LABEL=config-2" in out and "TYPE=iso9660" in out
