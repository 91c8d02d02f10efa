"""Every response names its request (API 1.107 headers)."""

import re
import uuid

from ironic.api.middleware import request_id


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


def test_request_ids_are_random_version_4_uuids():
    seen = set()
    for _ in range(2000):
        rid = request_id.new_request_id()
        assert rid.startswith("req-")
        parsed = uuid.UUID(rid[4:])
        assert str(parsed) == rid[4:]
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122
        seen.add(rid)
    assert len(seen) == 2000
