"""Property-based tests of /v1/allocations: no generated request ever gets
a 5xx, and a rejected one changes nothing."""

from __future__ import annotations

import json
from unittest import mock
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ironic.api.controllers.v1 import versions as api_versions
from ironic.tests import fixtures as ifx
from ironic.tests.unit.api.test_fuzz import json_values, patch_ops

_SETTINGS = settings(max_examples=200, deadline=None, derandomize=True,
                     suppress_health_check=list(HealthCheck))
_KEYS = ["uuid", "name", "resource_class", "traits", "candidate_nodes",
         "extra", "owner", "node", "state", "node_uuid", "bogus"]
_TRAITS = st.lists(st.sampled_from(["CUSTOM_A", "HW_CPU_X86_AVX2", "bad",
                                    ""]) | st.text(max_size=8), max_size=3)
bodies = st.one_of(
    json_values,
    st.fixed_dictionaries({}, optional={
        **{k: json_values for k in _KEYS},
        "resource_class": st.sampled_from(["gold", "", "x" * 90]),
        "traits": _TRAITS,
        "candidate_nodes": st.lists(st.sampled_from(
            ["fz", "nope", "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"])),
        "node": st.sampled_from(["fz", "nope", ""]),
        "name": st.sampled_from(["ok-name", "bad name", "fz-alloc"])
        | st.text(max_size=8)}),
)
versions = st.sampled_from(["1.51", "1.52", "1.57", "1.58", "1.59", "1.60",
                            "1.79", "latest"])
_PATHS = ["/" + k for k in _KEYS] + ["/extra/a", "/name", "/extra"]
patches = st.one_of(json_values, st.lists(
    patch_ops | st.fixed_dictionaries({
        "op": st.sampled_from(["add", "replace", "remove"]),
        "path": st.sampled_from(_PATHS)}, optional={"value": json_values}),
    max_size=4))
list_params = st.dictionaries(
    st.sampled_from(["node", "resource_class", "state", "owner", "fields",
                     "limit", "marker", "sort_key", "sort_dir", "x"]),
    st.text(max_size=12) | st.sampled_from(["fz", "active", "uuid,name"]),
    max_size=4)


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory):
    from ironic.api import app as api_app

    directory = str(tmp_path_factory.mktemp("fuzz-alloc"))
    with ifx.module_api_database(directory, node_locked_retry_attempts=0), \
            mock.patch.object(api_versions, "MAX_VERSION", 79):
        client = ifx.ApiClient(api_app.setup_app(), version="1.79")
        client.post("/v1/nodes", {"driver": "fake-hardware", "name": "fz",
                                  "resource_class": "gold"})
        resp = client.post("/v1/allocations", {"resource_class": "gold",
                                               "name": "fz-alloc"})
        assert resp.status_int == 201, resp.body
        yield client


def _sane(resp) -> None:
    assert resp.status_int < 500, (resp.status, resp.body)
    if resp.status_int >= 400:
        ifx.error_message(resp)


def _snapshot(client) -> str:
    return json.dumps(client.get("/v1/allocations?fields=uuid,name,extra",
                                 version="1.79").json, sort_keys=True)


@_SETTINGS
@given(body=bodies, version=versions)
def test_create_never_5xx(fuzz, body, version):
    before = _snapshot(fuzz)
    resp = fuzz.post("/v1/allocations", body, version=version)
    _sane(resp)
    if resp.status_int >= 400:
        assert _snapshot(fuzz) == before


@_SETTINGS
@given(patch=patches, version=versions)
def test_patch_never_5xx(fuzz, patch, version):
    before = _snapshot(fuzz)
    resp = fuzz.patch("/v1/allocations/fz-alloc", patch, version=version)
    _sane(resp)
    if resp.status_int >= 400:
        assert _snapshot(fuzz) == before
    elif resp.json.get("name") != "fz-alloc":
        # Put the name back for the next example.
        assert fuzz.patch(f"/v1/allocations/{resp.json['uuid']}", [
            {"op": "add", "path": "/name", "value": "fz-alloc"}],
            version="1.79").status_int == 200


@_SETTINGS
@given(params=list_params, version=versions)
def test_list_never_5xx(fuzz, params, version):
    _sane(fuzz.get(f"/v1/allocations?{urlencode(params)}", version=version))


@_SETTINGS
@given(segment=st.text(max_size=20).filter(lambda s: "/" not in s),
       method=st.sampled_from(["GET", "DELETE", "PATCH", "POST"]))
def test_odd_paths_never_5xx(fuzz, segment, method):
    seg = quote(segment, safe="")
    for tpl in ("/v1/allocations/{}", "/v1/nodes/{}/allocation"):
        _sane(fuzz.request(method, tpl.format(seg), version="1.79"))
