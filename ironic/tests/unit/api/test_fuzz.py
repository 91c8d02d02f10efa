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

_SETTINGS = settings(max_examples=500, deadline=None, derandomize=True,
                     suppress_health_check=list(HealthCheck))

json_scalars = (st.none() | st.booleans() | st.integers(-2**40, 2**40)
                | st.floats(allow_nan=False, allow_infinity=False)
                | st.text(max_size=40))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12)

_NODE_KEYS = ["uuid", "name", "driver", "driver_info", "properties", "extra",
              "instance_info", "instance_uuid", "chassis_uuid",
              "resource_class", "conductor_group", "owner", "lessee",
              "description", "network_data", "automated_clean", "protected",
              "protected_reason", "retired", "retired_reason", "maintenance",
              "power_interface", "deploy_interface", "boot_interface",
              "traits", "provision_state", "links", "bogus"]
_DRIVERS = st.sampled_from(["fake-hardware", "ipmi", "redfish", "nope", ""])

node_bodies = st.one_of(
    json_values,
    st.fixed_dictionaries({"driver": _DRIVERS}, optional={
        k: json_values for k in _NODE_KEYS if k != "driver"}),
)

_PATHS = ["/" + k for k in _NODE_KEYS] + [
    "/extra/a", "/extra/a/b", "/driver_info/ipmi_password", "/properties/0",
    "/", "", "/extra/~1", "/traits/0", "/instance_info/configdrive"]
patch_ops = st.fixed_dictionaries(
    {"op": st.sampled_from(["add", "replace", "remove", "move", "test",
                            "copy", "bogus"]),
     "path": st.sampled_from(_PATHS) | st.text(max_size=10)},
    optional={"value": json_values, "from": st.sampled_from(_PATHS)})
patches = st.one_of(json_values, st.lists(patch_ops, max_size=5))

versions = st.sampled_from([None, "1.1", "1.5", "1.31", "1.37", "1.38",
                            "latest", "1.9999", "2.0", "abc", "1.01", ""])
query_values = st.text(alphabet=string.printable, max_size=12)
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
    from ironic.common import driver_factory, policy
    from ironic.conf import CONF
    from ironic.db.sqlalchemy import api as sqla_api

    directory = tmp_path_factory.mktemp("fuzz")
    overrides = ifx.ConfigOverrides()
    path = ifx.fresh_database(str(directory))
    sqla_api.dispose()
    overrides("database", connection=f"sqlite:///{path}")
    overrides(state_path=str(directory), auth_strategy="noauth",
              rpc_transport="none")
    ifx.configure_test_drivers(overrides)
    policy.reset()
    ifx.register_test_conductor()
    client = ifx.ApiClient(api_app.setup_app())
    node = client.post("/v1/nodes", {"driver": "fake-hardware",
                                     "name": "fuzz-target",
                                     "driver_info": {"ipmi_password": "p"}})
    assert node.status_int == 201, node.body
    yield client
    sqla_api.dispose()
    ifx.stop_local_rpc()
    overrides.cleanup()
    driver_factory.reset()
    assert CONF.database.connection != f"sqlite:///{path}"


def _assert_sane(resp) -> None:
    assert resp.status_int < 500, (resp.status, resp.body)
    if resp.status_int >= 400:
        ifx.error_message(resp)


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
        assert fuzz_api.delete(f"/v1/nodes/{resp.json['uuid']}",
                               version="latest").status_int == 204


@_SETTINGS
@given(patch=patches, version=versions)
def test_patch_never_5xx_and_failure_changes_nothing(fuzz_api, patch,
                                                     version):
    before = _snapshot(fuzz_api)
    resp = fuzz_api.patch("/v1/nodes/fuzz-target", patch,
                          version=version or "")
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


@_SETTINGS
@given(raw=st.binary(max_size=64) | st.text(max_size=64).map(str.encode),
       method=st.sampled_from(["POST", "PATCH", "PUT"]),
       path=st.sampled_from(["/v1/nodes", "/v1/nodes/fuzz-target",
                             "/v1/nodes/fuzz-target/traits",
                             "/v1/nodes/fuzz-target/traits/CUSTOM_X"]))
def test_raw_bodies_never_5xx(fuzz_api, raw, method, path):
    _assert_sane(fuzz_api.request(method, path, raw=raw))


@_SETTINGS
@given(segment=st.text(max_size=20).filter(lambda s: "/" not in s),
       method=st.sampled_from(["GET", "DELETE", "PATCH", "PUT", "POST"]))
def test_odd_paths_never_5xx(fuzz_api, segment, method):
    from urllib.parse import quote
    for tpl in ("/v1/nodes/{}", "/v1/{}", "/v1/nodes/fuzz-target/{}",
                "/v1/nodes/{}/traits"):
        resp = fuzz_api.request(method, tpl.format(quote(segment, safe="")))
        _assert_sane(resp)
