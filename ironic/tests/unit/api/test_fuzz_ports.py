"""Property-based tests of ports, portgroups and chassis: never a 5xx.

Generated bodies, patches and queries go to the in-process application at
versions up to beyond today's maximum; every answer must be a success or a
4xx with the API error body, and a rejected write must leave every port,
portgroup and chassis as it was.
"""

from __future__ import annotations

import json
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ironic.tests import fixtures as ifx
from ironic.tests.unit.api.test_fuzz import json_scalars, json_text

_SETTINGS = settings(max_examples=80, deadline=None, derandomize=True,
                     suppress_health_check=list(HealthCheck))

# The other port's unique values: creates and patches collide with them.
TAKEN = ["52:54:00:00:00:02", "52-54-00-00-00-02", "fz-other"]
scalars = (json_scalars
           | st.sampled_from(["52:54:00:12:34:56", "52-54-00-12-34-57",
                              "true", "False", "managed", "unmanaged",
                              "1be26c0b-03f2-4d2e-ae87-c02d7f33c123",
                              *TAKEN]))
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["switch_id", "port_id", "hostname",
                                       "switch_info", "network_type", "a",
                                       "vtep-logical-switch"]) | json_text,
                      inner, max_size=4),
    max_leaves=8)

_KEYS = {
    "ports": ["address", "node_uuid", "node_name", "portgroup_uuid",
              "extra", "local_link_connection", "pxe_enabled",
              "physical_network", "is_smartnic", "name", "description",
              "vendor", "category", "uuid", "internal_info", "links"],
    "portgroups": ["address", "node_uuid", "name", "mode", "properties",
                   "standalone_ports_supported", "physical_network",
                   "extra", "uuid", "internal_info", "ports"],
    "chassis": ["description", "extra", "uuid", "nodes"],
}
versions = st.sampled_from([None, "1.1", "1.19", "1.23", "1.24", "1.34",
                            "1.53", "1.64", "1.88", "1.94", "1.101",
                            "latest", "1.999"])
resources = st.sampled_from(sorted(_KEYS))


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory):
    """One app and database with one node, port, portgroup and chassis."""
    from ironic.api import app as api_app

    directory = str(tmp_path_factory.mktemp("fuzz-ports"))
    with ifx.module_api_database(directory):
        client = ifx.ApiClient(api_app.setup_app(), version="latest")
        node = client.post("/v1/nodes", {"driver": "fake-hardware",
                                         "name": "fz"}).json
        ids = {"node": node["uuid"]}
        ids["portgroups"] = client.post("/v1/portgroups", {
            "node_uuid": node["uuid"], "name": "fzg"}).json["uuid"]
        ids["ports"] = client.post("/v1/ports", {
            "node_uuid": node["uuid"], "address": "52:54:00:00:00:01",
            "portgroup_uuid": ids["portgroups"], "pxe_enabled": True,
            "local_link_connection": {"switch_id": "0a:1b:2c:3d:4e:5f",
                                      "port_id": "1"}}).json["uuid"]
        ids["chassis"] = client.post("/v1/chassis", {}).json["uuid"]
        for resource, address in (("ports", "52:54:00:00:00:02"),
                                  ("portgroups", "52:54:00:00:00:03")):
            other = client.post(f"/v1/{resource}", {
                "node_uuid": node["uuid"], "address": address,
                "name": "fz-other"})
            assert other.status_int == 201, other.body
        yield client, ids


def _sane(resp) -> None:
    assert resp.status_int < 500, (resp.status, resp.body)
    if resp.status_int >= 400:
        ifx.error_message(resp)


def _snapshot(client) -> str:
    docs = [client.get(f"/v1/{r}/detail").json for r in sorted(_KEYS)]
    return json.dumps(docs, sort_keys=True)


def _bodies(resource: str):
    keys = _KEYS[resource]
    return st.one_of(values, st.dictionaries(st.sampled_from(keys), values,
                                             max_size=6))


@_SETTINGS
@given(data=st.data(), resource=resources, version=versions)
def test_create_never_5xx(fuzz, data, resource, version):
    client, ids = fuzz
    body = data.draw(_bodies(resource))
    if isinstance(body, dict) and resource != "chassis" and \
            data.draw(st.booleans()):
        body.setdefault("node_uuid", ids["node"])
    before = _snapshot(client)
    resp = client.post(f"/v1/{resource}", body, version=version or "")
    _sane(resp)
    if resp.status_int >= 400:
        assert _snapshot(client) == before
    else:
        assert client.delete(f"/v1/{resource}/{resp.json['uuid']}"
                             ).status_int == 204


@_SETTINGS
@given(data=st.data(), resource=resources, version=versions)
def test_patch_never_5xx_and_failure_changes_nothing(fuzz, data, resource,
                                                     version):
    client, ids = fuzz
    paths = ["/" + k for k in _KEYS[resource]] + [
        "/extra/a", "/local_link_connection/port_id", "/properties/x",
        "/", "/extra/~1"]
    op = st.fixed_dictionaries(
        {"op": st.sampled_from(["add", "replace", "remove", "move"]),
         "path": st.sampled_from(paths)},
        optional={"value": values})
    collision = st.fixed_dictionaries({
        "op": st.just("replace"), "path": st.sampled_from(["/address",
                                                            "/name"]),
        "value": st.sampled_from(TAKEN + ["52:54:00:00:00:03"])})
    patch = data.draw(st.one_of(values, st.lists(op | collision,
                                                 max_size=4)))
    before = _snapshot(client)
    resp = client.patch(f"/v1/{resource}/{ids[resource]}", patch,
                        version=version or "")
    _sane(resp)
    if resp.status_int >= 400:
        assert _snapshot(client) == before


@_SETTINGS
@given(resource=resources, version=versions, detail=st.booleans(),
       params=st.dictionaries(
           st.sampled_from(["limit", "marker", "sort_key", "sort_dir",
                            "fields", "detail", "node", "node_uuid",
                            "address", "portgroup", "shard",
                            "conductor_groups", "x"]),
           st.text(max_size=12) | st.sampled_from(
               ["uuid", "address,name", "desc", "1be26c0b-03f2-4d2e-ae87"
                "-c02d7f33c123", "fz", "fzg", "true", "0", "-1"]),
           max_size=4))
def test_list_never_5xx(fuzz, resource, version, detail, params):
    client, _ids = fuzz
    path = f"/v1/{resource}" + ("/detail" if detail else "")
    _sane(client.get(f"{path}?{urlencode(params)}", version=version or ""))


@_SETTINGS
@given(segment=st.text(max_size=20).filter(lambda s: "/" not in s),
       method=st.sampled_from(["GET", "DELETE", "PATCH", "POST"]))
def test_odd_paths_never_5xx(fuzz, segment, method):
    client, _ids = fuzz
    seg = quote(segment, safe="")
    for tpl in ("/v1/ports/{}", "/v1/portgroups/{}", "/v1/chassis/{}",
                "/v1/portgroups/{}/ports", "/v1/chassis/{}/nodes",
                "/v1/nodes/{}/ports", "/v1/nodes/fz/portgroups/{}"):
        _sane(client.request(method, tpl.format(seg)))
