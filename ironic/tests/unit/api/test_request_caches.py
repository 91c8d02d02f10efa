"""Caches on the request path give the same answers as the uncached code
(JSON schema validators), and content negotiation is webob's."""

import jsonschema
import pytest

from ironic.api.controllers.v1 import utils as api_utils
from ironic.common import exception

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "maxLength": 3},
                   "size": {"type": "integer", "minimum": 1}},
    "required": ["name"],
    "additionalProperties": False,
}


@pytest.mark.parametrize("doc", [
    {"name": "abcd"}, {"name": 1}, {"size": 2}, {"name": "a", "x": 1},
    {"name": "a", "size": 0}, [], {"name": "abcd", "size": "big"},
])
def test_validate_reports_what_jsonschema_reports(doc):
    with pytest.raises(jsonschema.ValidationError) as expected:
        jsonschema.validate(doc, SCHEMA)
    with pytest.raises(exception.InvalidParameterValue) as got:
        api_utils.validate(SCHEMA, doc, "thing")
    assert expected.value.message in str(got.value)


def test_validate_checks_a_schema_once(monkeypatch):
    schema = dict(SCHEMA)
    calls = []
    cls = jsonschema.validators.validator_for(schema)
    monkeypatch.setattr(cls, "check_schema",
                        classmethod(lambda c, s: calls.append(s)))
    for _ in range(3):
        api_utils.validate(schema, {"name": "ab"}, "thing")
    assert calls == [schema]


def test_validate_still_rejects_a_broken_schema():
    with pytest.raises(jsonschema.SchemaError):
        api_utils.validate({"type": "no-such-type"}, {}, "thing")


@pytest.mark.parametrize("value, status", [
    (None, 200), ("", 200), ("*/*", 200), ("application/json", 200),
    ("application/*", 200), ("application/json;q=0.5, text/plain", 200),
    ("garbage;;;", 200), ("text/html", 406), ("text/*", 406),
])
def test_content_negotiation_is_unchanged(api, value, status):
    headers = {} if value is None else {"Accept": value}
    for _ in range(2):
        resp = api.get("/v1/nodes", headers=headers)
        assert resp.status_int == status, resp.body
        assert resp.content_type == "application/json"
