"""auth_strategy = http_basic: the real clients authenticate from htpasswd."""

from __future__ import annotations

import urllib.error

import pytest
from openstack import exceptions as sdk_exc

from ironic.tests.functional import conftest
from ironic.tests.functional import service as svc

USER, PASSWORD = "operator", conftest.BASIC_USERS["operator"]


def _basic_conn(endpoint: str, user: str, password: str):
    return conftest.sdk_connection(
        endpoint, auth_type="http_basic",
        auth={"username": user, "password": password, "endpoint": endpoint})


def _basic_cli(endpoint: str, user: str, password: str) -> svc.Cli:
    return svc.Cli(endpoint, env={
        "OS_AUTH_TYPE": "http_basic", "OS_USERNAME": user,
        "OS_PASSWORD": password, "OS_ENDPOINT": endpoint})


def test_sdk_with_valid_credentials(basic_service, unique):
    conn = _basic_conn(basic_service.endpoint, USER, PASSWORD)
    node = conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"basic-{unique}")
    assert conn.baremetal.get_node(node.id).name == f"basic-{unique}"
    conn.baremetal.delete_node(node)


@pytest.mark.parametrize("user,password", [
    (USER, "wrong-password"), ("nobody", PASSWORD),
    ("auditor", PASSWORD)])
def test_sdk_with_bad_credentials_gets_401(basic_service, user, password):
    conn = _basic_conn(basic_service.endpoint, user, password)
    with pytest.raises(sdk_exc.HttpException) as err:
        list(conn.baremetal.nodes())
    assert err.value.status_code == 401
    assert "Invalid authentication credentials" in str(err.value)


def test_sdk_without_credentials_gets_401(basic_service):
    conn = conftest.sdk_connection(basic_service.endpoint)
    with pytest.raises(sdk_exc.HttpException) as err:
        conn.baremetal.create_node(driver="fake-hardware")
    assert err.value.status_code == 401


def test_version_document_is_public(basic_service):
    doc = svc.get_json(basic_service.endpoint + "/")
    assert doc["default_version"]["id"] == "v1"
    with pytest.raises(urllib.error.HTTPError) as err:
        svc.get_json(basic_service.endpoint + "/v1/nodes")
    assert err.value.code == 401
    assert err.value.headers["WWW-Authenticate"].startswith("Basic")


def test_cli_authenticates(basic_service, unique):
    conn = _basic_conn(basic_service.endpoint, USER, PASSWORD)
    node = conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"basic-{unique}")
    good = _basic_cli(basic_service.endpoint, USER, PASSWORD)
    assert good.json("node", "show", node.id)["name"] == f"basic-{unique}"
    bad = _basic_cli(basic_service.endpoint, USER, "nope").run(
        "node", "show", node.id, check=False)
    assert bad.returncode != 0
    assert "HTTP 401" in bad.stderr
