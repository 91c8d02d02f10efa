"""Caches on the request path give the same answers as the uncached code:
JSON schema validators and pecan's routing helpers."""

import functools

import jsonschema
import pecan
import pecan.rest
import pecan.routing
import pecan.util
import pytest
from webob import acceptparse

from ironic.api import pecan_speedups
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


def _decorated(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapper


class _Rest(pecan.rest.RestController):
    @pecan.expose()
    @_decorated
    def get_one(self, ident, **params):
        return ident


def test_install_is_idempotent():
    pecan_speedups.install()
    installed = (pecan.util._getargspec, pecan.rest.getargspec,
                 pecan.routing._detect_custom_path_segments)
    pecan_speedups.install()
    assert (pecan.util._getargspec, pecan.rest.getargspec,
            pecan.routing._detect_custom_path_segments) == installed


def test_cached_argspecs_match_pecan():
    pecan_speedups.install()
    original = pecan.util.getargspec.__wrapped__
    bound = _Controller().handler
    for module in (pecan.util, pecan.core, pecan.rest, pecan.routing):
        assert module.getargspec(bound) == original(bound)
        # Another bound method of the same function: the same answer.
        assert module.getargspec(_Controller().handler) is \
            module.getargspec(bound)
    assert pecan.util.getargspec(_Controller.handler) == \
        original(_Controller.handler)
    assert pecan.util.getargspec(bound).args == ["self", "ident", "extra"]
    # Drilled through a decorator to the handler's own arguments.
    assert pecan.util.getargspec(_Rest().get_one).args == ["self", "ident"]


def test_rest_arguments_are_the_handlers_after_self():
    pecan_speedups.install()
    assert _Rest()._get_args_for_controller(_Rest().get_one) == ["ident"]


def test_custom_route_conflicts_are_still_detected():
    pecan_speedups.install()

    class Clashing:
        taken = None

        @pecan.expose(route="taken")
        def handler(self):
            return ""

    with pytest.raises(RuntimeError, match="custom path segment"):
        pecan.routing._detect_custom_path_segments(Clashing())


def test_a_known_controller_is_not_listed_again(monkeypatch):
    pecan_speedups.install()

    class Plain:
        pass

    listed = []
    real_dir = dir
    monkeypatch.setattr("builtins.dir",
                        lambda obj: listed.append(obj) or real_dir(obj))
    pecan.routing._detect_custom_path_segments(Plain())
    assert listed, "the first sight of a class lists its attributes"
    first = len(listed)
    pecan.routing._detect_custom_path_segments(Plain())
    assert len(listed) == first


_ACCEPTS = [None, "", "*/*", "application/json", "text/html", "text/*",
            "application/*", "application/json;q=0.5, text/plain",
            "garbage;;;", "text/plain;q=0, application/json;q=0"]
_OFFERS = [["application/json"], ["text/plain", "text/html",
                                  "application/json"]]


@pytest.mark.parametrize("value", _ACCEPTS)
def test_known_accept_headers_match_as_webob_matches(value):
    parsed = acceptparse.create_accept_header(value)
    known = pecan_speedups.accept_header(value)
    assert known is pecan_speedups.accept_header(value)
    assert known.header_value == parsed.header_value
    for offers in _OFFERS * 2:
        assert known.acceptable_offers(offers) == \
            parsed.acceptable_offers(offers)
    # Callers get their own list.
    known.acceptable_offers(_OFFERS[0]).append("x")
    assert known.acceptable_offers(_OFFERS[0]) == \
        parsed.acceptable_offers(_OFFERS[0])


@pytest.mark.parametrize("value, status", [
    (None, 200), ("", 200), ("*/*", 200), ("application/json", 200),
    ("application/*", 200), ("application/json;q=0.5, text/plain", 200),
    ("garbage;;;", 200), ("text/html", 406), ("text/*", 406),
])
def test_content_negotiation_is_unchanged(api, value, status):
    # As the API answered before parsed headers were remembered.
    headers = {} if value is None else {"Accept": value}
    for _ in range(2):
        resp = api.get("/v1/nodes", headers=headers)
        assert resp.status_int == status, resp.body
        assert resp.content_type == "application/json"
