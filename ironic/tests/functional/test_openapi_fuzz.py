"""Schemathesis against the running service, from the service's own
OpenAPI document (``GET /v1/openapi.json`` at the newest version).

Every operation the document lists is sent generated requests, half of
them naming resources that exist (so that handlers get past the lookup of
the node, port or driver in the URL). Every answer must be no 5xx, carry a
status and a content type the document gives for that operation, and a
body matching the document's schema (errors: the API error body).

The run is bounded (``OPENAPI_FUZZ_EXAMPLES`` examples per operation, 15
unless told; about 90 s on a loaded 2-core machine) and deterministic;
``OPENAPI_FUZZ_VERSION=1.N`` fuzzes an older version's document.
"""

from __future__ import annotations

import collections
import json
import os
import urllib.request

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from ironic.tests.functional.conftest import run_service

_EXAMPLES = int(os.environ.get("OPENAPI_FUZZ_EXAMPLES", 15))
# The document (and so the version every request asks for).
_VERSION = os.environ.get("OPENAPI_FUZZ_VERSION", "latest")
_SETTINGS = settings(max_examples=_EXAMPLES, deadline=None,
                     derandomize=True, database=None,
                     phases=[Phase.explicit, Phase.generate],
                     suppress_health_check=list(HealthCheck))
_MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
_CHECKS = [not_a_server_error, status_code_conformance,
           content_type_conformance, response_schema_conformance]


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory):
    # A service of its own: the run creates and deletes what it likes.
    yield from run_service(tmp_path_factory, "openapi-fuzz")


def _call(endpoint: str, verb: str, path: str, body=None,
          version: str = "latest") -> dict:
    req = urllib.request.Request(
        endpoint + path, method=verb,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json",
                 "X-OpenStack-Ironic-API-Version": version})
    with urllib.request.urlopen(req, timeout=30) as resp:
        text = resp.read()
    return json.loads(text) if text else {}


def _existing(endpoint: str) -> dict[str, str]:
    """Path parameter values naming resources that exist, one of each."""
    def made(path: str, body: dict) -> str:
        return _call(endpoint, "POST", path, body)["uuid"]

    chassis = made("/v1/chassis", {})
    node = made("/v1/nodes", {"driver": "fake-hardware",
                              "name": "fuzz-node", "chassis_uuid": chassis})
    group = made("/v1/portgroups", {"node_uuid": node,
                                    "address": "52:54:00:00:00:0a"})
    step = {"interface": "bios", "step": "apply_configuration", "args": {}}
    return {
        "node_ident": node, "chassis_ident": chassis,
        "portgroup_ident": group,
        "port_ident": made("/v1/ports", {
            "node_uuid": node, "address": "52:54:00:00:00:0b",
            "portgroup_uuid": group}),
        "connector_ident": made("/v1/volume/connectors", {
            "node_uuid": node, "type": "iqn",
            "connector_id": "iqn.2026-11.org.example:fuzz"}),
        "target_ident": made("/v1/volume/targets", {
            "node_uuid": node, "volume_type": "iscsi", "boot_index": 0,
            "volume_id": "fuzz-volume"}),
        "deploy_template_ident": made("/v1/deploy_templates", {
            "name": "CUSTOM_FUZZ", "steps": [{**step, "priority": 10}]}),
        "runbook_ident": made("/v1/runbooks", {
            "name": "CUSTOM_FUZZ", "steps": [{**step, "order": 0}]}),
        "allocation_ident": made("/v1/allocations",
                                 {"resource_class": "fuzz"}),
        "inspection_rule_ident": made("/v1/inspection_rules", {
            "actions": [{"op": "set-attribute",
                         "args": ["/extra/fuzzed", "yes"]}]}),
        "driver_name": "fake-hardware", "trait": "CUSTOM_FUZZ",
    }


def _strategy(op, known: dict[str, str]):
    """Requests that fit the document and requests that do not, some of
    them naming resources that exist."""
    names = {p.name for p in op.path_parameters}
    pinned = {k: v for k, v in known.items() if k in names}
    options = [op.as_strategy(generation_mode=mode) for mode in _MODES]
    if pinned and op.method.upper() != "DELETE":
        options += [op.as_strategy(generation_mode=mode,
                                   path_parameters=pinned)
                    for mode in _MODES]
    return st.one_of(options)


def test_the_service_conforms_to_its_document(fuzzed):
    endpoint = fuzzed.endpoint
    doc = _call(endpoint, "GET", "/v1/openapi.json", version=_VERSION)
    known = _existing(endpoint)
    schema = schemathesis.openapi.from_dict(doc)
    statuses: collections.Counter = collections.Counter()
    server_errors: list[str] = []
    failures: list[str] = []

    for result in schema.get_all_operations():
        op = result.ok()

        @_SETTINGS
        @given(case=_strategy(op, known))
        def run(case):
            resp = case.call(base_url=endpoint, timeout=30)
            statuses[resp.status_code] += 1
            if resp.status_code >= 500:
                server_errors.append(
                    f"{resp.status_code} {case.method} {case.formatted_path}"
                    f" {case.query} {resp.text[:200]}")
            try:
                case.validate_response(resp, checks=_CHECKS)
            except (FailureGroup, Failure) as e:
                failures.append(f"{case.method} {case.formatted_path} "
                                f"{case.query}: {str(e)[:300]}")

        run()

    total = sum(statuses.values())
    print(f"\nschemathesis: {total} requests, answers by status: "
          f"{dict(sorted(statuses.items()))}, "
          f"{len(server_errors)} server errors, "
          f"{len(failures)} non-conforming answers")
    assert total > len(doc["paths"])
    assert not server_errors, "\n".join(server_errors[:30])
    assert not failures, "\n".join(failures[:30])
