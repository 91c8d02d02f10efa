"""Caches on the request path give the same answers as the uncached code:
JSON schema validators and pecan's argument specs."""

import jsonschema
import pecan.util
import pytest

from ironic.api import app as api_app
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


class _Controller:
    def handler(self, ident, extra=None, *args, **kwargs):
        return ident


def test_cached_argspecs_match_pecan_and_wrap_once():
    api_app._cache_argspecs()
    cached = pecan.util._getargspec
    api_app._cache_argspecs()
    assert pecan.util._getargspec is cached
    original = cached.__wrapped__
    bound = _Controller().handler
    assert cached(bound) == original(bound)
    assert cached(_Controller().handler) is cached(bound)
    assert cached(_Controller.handler) == original(_Controller.handler)
    assert pecan.util.getargspec(bound).args == ["self", "ident", "extra"]
