"""/v1/lookup and /v1/heartbeat: validation, versions and what is shown.

The API runs in-process with a real conductor behind the ``none`` RPC
transport, so the token issue and the heartbeat record are the conductor's
own.
"""

from __future__ import annotations

import json
import pathlib

import pytest

from ironic import hash_ring
from ironic.common import agent_token, rpc, states
from ironic.conductor import base_manager, rpcapi
from ironic.db import api as db_api
from ironic.objects.node import Node
from ironic.tests import builders
from ironic.tests import fixtures as ifx

# What the reference service answered a real agent (recorded).
RECORDED = pathlib.Path(__file__).resolve().parent / "data" / \
    "recorded_lookup_response.json"
MACS = ("52:54:00:aa:01:00", "52:54:00:aa:01:01")
CALLBACK = "https://127.0.0.1:9999"


@pytest.fixture
def env(api, config, monkeypatch):
    config(rpc_transport="none", host="test-conductor")
    config("conductor", node_locked_retry_attempts=0)
    rpc.reset()
    hash_ring.reset()
    monkeypatch.setattr(rpcapi, "_API", None)
    svc = base_manager.ConductorService()
    svc.start()
    api.version = "1.72"
    api.conductor = svc
    yield api
    svc.stop(timeout=5)
    rpc.reset()


def _node(state=states.CLEANWAIT, macs=MACS, **values) -> Node:
    node = builders.make_node(provision_state=state, **values)
    dbapi = db_api.get_instance()
    for mac in macs:
        dbapi.create_port({"address": mac, "node_id": node.id})
    return node


def _lookup(api, query, **kw):
    return api.get(f"/v1/lookup?{query}", **kw)


def _heartbeat(api, ident, **body):
    """POST a heartbeat and wait until the conductor processed it (it
    answers once the heartbeat is accepted and records it in a worker)."""
    body.setdefault("callback_url", CALLBACK)
    resp = api.post(f"/v1/heartbeat/{ident}", body)
    conductor = getattr(api, "conductor", None)
    if conductor is not None:
        assert conductor.pool.wait_idle(10)
    return resp


def _issue(api, node) -> str:
    resp = _lookup(api, f"node_uuid={node.uuid}")
    assert resp.status_int == 200, resp.body
    return resp.json["config"]["agent_token"]


# -- lookup --------------------------------------------------------------


def test_lookup_by_mac_shows_only_public_fields(env):
    node = _node(properties={"root_device": {"name": "/dev/sda"}},
                 instance_info={"image_source": "http://x/disk.img",
                                "image_url": "http://x/disk.img?temp=1",
                                "configdrive": "abc", "password": "p"},
                 driver_info={"ipmi_password": "s3cr3t-ipmi"},
                 management_interface="redfish")
    resp = _lookup(env, f"addresses={MACS[1].upper()},not-a-mac")
    assert resp.status_int == 200, resp.body
    doc = resp.json
    assert set(doc) == {"node", "config"}
    shown = doc["node"]
    assert set(shown) == {"uuid", "properties", "instance_info",
                          "driver_internal_info", "links"}
    assert shown["uuid"] == node.uuid
    assert shown["properties"] == {"root_device": {"name": "/dev/sda"}}
    assert shown["instance_info"] == {
        "image_source": "http://x/disk.img", "image_url": "******",
        "configdrive": "******", "password": "******"}
    assert shown["driver_internal_info"]["agent_secret_token"] == "******"
    assert shown["links"][0]["href"].endswith(f"/v1/nodes/{node.uuid}")
    assert doc["config"]["agent_skip_bmc_detect"] is True
    assert "s3cr3t-ipmi" not in resp.text and "ipmi" not in resp.text


def test_lookup_has_the_recorded_shape(env, config):
    config("api", ramdisk_heartbeat_timeout=30)
    _node()
    doc = _lookup(env, f"addresses={MACS[0]}").json
    recorded = json.loads(RECORDED.read_text())
    assert set(doc["node"]) == set(recorded["node"])
    cfg, expected = doc["config"], recorded["config"]
    assert set(cfg) == set(expected)
    for key, value in expected.items():
        if isinstance(value, dict):
            assert cfg[key] == value, key
        elif key != "agent_token":
            assert type(cfg[key]) is type(value) or value is None, key
    assert cfg["heartbeat_timeout"] == 30
    assert cfg["agent_token_required"] is True
    assert cfg["agent_skip_bmc_detect"] is False
    assert cfg["permitted_image_formats"] == ["raw", "gpt", "qcow2", "iso"]


def test_token_is_shown_once(env):
    node = _node()
    first = _lookup(env, f"addresses={MACS[0]}").json
    token = first["config"]["agent_token"]
    assert token and token != "******" and len(token) >= 32
    again = _lookup(env, f"node_uuid={node.uuid}").json
    assert again["config"]["agent_token"] == "******"
    stored = Node.get(node.uuid).driver_internal_info["agent_secret_token"]
    assert stored != token and token not in stored
    assert agent_token.for_agent(Node.get(node.uuid)) == token


def test_later_lookups_are_answered_without_the_conductor(env, monkeypatch):
    node = _node()
    _issue(env, node)
    db_api.get_instance().reserve_node("other-host", node.id)
    monkeypatch.setattr(rpcapi.ConductorAPI, "get_node_with_token", None)
    resp = _lookup(env, f"addresses={MACS[0]}")
    assert resp.status_int == 200, resp.body
    assert resp.json["config"]["agent_token"] == "******"


def test_no_conductor_for_the_node_is_400(env, monkeypatch):
    from ironic.common import exception

    def no_host(self, node):
        raise exception.NoValidHost(reason="node")
    node = _node()
    monkeypatch.setattr(rpcapi.ConductorAPI, "host_for", no_host)
    assert _lookup(env, f"addresses={MACS[0]}").status_int == 400
    assert _heartbeat(env, node.uuid, agent_token="t").status_int == 400


def test_lookup_before_token_version_issues_nothing(env):
    node = _node()
    doc = _lookup(env, f"node_uuid={node.uuid}", version="1.61").json
    assert doc["config"]["agent_token"] is None
    assert not agent_token.has_token(Node.get(node.uuid))


@pytest.mark.parametrize("query", [
    "", "addresses=", "addresses=zz:zz", "node_uuid=",
])
def test_lookup_needs_an_address_or_uuid(env, query):
    resp = _lookup(env, query)
    assert resp.status_int == 400
    assert "addresses" in ifx.error_message(resp)


def test_lookup_bad_uuid(env):
    resp = _lookup(env, "node_uuid=not-a-uuid")
    assert resp.status_int == 400
    assert "UUID" in ifx.error_message(resp)


def test_lookup_unknown_parameter(env):
    assert _lookup(env, f"addresses={MACS[0]}&bogus=1").status_int == 400


@pytest.mark.parametrize("state", sorted(states.LOOKUP_ALLOWED_STATES))
def test_lookup_allowed_states(env, state):
    _node(state=state)
    assert _lookup(env, f"addresses={MACS[0]}").status_int == 200


def test_every_miss_is_the_same_404(env):
    node = _node(state=states.ACTIVE)
    other = _node(macs=("52:54:00:aa:02:00",))
    _node(macs=("52:54:00:aa:03:00",))
    answers = [
        _lookup(env, f"addresses={MACS[0]}"),        # wrong state
        _lookup(env, "addresses=52:54:00:ff:ff:ff"),  # no such port
        _lookup(env, "node_uuid=" + node.uuid.replace(node.uuid[:8],
                                                       "00000000")),
        # two nodes own these addresses
        _lookup(env, "addresses=52:54:00:aa:02:00,52:54:00:aa:03:00"),
    ]
    assert [r.status_int for r in answers] == [404] * 4
    assert len({ifx.error_message(r) for r in answers}) == 1
    assert other.uuid not in answers[3].text


def test_lookup_unrestricted(env, config):
    config("api", restrict_lookup=False)
    node = _node(state=states.MANAGEABLE)
    resp = _lookup(env, f"addresses={MACS[0]}")
    assert resp.status_int == 200
    assert resp.json["node"]["uuid"] == node.uuid


@pytest.mark.parametrize("path, status, allow", [
    # The lookup controller routes a GET of the collection itself; what
    # pecan routes otherwise answers as it always did.
    ("/v1/lookup/?addresses={mac}", 200, None),
    ("/v1/lookup//?addresses={mac}", 200, None),
    ("/v1/lookup?addresses={mac}&_method=delete", 405, None),
    ("/v1/lookup/x?addresses={mac}", 405, "GET"),
    ("/v1/lookup/get_all?addresses={mac}", 405, "GET"),
])
def test_lookup_routing(env, path, status, allow):
    _node()
    resp = env.get(path.format(mac=MACS[0]))
    assert resp.status_int == status, resp.body
    assert resp.headers.get("Allow") == allow


def test_lookup_needs_1_22(env):
    _node()
    assert _lookup(env, f"addresses={MACS[0]}",
                   version="1.21").status_int == 404


def test_lookup_of_a_locked_node_is_409(env):
    node = _node()
    db_api.get_instance().reserve_node("other-host", node.id)
    resp = _lookup(env, f"addresses={MACS[0]}")
    assert resp.status_int == 409
    assert not agent_token.has_token(Node.get(node.uuid))


def test_lookup_is_public_under_http_basic(env, config, tmp_path):
    from ironic.api import app as api_app
    from ironic.tests.functional.service import write_htpasswd
    htpasswd = write_htpasswd(tmp_path / "htpasswd", {"u": "p"})
    config(auth_strategy="http_basic",
           http_basic_auth_user_file=str(htpasswd))
    client = ifx.ApiClient(api_app.setup_app(), "1.72")
    node = _node()
    assert client.get("/v1/nodes").status_int == 401
    assert _lookup(client, f"addresses={MACS[0]}").status_int == 200
    resp = _heartbeat(client, node.uuid, agent_token="wrong")
    assert resp.status_int == 400


def test_v1_document_links_the_ramdisk_endpoints(env):
    doc = env.get("/v1/").json
    assert doc["lookup"][0]["href"].endswith("/v1/lookup/")
    assert doc["heartbeat"][0]["href"].endswith("/v1/heartbeat/")
    assert "lookup" not in env.get("/v1/", version="1.21").json
    # continue_inspection is listed from its version, as Ironic 39 does.
    doc = env.get("/v1/", version="1.84").json
    assert doc["continue_inspection"][0]["href"].endswith(
        "/v1/continue_inspection/")
    assert "continue_inspection" not in env.get("/v1/",
                                                version="1.83").json


def test_v1_document_has_ironic_39s_media_types_and_docs_link(env):
    doc = env.get("/v1/", version="1.1").json
    assert doc["media_types"] == {
        "base": "application/json",
        "type": "application/vnd.openstack.ironic.v1+json"}
    assert doc["links"][1] == {
        "href": "https://docs.openstack.org//ironic/latest/contributor/"
                "/webapi.html",
        "rel": "describedby", "type": "text/html"}


# -- heartbeat -----------------------------------------------------------


def test_heartbeat_is_recorded(env):
    node = _node()
    token = _issue(env, node)
    resp = _heartbeat(env, node.uuid, agent_token=token,
                      agent_version="11.1.0", agent_status="start",
                      agent_status_message="going")
    assert resp.status_int == 202, resp.body
    assert resp.body == b""
    info = Node.get(node.uuid).driver_internal_info
    assert info["agent_url"] == CALLBACK
    assert info["agent_version"] == "11.1.0"
    assert info["agent_last_heartbeat"]
    assert Node.get(node.uuid).reservation is None


def test_heartbeat_reads_the_node_once(env, config, monkeypatch):
    """The API's read of the node goes to the conductor with the
    heartbeat (RPC 1.11), which records it without reading it again
    (a node at rest: nothing but the record happens)."""
    config("api", restrict_lookup=False)
    node = _node(state=states.MANAGEABLE)
    token = _issue(env, node)
    dbapi = db_api.get_instance()
    reads = []
    get = dbapi.get_node_by_uuid

    def get_node_by_uuid(node_uuid):
        reads.append(node_uuid)
        return get(node_uuid)

    monkeypatch.setattr(dbapi, "get_node_by_uuid", get_node_by_uuid)
    assert _heartbeat(env, node.uuid, agent_token=token).status_int == 202
    assert reads == [node.uuid]
    monkeypatch.undo()
    assert Node.get(node.uuid).driver_internal_info["agent_url"] == \
        CALLBACK


def test_heartbeat_by_name(env):
    node = _node(name="ramdisk-node")
    token = _issue(env, node)
    assert _heartbeat(env, "ramdisk-node",
                      agent_token=token).status_int == 202


@pytest.mark.parametrize("token", [None, "", "wrong", "******"])
def test_heartbeat_bad_token(env, token):
    node = _node()
    _issue(env, node)
    body = {} if token is None else {"agent_token": token}
    resp = _heartbeat(env, node.uuid, **body)
    assert resp.status_int == 400
    assert "token" in ifx.error_message(resp).lower()
    assert "agent_url" not in Node.get(node.uuid).driver_internal_info


def test_heartbeat_without_issued_token(env):
    node = _node()
    resp = _heartbeat(env, node.uuid, agent_token="anything")
    assert resp.status_int == 400


def test_stored_digest_does_not_replay(env):
    node = _node()
    _issue(env, node)
    stored = Node.get(node.uuid).driver_internal_info["agent_secret_token"]
    assert _heartbeat(env, node.uuid,
                      agent_token=stored).status_int == 400


@pytest.mark.parametrize("field,value,since", [
    ("agent_version", "10.0.0", 36),
    ("agent_verify_ca", "-----BEGIN CERTIFICATE-----", 68),
    ("agent_status", "start", 72),
    ("agent_status_message", "hello", 72),
])
def test_heartbeat_fields_need_their_version(env, field, value, since):
    node = _node()
    token = _issue(env, node)
    resp = env.post(f"/v1/heartbeat/{node.uuid}",
                    {"callback_url": CALLBACK, "agent_token": token,
                     field: value}, version=f"1.{since - 1}")
    assert resp.status_int == 400
    assert field in ifx.error_message(resp)


@pytest.mark.parametrize("body,fragment", [
    ({"agent_token": "t"}, "callback_url"),
    ({"callback_url": "ftp://h:1", "agent_token": "t"}, "callback_url"),
    ({"callback_url": "http://:99", "agent_token": "t"}, "callback_url"),
    ({"callback_url": "http://h:99999", "agent_token": "t"},
     "callback_url"),
    ({"callback_url": 5, "agent_token": "t"}, "callback_url"),
    ({"callback_url": CALLBACK, "agent_token": "t", "extra": 1}, "extra"),
    ({"callback_url": CALLBACK, "agent_token": "t",
      "agent_status": "running"}, "status"),
])
def test_heartbeat_bad_body(env, body, fragment):
    node = _node()
    resp = env.post(f"/v1/heartbeat/{node.uuid}", body)
    assert resp.status_int == 400
    assert fragment in ifx.error_message(resp)


def test_heartbeat_not_json(env):
    node = _node()
    resp = env.post(f"/v1/heartbeat/{node.uuid}", raw=b"callback_url=x")
    assert resp.status_int == 400


def test_heartbeat_cannot_tell_node_names_apart(env):
    # Unknown node, bad identifier, known node with a wrong token: one
    # answer, so an unauthenticated caller learns no node names.
    node = _node(name="known-node")
    answers = {(r.status_int, ifx.error_message(r)) for r in (
        _heartbeat(env, "f8e0d8c4-0c8a-4a4c-8d4e-2b0f8f3c9a11",
                   agent_token="t"),
        _heartbeat(env, "unknown-node", agent_token="t"),
        _heartbeat(env, "not a name!", agent_token="t"),
        _heartbeat(env, "known-node", agent_token="t"),
        _heartbeat(env, node.uuid, agent_token="t"))}
    assert answers == {(400, "Invalid or missing agent token received.")}


def test_heartbeat_needs_1_22(env):
    node = _node()
    resp = env.post(f"/v1/heartbeat/{node.uuid}",
                    {"callback_url": CALLBACK, "agent_token": "t"},
                    version="1.21")
    assert resp.status_int == 404


def test_heartbeat_get_is_not_allowed(env):
    node = _node()
    assert env.get(f"/v1/heartbeat/{node.uuid}").status_int in (404, 405)


@pytest.mark.parametrize("suffix, status, message", [
    # The heartbeat controller routes a POST to post() itself; what pecan
    # routes otherwise answers as it always did.
    ("", 400, "Missing mandatory parameter: node_ident; the URL must name "
              "the resource to act on."),
    ("/", 400, "Missing mandatory parameter: node_ident; the URL must name "
               "the resource to act on."),
    ("/{uuid}/extra", 404, "The resource could not be found."),
    ("/{uuid}?_method=get", 405,
     "The method is not allowed for this resource."),
    # Segments naming the controller's own methods are node names to post().
    ("/post", 400, "Invalid or missing agent token received."),
    ("/_route", 400, "Invalid or missing agent token received."),
    ("/get_all", 400, "Invalid or missing agent token received."),
])
def test_heartbeat_routing(env, suffix, status, message):
    node = _node()
    resp = env.post("/v1/heartbeat" + suffix.format(uuid=node.uuid),
                    {"callback_url": CALLBACK, "agent_token": "t"})
    assert (resp.status_int, ifx.error_message(resp)) == (status, message)
    if status == 405:
        assert resp.headers["Allow"] == "POST"


def test_heartbeat_with_trailing_slash_is_accepted(env):
    node = _node()
    token = _issue(env, node)
    resp = _heartbeat(env, f"{node.uuid}/", agent_token=token)
    assert resp.status_int == 202, resp.body


def test_heartbeat_of_a_locked_node_is_409(env):
    node = _node()
    token = _issue(env, node)
    db_api.get_instance().reserve_node("other-host", node.id)
    resp = _heartbeat(env, node.uuid, agent_token=token)
    assert resp.status_int == 409
    assert "locked" in ifx.error_message(resp)


def test_heartbeat_requires_tls_when_configured(env, config):
    config("agent", require_tls=True)
    node = _node()
    token = _issue(env, node)
    resp = _heartbeat(env, node.uuid, agent_token=token,
                      callback_url="http://127.0.0.1:9999")
    assert resp.status_int == 400
    assert "TLS" in ifx.error_message(resp)
    assert _heartbeat(env, node.uuid, agent_token=token).status_int == 202


def test_heartbeat_callback_change_is_refused(env):
    node = _node()
    token = _issue(env, node)
    assert _heartbeat(env, node.uuid, agent_token=token).status_int == 202
    resp = _heartbeat(env, node.uuid, agent_token=token,
                      callback_url="https://10.0.0.9:9999")
    assert resp.status_int == 400
    assert "callback_url" in ifx.error_message(resp)


def test_heartbeat_stores_the_agent_certificate(env, config, tmp_path):
    config("agent", certificates_path=str(tmp_path / "certs"))
    node = _node()
    token = _issue(env, node)
    cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    assert _heartbeat(env, node.uuid, agent_token=token,
                      agent_verify_ca=cert).status_int == 202
    path = Node.get(node.uuid).driver_internal_info["agent_verify_ca"]
    assert path == str(tmp_path / "certs" / f"{node.uuid}.crt")
    assert pathlib.Path(path).read_text() == cert
    assert _heartbeat(env, node.uuid, agent_token=token,
                      agent_verify_ca=cert).status_int == 202
    resp = _heartbeat(env, node.uuid, agent_token=token,
                      agent_verify_ca=cert.replace("MIIB", "MIIC"))
    assert resp.status_int == 400
    assert "agent_verify_ca" in ifx.error_message(resp)


_BODIES = [
    {"callback_url": CALLBACK},
    {"callback_url": CALLBACK, "agent_token": "t", "agent_version": "1"},
    {"callback_url": "", "agent_token": None, "agent_status": None},
    {"callback_url": CALLBACK, "agent_verify_ca": "x" * 65536},
    {"callback_url": CALLBACK, "agent_verify_ca": "x" * 65537},
    {"callback_url": "u" * 2048}, {"callback_url": "u" * 2049},
    {"callback_url": None}, {"callback_url": 5}, {},
    {"agent_token": "t"}, {"callback_url": CALLBACK, "extra": "x"},
    {"callback_url": CALLBACK, "agent_token": 1},
    {"callback_url": CALLBACK, "agent_token": ["t"]},
    {"callback_url": CALLBACK, "agent_status_message": "m" * 4097},
    {"callback_url": CALLBACK, "agent_status": "x" * 10000},
    {"callback_url": CALLBACK, "agent_version": "é" * 255},
    {"callback_url": CALLBACK, "agent_version": "é" * 256},
]


@pytest.mark.parametrize("body", _BODIES)
def test_plainly_valid_bodies_are_valid(body):
    """The shortcut past jsonschema takes only bodies jsonschema
    accepts; the agent's usual ones among them."""
    from ironic.api.controllers.v1 import ramdisk
    from ironic.api.controllers.v1 import utils as api_utils
    from ironic.common import exception
    try:
        api_utils.validate(ramdisk.HEARTBEAT.schema, body, "heartbeat")
        valid = True
    except exception.InvalidParameterValue:
        valid = False
    if ramdisk.plainly_valid(body):
        assert valid
    if body in _BODIES[:4] or body == {"callback_url": "u" * 2048}:
        assert ramdisk.plainly_valid(body)
