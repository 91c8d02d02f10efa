"""Property-based tests: no generated request ever gets a 5xx.

Thousands of arbitrary bodies, patches, query strings and paths are sent to
the in-process application. Every answer must be a success or a 4xx carrying
the API error body, and a rejected request must leave the database as it
was.
"""

from __future__ import annotations

import json
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ironic.tests import fixtures as ifx

_SETTINGS = settings(max_examples=300, deadline=None, derandomize=True,
                     suppress_health_check=list(HealthCheck))

# Every character, lone surrogates and NUL included: json.dumps writes
# them as \ud800 and \u0000 escapes, as a client could.
any_char = st.characters(codec=None, exclude_categories=())
nasty_text = st.sampled_from(["\x00", "\ud800", "a\udfffb", "x\x00y",
                              "\ud83d\ude00", "é", "", " "])
json_text = st.text(any_char, max_size=40) | nasty_text
# Unbounded integers, and the edges of what orjson and the databases hold.
json_ints = st.integers() | st.sampled_from(
    [2**64 - 1, 2**64, -2**63, -2**63 - 1, 10**30, -10**30, 2**63])
json_scalars = (st.none() | st.booleans() | json_ints | st.floats()
                | json_text)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(json_text, inner, max_size=4),
    max_leaves=12)

# The second node's unique values, so patches and creates collide.
OTHER_NAME = "fuzz-other"
OTHER_INSTANCE = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
taken_values = st.sampled_from([OTHER_NAME, OTHER_INSTANCE, "fuzz-target",
                                OTHER_INSTANCE.upper()])

_NODE_KEYS = ["uuid", "name", "driver", "driver_info", "properties", "extra",
              "instance_info", "instance_uuid", "chassis_uuid",
              "resource_class", "conductor_group", "owner", "lessee",
              "description", "network_data", "automated_clean", "protected",
              "protected_reason", "retired", "retired_reason", "maintenance",
              "power_interface", "deploy_interface", "boot_interface",
              "traits", "provision_state", "links", "bogus"]
_DRIVERS = st.sampled_from(["fake-hardware", "fake-hardware", "ipmi",
                           "redfish", "nope", ""])

_DICT_FIELDS = ["driver_info", "properties", "extra", "instance_info",
                "network_data"]
# Well-formed nodes whose free-form parts hold anything: these reach the
# database, so what cannot be stored or sent back shows up here.
storable_nodes = st.fixed_dictionaries(
    {"driver": st.just("fake-hardware")}, optional={
        **{k: st.dictionaries(json_text, json_values, max_size=3)
           for k in _DICT_FIELDS},
        "name": taken_values | st.from_regex(r"\A[a-z0-9._~-]{1,20}\Z"),
        "instance_uuid": taken_values | st.uuids().map(str),
        "description": json_text, "owner": json_text})
node_bodies = st.one_of(
    json_values,
    storable_nodes,
    st.fixed_dictionaries({"driver": _DRIVERS}, optional={
        **{k: json_values for k in _NODE_KEYS if k != "driver"},
        "name": taken_values | json_values,
        "instance_uuid": taken_values | json_values}),
)

_PATHS = ["/" + k for k in _NODE_KEYS] + [
    "/extra/a", "/extra/a/b", "/driver_info/ipmi_password", "/properties/0",
    "/", "", "/extra/~1", "/traits/0", "/instance_info/configdrive"]
patch_ops = st.fixed_dictionaries(
    {"op": st.sampled_from(["add", "replace", "remove", "move", "test",
                            "copy", "bogus"]),
     "path": st.sampled_from(_PATHS) | st.text(max_size=10)},
    optional={"value": json_values, "from": st.sampled_from(_PATHS)})
# Replacing name or instance_uuid with the other node's value: a 409.
collisions = st.fixed_dictionaries({
    "op": st.sampled_from(["add", "replace"]),
    "path": st.sampled_from(["/name", "/instance_uuid"]),
    "value": taken_values})
patches = st.one_of(json_values, st.lists(patch_ops | collisions,
                                          max_size=5))

versions = st.sampled_from([None, "1.1", "1.5", "1.31", "1.37", "1.38",
                            "latest", "1.9999", "2.0", "abc", "1.01", ""])
query_values = st.text(alphabet=string.printable + "\x00é", max_size=12)
list_params = st.dictionaries(
    st.sampled_from(["limit", "marker", "sort_key", "sort_dir", "fields",
                     "detail", "driver", "maintenance", "associated",
                     "provision_state", "instance_uuid", "owner",
                     "resource_class", "conductor_group", "fault",
                     "description_contains", "chassis_uuid", "x"]),
    query_values, max_size=4)


@pytest.fixture(scope="module")
def fuzz_api(tmp_path_factory):
    """One application and database for all examples of this module."""
    from ironic.api import app as api_app
    from ironic.conf import CONF

    directory = str(tmp_path_factory.mktemp("fuzz"))
    with ifx.module_api_database(directory):
        client = ifx.ApiClient(api_app.setup_app())
        node = client.post("/v1/nodes", {"driver": "fake-hardware",
                                         "name": "fuzz-target",
                                         "driver_info": {
                                             "ipmi_password": "p"}})
        assert node.status_int == 201, node.body
        # Patched by UUID: a successful rename must not lose the target.
        client.target = f"/v1/nodes/{node.json['uuid']}"
        other = client.post("/v1/nodes", {"driver": "fake-hardware",
                                          "name": OTHER_NAME,
                                          "instance_uuid": OTHER_INSTANCE})
        assert other.status_int == 201, other.body
        yield client
    assert CONF.database.connection != \
        f"sqlite:///{directory}/ironic.sqlite"


def _assert_sane(resp) -> None:
    assert resp.status_int < 500, (resp.status, resp.body)
    if resp.status_int >= 400:
        ifx.error_message(resp)


def _remove(uuid: str) -> None:
    """Drop a node the test created (associated nodes refuse DELETE)."""
    from ironic.db import api as db_api
    dbapi = db_api.get_instance()
    dbapi.destroy_node(dbapi.get_node_by_uuid(uuid).id)


def _snapshot(client) -> str:
    doc = client.get("/v1/nodes/detail", version="latest").json
    return json.dumps(doc, sort_keys=True)


@_SETTINGS
@given(body=node_bodies, version=versions)
def test_create_never_5xx(fuzz_api, body, version):
    before = _snapshot(fuzz_api)
    resp = fuzz_api.post("/v1/nodes", body, version=version or "")
    _assert_sane(resp)
    if resp.status_int >= 400:
        assert _snapshot(fuzz_api) == before
    else:
        _remove(resp.json["uuid"])


@_SETTINGS
@given(patch=patches, version=versions)
def test_patch_never_5xx_and_failure_changes_nothing(fuzz_api, patch,
                                                     version):
    before = _snapshot(fuzz_api)
    resp = fuzz_api.patch(fuzz_api.target, patch, version=version or "")
    _assert_sane(resp)
    if resp.status_int >= 400:
        assert _snapshot(fuzz_api) == before


@_SETTINGS
@given(params=list_params, version=versions,
       detail=st.booleans())
def test_list_never_5xx(fuzz_api, params, version, detail):
    from urllib.parse import urlencode
    path = "/v1/nodes/detail" if detail else "/v1/nodes"
    resp = fuzz_api.get(f"{path}?{urlencode(params)}", version=version or "")
    _assert_sane(resp)


def _nested(opener: bytes, closer: bytes):
    return st.integers(1, 150_000).map(lambda n: opener * n + closer * (
        n if n < 1000 else 0))


# Bodies a JSON encoder would not write: deep nesting (balanced or not),
# numbers beyond 64 bits or doubles, NaN, escapes of surrogates and NUL.
raw_json_tokens = st.sampled_from([
    b"1" + b"0" * 30, b"18446744073709551616", b"-9223372036854775809",
    b"1e999", b"-1e999", b"NaN", b"Infinity", b"-Infinity", b"9" * 5000,
    b'"\\ud800"', b'"\\udc00x"', b'"\\u0000"', b'"a\\u0000"', b"1.5",
    b'"\\ud83d\\ude00"', b"18446744073709551615"])
raw_bodies = st.one_of(
    st.binary(max_size=64), st.text(max_size=64).map(str.encode),
    _nested(b"[", b"]"), _nested(b'{"a":', b"}"),
    st.tuples(raw_json_tokens, st.booleans()).map(
        lambda t: (b'{"driver": "fake-hardware", "extra": {"a": %s}}'
                   if t[1] else
                   b'[{"op": "add", "path": "/extra/a", "value": %s}]')
        % t[0]))


@_SETTINGS
@given(raw=raw_bodies,
       method=st.sampled_from(["POST", "PATCH", "PUT"]),
       path=st.sampled_from(["/v1/nodes", "target",
                             "target/traits",
                             "target/traits/CUSTOM_X"]))
def test_raw_bodies_never_5xx_and_failure_changes_nothing(fuzz_api, raw,
                                                          method, path):
    path = path.replace("target", fuzz_api.target)
    before = _snapshot(fuzz_api)
    resp = fuzz_api.request(method, path, raw=raw)
    _assert_sane(resp)
    if resp.status_int >= 400:
        assert _snapshot(fuzz_api) == before
    elif method == "POST" and path == "/v1/nodes":
        _remove(resp.json["uuid"])


@_SETTINGS
@given(segment=st.text(max_size=20).filter(lambda s: "/" not in s),
       method=st.sampled_from(["GET", "DELETE", "PATCH", "PUT", "POST"]))
def test_odd_paths_never_5xx(fuzz_api, segment, method):
    from urllib.parse import quote
    for tpl in ("/v1/nodes/{}", "/v1/{}", "/v1/nodes/fuzz-target/{}",
                "/v1/nodes/{}/traits"):
        resp = fuzz_api.request(method, tpl.format(quote(segment, safe="")))
        _assert_sane(resp)
