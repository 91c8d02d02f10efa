"""Authentication strategies through the whole WSGI application."""

import base64
import os

import bcrypt
import pytest
from keystonemiddleware import auth_token

from ironic.api import app as api_app
from ironic.api.middleware import auth
from ironic.common import exception, policy
from ironic.conf import CONF
from ironic.tests import fixtures as ifx

PUBLIC = ["/", "/v1", "/v1/", "/v1/lookup?addresses=52:54:00:00:00:01",
          "/v1/heartbeat/some-node", "/v1/continue_inspection"]


def _hash(password: bytes, prefix: bytes = b"$2b$") -> str:
    # rounds=4 keeps the test fast; $2y$ is what Apache's htpasswd -B
    # writes, the same algorithm under another name.
    hashed = bcrypt.hashpw(password, bcrypt.gensalt(rounds=4))
    return (prefix + hashed[4:]).decode()


def _basic(user: str, password: str) -> dict:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


@pytest.fixture
def htpasswd(tmp_path):
    path = tmp_path / "htpasswd"
    path.write_text("# operators\n"
                    f"alice:{_hash(b'wonder', b'$2y$')}\n"
                    f"bob:{_hash(b'build:er', b'$2b$')}\n\n")
    return path


@pytest.fixture
def basic_api(database, config, htpasswd):
    config(auth_strategy="http_basic",
           http_basic_auth_user_file=str(htpasswd))
    ifx.register_test_conductor()
    return ifx.ApiClient(api_app.setup_app())


def _assert_401(resp):
    assert resp.status_int == 401
    assert resp.headers["WWW-Authenticate"].startswith("Basic realm=")
    assert ifx.error_message(resp)


@pytest.mark.parametrize("user,password", [("alice", "wonder"),
                                           ("bob", "build:er")])
def test_valid_credentials_reach_the_api(basic_api, user, password):
    resp = basic_api.get("/v1/nodes", headers=_basic(user, password))
    assert resp.status_int == 200 and resp.json["nodes"] == []
    created = basic_api.post("/v1/nodes", {"driver": "fake-hardware"},
                             headers=_basic(user, password))
    assert created.status_int == 201


@pytest.mark.parametrize("headers", [
    {},
    {"Authorization": "Bearer abc"},
    {"Authorization": "Basic"},
    {"Authorization": "Basic !!!not-base64"},
    {"Authorization": "Basic " + base64.b64encode(b"\xff\xfe").decode()},
    {"Authorization": "Basic " + base64.b64encode(b"alice").decode()},
    _basic("alice", "wrong"),
    _basic("alice", "wonder "),
    _basic("mallory", "wonder"),
    _basic("", ""),
])
def test_missing_or_wrong_credentials_are_401(basic_api, headers):
    _assert_401(basic_api.get("/v1/nodes", headers=headers))


def test_401_changes_nothing(basic_api):
    _assert_401(basic_api.post("/v1/nodes", {"driver": "fake-hardware"}))
    resp = basic_api.get("/v1/nodes", headers=_basic("alice", "wonder"))
    assert resp.json["nodes"] == []


@pytest.mark.parametrize("path", PUBLIC)
def test_public_endpoints_need_no_credentials(basic_api, path):
    resp = basic_api.get(path)
    assert resp.status_int != 401, resp.body
    if path in ("/", "/v1", "/v1/"):
        assert resp.status_int == 200


def test_public_heartbeat_needs_no_credentials_for_post(basic_api):
    resp = basic_api.post("/v1/heartbeat/some-node", {})
    assert resp.status_int not in (401, 500)


def test_similar_paths_are_not_public(basic_api):
    for path in ("/v1/nodes", "/v1/lookupx", "/v1/heartbeat/a/b",
                 "/v1/heartbeat", "/v2", "/v1/lookup%0A", "/v1%0A"):
        _assert_401(basic_api.get(path))


def test_file_changes_are_picked_up(basic_api, htpasswd):
    alice = _basic("alice", "wonder")
    assert basic_api.get("/v1/nodes", headers=alice).status_int == 200
    htpasswd.write_text(f"carol:{_hash(b'new')}\n")
    _assert_401(basic_api.get("/v1/nodes", headers=alice))
    carol = _basic("carol", "new")
    assert basic_api.get("/v1/nodes", headers=carol).status_int == 200
    htpasswd.unlink()
    _assert_401(basic_api.get("/v1/nodes", headers=carol))


def test_a_rewrite_with_the_same_mtime_is_noticed(tmp_path):
    path = tmp_path / "htpasswd"
    path.write_text(f"alice:{_hash(b'one')}\n")
    store = auth.Htpasswd(str(path))
    assert store.check("alice", "one")
    stamp = os.stat(path).st_mtime_ns
    path.write_text(f"alice:{_hash(b'two')}\nbob:{_hash(b'x')}\n")
    os.utime(path, ns=(stamp, stamp))
    assert store.check("alice", "two") and not store.check("alice", "one")


def test_passwords_longer_than_72_bytes_match_like_htpasswd(tmp_path):
    long = "p" * 72
    path = tmp_path / "htpasswd"
    path.write_text(f"alice:{_hash(long.encode())}\n")
    store = auth.Htpasswd(str(path))
    assert store.check("alice", long)
    assert store.check("alice", long + "ignored by bcrypt")
    assert not store.check("alice", long[:-1])


@pytest.mark.parametrize("content", [
    "alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\n",   # not bcrypt
    "alice:$apr1$abc$defghijklmnopqrstuvwx.\n",   # MD5 apr1
    "just-a-name\n",
])
def test_files_with_other_hashes_are_refused_at_start(tmp_path, content):
    path = tmp_path / "htpasswd"
    path.write_text(content)
    with pytest.raises(exception.ConfigInvalid, match="line 1"):
        auth.Htpasswd(str(path))


def test_a_missing_file_is_refused_at_start(database, config, tmp_path):
    config(auth_strategy="http_basic",
           http_basic_auth_user_file=str(tmp_path / "absent"))
    with pytest.raises(exception.ConfigInvalid, match="absent"):
        api_app.setup_app()


# --- noauth --------------------------------------------------------------------

def test_noauth_is_an_administrator_whatever_it_claims(api):
    resp = api.post("/v1/nodes", {"driver": "fake-hardware"},
                    headers={"X-Roles": "reader"})
    assert resp.status_int == 201
    assert api.get("/v1/nodes").status_int == 200


# --- keystone ------------------------------------------------------------------

@pytest.fixture
def keystone_conf(database, config):
    for group, opts in auth_token.list_opts():
        CONF.register_opts(opts, group=group)
    # A loopback URI nobody listens on: the middleware must not need it
    # to turn away a request without a token.
    config("keystone_authtoken", www_authenticate_uri="http://127.0.0.1:9/v3")
    config(auth_strategy="keystone")
    policy.reset()
    yield
    policy.reset()


def test_keystone_app_builds_and_serves_public_paths(keystone_conf):
    client = ifx.ApiClient(api_app.setup_app())
    assert client.get("/").status_int == 200
    assert client.get("/v1").status_int == 200


def test_keystone_without_token_is_401_in_the_api_error_body(keystone_conf):
    client = ifx.ApiClient(api_app.setup_app())
    resp = client.get("/v1/nodes")
    assert resp.status_int == 401
    assert "127.0.0.1:9" in resp.headers["WWW-Authenticate"]
    assert "authentication" in ifx.error_message(resp)


def test_keystone_headers_drive_policy(keystone_conf, monkeypatch):
    # Stand in for a token keystonemiddleware has validated: it passes the
    # request on with the X-* headers describing the caller.
    monkeypatch.setattr(auth_token, "AuthProtocol", lambda app, _conf: app)
    ifx.register_test_conductor()
    client = ifx.ApiClient(api_app.setup_app())
    reader = {"X-Roles": "reader", "OpenStack-System-Scope": "all"}
    admin = {"X-Roles": "admin,member,reader",
             "OpenStack-System-Scope": "all"}
    project_member = {"X-Roles": "member,reader", "X-Project-Id": "p1"}
    assert client.get("/v1/nodes", headers=reader).status_int == 200
    denied = client.post("/v1/nodes", {"driver": "fake-hardware"},
                         headers=reader)
    assert denied.status_int == 403
    assert "baremetal:node:create" in ifx.error_message(denied)
    # A project member lists only its project's nodes (none yet).
    mine = client.get("/v1/nodes", headers=project_member)
    assert mine.status_int == 200 and mine.json["nodes"] == []
    assert client.get("/v1/nodes").status_int == 403
    created = client.post("/v1/nodes", {"driver": "fake-hardware"},
                          headers=admin)
    assert created.status_int == 201


def _alice(tmp_path) -> auth.Htpasswd:
    path = tmp_path / "htpasswd"
    path.write_text(f"alice:{_hash(b'pw')}\n")
    return auth.Htpasswd(str(path))


def test_unknown_users_cost_a_hash_check_like_known_ones(tmp_path,
                                                         monkeypatch):
    # Refusing an unknown user without hashing answered in 0.2 ms where a
    # wrong password took 200 ms: user names could be enumerated.
    htpasswd = _alice(tmp_path)
    checked = []
    real = bcrypt.checkpw
    monkeypatch.setattr(auth.bcrypt, "checkpw",
                        lambda pw, hashed: checked.append(hashed) or
                        real(pw, hashed))
    assert not htpasswd.check("mallory", "pw")
    assert not htpasswd.check("alice", "wrong")
    assert len(checked) == 2
    # The dummy has the cost of the file's hashes.
    assert checked[0].split(b"$")[2] == checked[1].split(b"$")[2] == b"04"


def test_password_checks_wait_their_turn_then_get_503(tmp_path,
                                                      monkeypatch):
    htpasswd = _alice(tmp_path)
    monkeypatch.setattr(auth, "CHECK_WAIT", 0.05)
    assert htpasswd._checks.acquire()      # another check in progress
    try:
        with pytest.raises(auth.TooManyChecks):
            htpasswd.check("alice", "wrong")
    finally:
        htpasswd._checks.release()
    assert htpasswd.check("alice", "pw")
