"""Version headers: 406 on every path for a version out of range, and
the response headers the reference service sends, no more."""

import pytest
import webob

from ironic.api.controllers.v1 import versions


def _get(api, path, headers=None):
    """A GET with exactly ``headers`` (no version header unless given)."""
    return webob.Request.blank(path, headers=headers or {}).get_response(
        api.app)


# The headers a node GET carries on the reference service (2026-11, Ironic
# 39), apart from Date and Server, which the HTTP server adds.
_REFERENCE_HEADERS = {
    "content-type", "content-length", "x-openstack-ironic-api-minimum-version",
    "x-openstack-ironic-api-maximum-version", "x-openstack-ironic-api-version",
    "openstack-request-id", "x-openstack-request-id"}


def test_a_node_get_carries_the_reference_headers(api):
    node = api.post("/v1/nodes", {"driver": "fake-hardware"}).json["uuid"]
    for headers in ({}, {"OpenStack-API-Version": "baremetal 1.80"},
                    {"X-OpenStack-Ironic-API-Version": "latest"}):
        resp = _get(api, f"/v1/nodes/{node}", headers)
        assert resp.status_int == 200
        assert {k.lower() for k in resp.headers} == _REFERENCE_HEADERS
    resp = _get(api, f"/v1/nodes/{node}",
                {"OpenStack-API-Version": "baremetal 1.80"})
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.80"


@pytest.mark.parametrize("path", ["/", "/v1", "/v1/nodes"])
def test_the_root_and_v1_name_the_chosen_version(api, path):
    assert _get(api, path).headers[
        "X-OpenStack-Ironic-API-Version"] == "1.1"
    assert api.get(path, version="latest").headers[
        "X-OpenStack-Ironic-API-Version"] == versions.MAX_VERSION_STRING


@pytest.mark.parametrize("path", ["/", "/v1", "/v2", "/nothing"])
def test_a_version_out_of_range_is_406_on_every_path(api, path):
    resp = api.get(path, version="1.999")
    assert resp.status_int == 406
    assert resp.headers["X-OpenStack-Ironic-API-Maximum-Version"] == \
        versions.MAX_VERSION_STRING
    assert "X-OpenStack-Ironic-API-Version" not in resp.headers


def test_other_paths_do_not_name_a_version(api):
    resp = api.get("/nothing", version="latest")
    assert resp.status_int == 404
    assert "X-OpenStack-Ironic-API-Version" not in resp.headers
    assert resp.headers["X-OpenStack-Ironic-API-Minimum-Version"] == "1.1"
