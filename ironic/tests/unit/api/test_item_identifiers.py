"""A malformed identifier in the URL, refused before any lookup in the
words and body shape Ironic 39 uses for each resource and verb (each
answer read from a running Ironic 39)."""

from __future__ import annotations

import json

import pytest

FAULT = ("faultcode", "faultstring", "debuginfo")
PLAIN = ("code", "title", "description")


def _inner(resp) -> dict:
    return json.loads(resp.json["error_message"])


@pytest.mark.parametrize("method,path,message", [
    ("GET", "chassis/nosuch", "Expected UUID for chassis_uuid: nosuch"),
    ("DELETE", "chassis/nosuch", "Expected UUID for chassis_uuid: nosuch"),
    ("PATCH", "chassis/nosuch", "Schema error: 'nosuch' is not a 'uuid'"),
    ("GET", "ports/bad!", "Expected UUID or name for port_ident: bad!"),
    ("PATCH", "ports/bad!", "Expected UUID or name for port_ident: bad!"),
    # A port is deleted by UUID only.
    ("DELETE", "ports/nosuch", "Expected UUID for port_uuid: nosuch"),
    ("GET", "deploy_templates/bad!",
     "Expected UUID or name for template_ident: bad!"),
    ("DELETE", "runbooks/bad!",
     "Expected UUID or name for runbook_ident: bad!"),
    ("GET", "allocations/bad!",
     "Expected a logical name or UUID but received bad!."),
    ("GET", "inspection_rules/nosuch",
     "Schema error: 'nosuch' is not a 'uuid'"),
    ("PATCH", "inspection_rules/nosuch",
     "Expected UUID for inspection_rule_uuid: nosuch"),
    ("GET", "nodes/bad!/states", "Expected UUID or name for node_ident: bad!"),
    ("GET", "nodes/bad!/management/boot_device",
     "Expected UUID or name for node_ident: bad!"),
])
def test_refused_in_the_fault_body(api_newest, method, path, message):
    resp = api_newest.request(method, f"/v1/{path}",
                              [] if method == "PATCH" else None)
    assert resp.status_int == 400
    inner = _inner(resp)
    assert tuple(inner) == FAULT and inner["faultstring"] == message


@pytest.mark.parametrize("path,message", [
    ("nodes/bad!", "Expected UUID or name for node: bad!"),
    ("nodes/bad!/ports", "Expected UUID or name for node: bad!"),
    ("nodes/bad!/traits", "Expected UUID or name for node: bad!"),
    ("nodes/bad!/volume/connectors", "Expected UUID or name for node: bad!"),
    ("nodes/bad!/allocation", "Expected UUID or name for node: bad!"),
    ("portgroups/bad!", "Expected UUID or name for portgroup: bad!"),
    ("portgroups/bad!/ports", "Expected UUID or name for portgroup: bad!"),
])
def test_refused_in_a_plain_http_error_body(api_newest, path, message):
    resp = api_newest.get(f"/v1/{path}")
    assert resp.status_int == 400
    assert _inner(resp) == {"code": 400, "title": "Bad Request",
                            "description": message}


@pytest.mark.parametrize("method,path,version,status,message", [
    ("GET", "runbooks", "1.91", 404,
     "The API version does not allow runbooks"),
    ("POST", "runbooks", "1.91", 405,
     "The API version does not allow runbooks"),
    ("GET", "deploy_templates/x", "1.54", 404,
     "The API version does not allow deploy templates"),
    ("PATCH", "deploy_templates/x", "1.54", 405,
     "The API version does not allow deploy templates"),
])
def test_too_old_for_templates_and_runbooks(api_newest, method, path,
                                            version, status, message):
    body = [] if method == "PATCH" else ({} if method == "POST" else None)
    resp = api_newest.request(method, f"/v1/{path}", body, version=version)
    assert resp.status_int == status
    phrase = "Not Found" if status == 404 else "Method Not Allowed"
    assert _inner(resp) == {"code": status, "title": phrase,
                            "description": message}
