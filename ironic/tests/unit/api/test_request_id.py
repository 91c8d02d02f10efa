"""Every response names its request (API 1.107 headers)."""

import re


def test_request_id_headers(api):
    first = api.get("/v1/nodes")
    second = api.get("/v1/nodes/does-not-exist")
    assert second.status_int == 404
    for resp in (first, second):
        rid = resp.headers["openstack-request-id"]
        assert re.match(r"^req-[0-9a-f-]{36}$", rid)
        assert resp.headers["x-openstack-request-id"] == rid
    assert first.headers["openstack-request-id"] != \
        second.headers["openstack-request-id"]
    assert api.get("/").headers["x-openstack-request-id"]
