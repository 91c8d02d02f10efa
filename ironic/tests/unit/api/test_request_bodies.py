"""Request bodies the service cannot store or answer are 400, not 500.

Each case is refused while the body is parsed, before anything is written:
the node or list stays as it was.
"""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ironic.api import body
from ironic.conf import CONF
from ironic.tests.fixtures import error_message


@pytest.fixture
def node(api):
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "name": "n1",
                                  "extra": {"keep": 1}})
    assert resp.status_int == 201, resp.body
    return resp.json


def _nodes(api):
    return api.get("/v1/nodes/detail").json["nodes"]


def _extra_patch(raw_value: bytes) -> bytes:
    return (b'[{"op": "add", "path": "/extra/a", "value": ' + raw_value
            + b"}]")


def _create_body(raw_value: bytes) -> bytes:
    return b'{"driver": "fake-hardware", "extra": {"a": ' + raw_value + b"}}"


_OUT_OF_RANGE = [b"18446744073709551616", b"1" + b"0" * 30,
                 b"-9223372036854775809", b"1" * 5000]
_NOT_JSON_NUMBERS = [b"NaN", b"Infinity", b"-Infinity", b"1e999"]
_BAD_TEXT = [b'"\\ud800"', b'"a\\udfffb"', b'"\\u0000"', b'"x\\u0000y"']


@pytest.mark.parametrize("value", _OUT_OF_RANGE + _NOT_JSON_NUMBERS
                         + _BAD_TEXT)
def test_create_with_unstorable_value_is_400_and_creates_nothing(api, value):
    resp = api.post("/v1/nodes", raw=_create_body(value))
    assert resp.status_int == 400, resp.body
    error_message(resp)
    assert _nodes(api) == []


@pytest.mark.parametrize("value", _OUT_OF_RANGE + _NOT_JSON_NUMBERS
                         + _BAD_TEXT)
def test_patch_with_unstorable_value_is_400_and_changes_nothing(api, node,
                                                                value):
    before = _nodes(api)
    resp = api.patch("/v1/nodes/n1", raw=_extra_patch(value))
    assert resp.status_int == 400, resp.body
    error_message(resp)
    assert _nodes(api) == before


@pytest.mark.parametrize("key", [b'"\\ud800"', b'"\\u0000"'])
def test_unstorable_text_in_keys_is_400(api, node, key):
    resp = api.patch("/v1/nodes/n1", raw=(
        b'[{"op": "add", "path": "/extra/a", "value": {' + key + b": 1}}]"))
    assert resp.status_int == 400, resp.body


def test_messages_say_what_is_wrong(api, node):
    resp = api.patch("/v1/nodes/n1", raw=_extra_patch(b"1" + b"0" * 30))
    assert "out of range" in error_message(resp)
    resp = api.patch("/v1/nodes/n1", raw=_extra_patch(b'"\\u0000"'))
    assert "NUL" in error_message(resp)
    resp = api.patch("/v1/nodes/n1", raw=_extra_patch(b'"\\ud800"'))
    assert "surrogate" in error_message(resp)
    resp = api.patch("/v1/nodes/n1", raw=_extra_patch(b"NaN"))
    assert "NaN" in error_message(resp)


@pytest.mark.parametrize("value", [b"18446744073709551615",
                                   b"-9223372036854775808", b"1.5e300",
                                   b'"\\ud83d\\ude00"', b'"\\u00e9\\t"'])
def test_values_at_the_edges_are_stored_and_read_back(api, node, value):
    resp = api.patch("/v1/nodes/n1", raw=_extra_patch(value))
    assert resp.status_int == 200, resp.body
    expected = json.loads(value)
    assert resp.json["extra"]["a"] == expected
    assert api.get("/v1/nodes/n1").json["extra"]["a"] == expected


@pytest.mark.parametrize("raw", [b"[" * 100_000, b"{\"a\":" * 50_000,
                                 b"[" * 40 + b"]" * 40])
def test_deep_nesting_is_400_without_recursion(api, raw):
    for method, path in [("POST", "/v1/nodes"), ("PATCH", "/v1/nodes/x"),
                         ("PUT", "/v1/nodes/x/traits"),
                         ("POST", "/v1/ports")]:
        resp = api.request(method, path, raw=raw)
        assert resp.status_int == 400, (method, path, resp.body)
        assert "deeper than 25" in error_message(resp)


def test_brackets_inside_strings_do_not_count(api):
    text = "[{" * 1000 + '\\"' + "]}" * 1000
    resp = api.post("/v1/nodes", raw=(
        b'{"driver": "fake-hardware", "extra": {"s": "'
        + text.encode() + b'"}}'))
    assert resp.status_int == 201, resp.body
    assert resp.json["extra"]["s"] == json.loads(f'"{text}"')


def test_depth_limit_is_configurable(api, config):
    config("api", max_json_body_depth=8)
    nested: dict = {"leaf": 1}
    for _ in range(7):
        nested = {"n": nested}
    resp = api.post("/v1/nodes", {"driver": "fake-hardware",
                                  "extra": nested})
    assert resp.status_int == 400
    assert "deeper than 8" in error_message(resp)
    resp = api.post("/v1/nodes", {"driver": "fake-hardware",
                                  "extra": nested["n"]})
    assert resp.status_int == 201


def test_oversized_body_is_413(api):
    limit = CONF.api.max_json_body_size * 1024
    resp = api.post("/v1/nodes", raw=(
        b'{"driver": "fake-hardware", "extra": {"a": "'
        + b"x" * limit + b'"}}'))
    assert resp.status_int == 413
    assert str(limit) in error_message(resp)
    assert _nodes(api) == []


def test_declared_length_over_the_limit_is_413_without_reading(api, config):
    config("api", max_json_body_size=4)

    class Unreadable:
        def read(self, *args):
            raise AssertionError("the body must not be read")

    import webob
    req = webob.Request.blank("/v1/nodes", method="POST", headers={
        "X-OpenStack-Ironic-API-Version": "latest",
        "Content-Type": "application/json"})
    req.environ["wsgi.input"] = Unreadable()
    req.environ["CONTENT_LENGTH"] = str(4 * 1024 + 1)
    resp = req.get_response(api.app)
    assert resp.status_int == 413
    error_message(resp)


def test_chunked_body_is_read_only_up_to_the_limit(api, config):
    config("api", max_json_body_size=4)
    import io

    import webob

    class Endless(io.RawIOBase):
        served = 0

        def read(self, n=-1):
            n = 4096 if n is None or n < 0 else n
            self.served += n
            return b" " * n

    stream = Endless()
    req = webob.Request.blank("/v1/nodes", method="POST", headers={
        "X-OpenStack-Ironic-API-Version": "latest",
        "Content-Type": "application/json",
        "Transfer-Encoding": "chunked"})
    req.environ["wsgi.input"] = stream
    req.environ.pop("CONTENT_LENGTH", None)
    resp = req.get_response(api.app)
    assert resp.status_int == 413
    assert stream.served <= 4 * 1024 + 1


def test_chunked_body_within_the_limit_is_served(api):
    import io

    import webob
    payload = json.dumps({"driver": "fake-hardware", "name": "chunky"})
    req = webob.Request.blank("/v1/nodes", method="POST", headers={
        "X-OpenStack-Ironic-API-Version": "latest",
        "Content-Type": "application/json",
        "Transfer-Encoding": "chunked"})
    req.environ["wsgi.input"] = io.BytesIO(payload.encode())
    req.environ.pop("CONTENT_LENGTH", None)
    resp = req.get_response(api.app)
    assert resp.status_int == 201, resp.body
    assert resp.json["name"] == "chunky"


class _BrokenInput:
    """A WSGI server's input stream on a malformed chunked body (gunicorn
    raises its own parse errors, mod_wsgi an OSError)."""

    def __init__(self, error: Exception):
        self.error = error

    def read(self, n=-1):
        raise self.error


@pytest.mark.parametrize("error", [ValueError("Invalid chunk size: b'-2'"),
                                   OSError("request data read error")])
def test_a_body_the_server_cannot_read_is_400(api, error):
    import webob
    req = webob.Request.blank("/v1/nodes", method="POST", headers={
        "X-OpenStack-Ironic-API-Version": "latest",
        "Content-Type": "application/json",
        "Transfer-Encoding": "chunked"})
    req.environ["wsgi.input"] = _BrokenInput(error)
    req.environ.pop("CONTENT_LENGTH", None)
    resp = req.get_response(api.app)
    assert resp.status_int == 400, resp.body
    assert "could not be read" in error_message(resp)
    assert api.get("/v1/nodes").json["nodes"] == []


def test_body_fields_are_not_handler_arguments(api, node):
    # pecan would hand {"trait": ...} to put(trait=...), adding one trait
    # instead of validating a traits document.
    resp = api.put("/v1/nodes/n1/traits", {"trait": "CUSTOM_X"})
    assert resp.status_int == 400, resp.body
    assert api.get("/v1/nodes/n1/traits").json["traits"] == []


def test_patch_sent_as_an_object_names_the_patch_document(api, node):
    resp = api.patch("/v1/nodes/n1", {"op": "add", "path": "/extra/a",
                                      "value": 1})
    assert resp.status_int == 400
    assert error_message(resp) == (
        "Schema error for patch: {'op': 'add', 'path': '/extra/a', "
        "'value': 1} is not of type 'array'")


def test_form_encoded_patch_is_still_read_as_json(api, node):
    # curl -d sends this content type unless told otherwise.
    import webob
    req = webob.Request.blank("/v1/nodes/n1", method="PATCH", headers={
        "X-OpenStack-Ironic-API-Version": "latest",
        "Content-Type": "application/x-www-form-urlencoded"})
    req.body = _extra_patch(b"7")
    resp = req.get_response(api.app)
    assert resp.status_int == 200, resp.body
    assert resp.json["extra"]["a"] == 7


def _depth(doc) -> int:
    if isinstance(doc, dict):
        return 1 + max(map(_depth, doc.values()), default=0)
    if isinstance(doc, list):
        return 1 + max(map(_depth, doc), default=0)
    return 0


_docs = st.recursive(
    st.none() | st.integers() | st.text(alphabet='[]{}"\\ab'),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(alphabet='[]{}"\\ab', max_size=4), inner,
                      max_size=3),
    max_leaves=20)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(doc=_docs, limit=st.integers(1, 8))
def test_raw_depth_scan_agrees_with_the_parsed_depth(doc, limit):
    raw = json.dumps(doc).encode()
    assert body.nesting_depth_exceeds(raw, limit) == (_depth(doc) > limit)


@pytest.mark.parametrize("path,option", [
    ("/v1/nodes/n1/states/provision", "max_json_body_size_provision"),
    ("/v1/continue_inspection", "max_json_body_size_inspection"),
    ("/v1/nodes/n1", "max_json_body_size"),
])
def test_each_endpoint_has_its_body_limit_in_kib(config, path, option):
    from ironic.api.middleware import request_limits
    config("api", max_json_body_size=4, max_json_body_size_provision=8,
           max_json_body_size_inspection=16)
    assert request_limits.body_limit(path) == \
        getattr(CONF.api, option) * 1024


def test_a_config_drive_larger_than_the_general_limit_is_accepted(api, node,
                                                                   config):
    # Config drives travel in the provision request: 64 MiB by default,
    # where every other body stops at 1 MiB.
    config("api", max_json_body_size=4)
    drive = "x" * (8 * 1024)
    resp = api.put("/v1/nodes/n1/states/provision",
                   {"target": "manage", "configdrive": drive})
    assert resp.status_int != 413, resp.body
    resp = api.patch("/v1/nodes/n1", [{"op": "add", "path": "/extra/d",
                                        "value": drive}])
    assert resp.status_int == 413


@pytest.mark.parametrize("raw,why", [
    (b'[{"inventory": {}}]', "must be a JSON object"),
    (b'{"inventory": {}, "x": [' + b"1," * 400_001 + b'1]}',
     "more than 200000 values"),
])
def test_inspection_data_of_the_wrong_shape_is_refused_unparsed(
        api, monkeypatch, raw, why):
    # Refused before any JSON parse: the parser is never reached.
    from ironic.api import method
    monkeypatch.setattr(method, "json_body", _never_called)
    resp = api.post("/v1/continue_inspection", raw=raw)
    assert resp.status_int == 400
    assert why in error_message(resp)


def _never_called(*_args, **_kwargs):
    raise AssertionError("the body was parsed")


@pytest.mark.parametrize("raw,status,why", [
    # Ten megabytes of inventory: over the endpoint's own 2 MiB limit.
    (b'{"inventory": {"x": "' + b"x" * (10 * 1024 * 1024) + b'"}}', 413,
     str(2048 * 1024)),
    (b'{"inventory": ' + b"[" * 10_000 + b"]" * 10_000 + b"}", 400,
     "deeper than 25"),
])
def test_unauthenticated_inspection_data_too_big_or_deep_gets_error_body(
        api, raw, status, why):
    resp = api.post("/v1/continue_inspection", raw=raw)
    assert resp.status_int == status
    assert why in error_message(resp)
    assert _nodes(api) == []
