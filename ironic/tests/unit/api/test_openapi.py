"""The OpenAPI document generated from the routes (ironic.api.openapi)."""

import importlib
import inspect
import json
import pkgutil

import pytest
from openapi_spec_validator import validate

from ironic.api import app as api_app
from ironic.api import openapi, openapi_answers
from ironic.api.controllers import v1 as v1_pkg
from ironic.api.controllers.v1 import index, versions
from ironic.objects.base import Body
from ironic.tests import fixtures as ifx

NEWEST = versions.MAX_VERSION


def _doc(ver: int) -> dict:
    return json.loads(openapi.encoded(index.V1Controller, ver))


def _operations(doc: dict) -> set[tuple[str, str]]:
    return {(verb, path) for path, item in doc["paths"].items()
            for verb in item}


def _declared_handlers() -> set:
    """Every handler ``api_method`` wraps in a /v1 controller module."""
    found = set()
    for info in pkgutil.iter_modules(v1_pkg.__path__):
        module = importlib.import_module(f"{v1_pkg.__name__}.{info.name}")
        for _name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            found.update(f for f in vars(cls).values()
                         if callable(f) and hasattr(f, "api_since"))
    return found


# Versions where resources (and their typed documents) appear.
@pytest.mark.parametrize("ver", sorted({versions.MIN_VERSION, 22, 32, 37,
                                        52, 55, 91, 92, 96, 112, NEWEST}))
def test_the_document_is_valid_openapi(ver):
    doc = _doc(ver)
    validate(doc)
    assert doc["openapi"] == "3.1.0"
    assert doc["info"]["version"] == f"1.{ver}"


def test_every_routed_handler_is_documented_at_the_newest_version():
    routed = [r for r in openapi.routes(index.V1Controller())
              if r.routed_at(NEWEST)]
    missing = _declared_handlers() - {r.handler for r in routed}
    assert not missing, sorted(f.__qualname__ for f in missing)
    assert len(_operations(_doc(NEWEST))) == len(routed) > 150


def test_an_operation_appears_with_its_version():
    # Every operation added after the first version, not a chosen few.
    later = [r for r in openapi.routes(index.V1Controller())
             if r.since > versions.MIN_VERSION]
    assert later
    for r in later:
        key = (r.http_method, r.path)
        assert key not in _operations(_doc(r.since - 1)), key
        assert key in _operations(_doc(r.since)), key


def test_sub_resource_versions_come_from_the_lookup():
    # The handlers of a node's port groups answer from 1.23 (the
    # collection); under a node they exist from 1.24 (_sub_since).
    assert ("get", "/v1/portgroups") in _operations(_doc(23))
    assert ("get", "/v1/nodes/{node_ident}/portgroups") \
        not in _operations(_doc(23))
    assert ("get", "/v1/nodes/{node_ident}/portgroups") \
        in _operations(_doc(24))


def test_operations_carry_parameters_bodies_and_statuses():
    paths = _doc(NEWEST)["paths"]
    listing = paths["/v1/nodes"]["get"]
    query = {p["name"] for p in listing["parameters"] if "name" in p}
    assert {"fields", "limit", "marker", "sort_key", "sort_dir",
            "detail"} <= query
    item = paths["/v1/nodes/{node_ident}/ports/{port_ident}"]["patch"]
    assert {p["name"] for p in item["parameters"] if "name" in p} == \
        {"node_ident", "port_ident"}
    body = item["requestBody"]["content"]["application/json"]["schema"]
    assert body["type"] == "array"
    assert "201" in paths["/v1/nodes"]["post"]["responses"]
    assert "204" in paths["/v1/nodes/{node_ident}"]["delete"]["responses"]
    error = paths["/v1/nodes"]["post"]["responses"]["4XX"]
    assert error == {"$ref": "#/components/responses/Error"}
    # Query parameters newer than the version are left out.
    old = _doc(1)["paths"]["/v1/nodes"]["get"]["parameters"]
    assert "fields" not in {p.get("name") for p in old}


def test_public_operations_need_no_credentials():
    paths = _doc(NEWEST)["paths"]
    assert paths["/v1/lookup"]["get"]["security"] == []
    assert paths["/v1/openapi.json"]["get"]["security"] == []
    assert "security" not in paths["/v1/nodes"]["get"]


def test_the_document_is_made_once_per_version():
    assert openapi.encoded(index.V1Controller, NEWEST) is \
        openapi.encoded(index.V1Controller, NEWEST)


@pytest.fixture
def basic_api(database, config, tmp_path):
    users = tmp_path / "htpasswd"
    users.write_text("")
    config(auth_strategy="http_basic", http_basic_auth_user_file=str(users))
    ifx.register_test_conductor()
    return ifx.ApiClient(api_app.setup_app())


@pytest.mark.parametrize("ver", ["1.1", "1.90", "1.91", "latest"])
def test_served_unauthenticated_for_the_negotiated_version(basic_api, ver):
    resp = basic_api.get("/v1/openapi.json", version=ver)
    assert resp.status_int == 200
    assert resp.content_type == "application/json"
    chosen = resp.headers["X-OpenStack-Ironic-API-Version"]
    assert resp.json["info"]["version"] == chosen
    assert basic_api.get("/v1/nodes", version=ver).status_int == 401


def test_other_methods_are_not_allowed(basic_api):
    resp = basic_api.post("/v1/openapi.json", {})
    assert resp.status_int == 405


def test_the_tables_name_routed_handlers_and_controllers():
    # A handler or controller renamed or removed must not leave the
    # document silently without its body schema or query parameters.
    routed = openapi.routes(index.V1Controller())
    handlers = {r.handler for r in routed}
    controllers = {r.controller for r in routed}
    assert set(openapi._BODIES) <= handlers
    assert all(any(issubclass(c, listed) for c in controllers)
               for listed in openapi._LIST_QUERY)


def _untyped(ver: int) -> list[tuple[str, str, object]]:
    """(verb, path, handler) of the operations whose success answer has a
    body but an open schema (any JSON)."""
    doc = _doc(ver)
    handlers = {(r.http_method, r.path): r.handler
                for r in openapi.routes(index.V1Controller())
                if r.routed_at(ver)}
    out = []
    for path, item in doc["paths"].items():
        for verb, op in item.items():
            for status, answer in op["responses"].items():
                if status[0] in "45" or "content" not in answer:
                    continue
                schema = answer["content"]["application/json"]["schema"]
                if schema in ({}, {"type": "object"}):
                    out.append((verb, path, handlers[verb, path]))
    return out


@pytest.mark.parametrize("ver", sorted({versions.MIN_VERSION, 22, 30, 40,
                                        74, 78, 84, 86, 92, 114, NEWEST}))
def test_every_answer_with_a_body_is_typed(ver):
    # Only vendor passthru calls answer free-form (whatever the driver's
    # method returns): openapi_answers.FREE_FORM says so, nothing else may.
    untyped = _untyped(ver)
    assert [(verb, path) for verb, path, handler in untyped
            if handler not in openapi_answers.FREE_FORM] == []
    assert len(untyped) == 20  # 6 verbs, 2 paths each, nodes and drivers
                               # (the methods list of each is typed)


def _open_members(schema, where: str = "") -> list[str]:
    """Members of a typed document with no schema of their own (a name
    the handler shows that no typed field declares)."""
    found = []
    if isinstance(schema, dict):
        for name, sub in schema.get("properties", {}).items():
            if sub == {}:
                found.append(f"{where}/{name}")
            found += _open_members(sub, f"{where}/{name}")
        for key in ("items", "additionalProperties"):
            found += _open_members(schema.get(key), f"{where}[]")
        for sub in schema.get("anyOf", ()):
            found += _open_members(sub, where)
    return found


@pytest.mark.parametrize("ver", [versions.MIN_VERSION, 78, 114, NEWEST])
def test_typed_answers_declare_every_member(ver):
    doc = _doc(ver)
    for path, item in doc["paths"].items():
        for verb, op in item.items():
            for status, answer in op["responses"].items():
                if status[0] in "45" or "content" not in answer:
                    continue
                schema = answer["content"]["application/json"]["schema"]
                assert _open_members(schema) == [], (verb, path)


def test_the_free_form_answers_are_routed():
    handlers = {r.handler for r in openapi.routes(index.V1Controller())}
    assert openapi_answers.FREE_FORM <= handlers
    assert set(openapi_answers.ANSWERS) <= handlers


def _request_schema(doc: dict, handler) -> list[dict]:
    ops = [(r.path, r.http_method) for r in openapi.routes(
        index.V1Controller()) if r.handler is handler]
    return [doc["paths"][path][verb]["requestBody"]["content"][
        "application/json"]["schema"] for path, verb in ops
        if path in doc["paths"] and verb in doc["paths"][path]]


def test_action_bodies_are_the_schemas_the_handlers_check():
    # Declared once (a Body): the document gives at the newest version
    # exactly the schema the handler validates with.
    doc = _doc(NEWEST)
    declared = {h: b for h, b in openapi._BODIES.items()
                if isinstance(b, Body)}
    assert len(declared) >= 12
    for handler, body in declared.items():
        shown = _request_schema(doc, handler)
        assert shown and all(s == body.schema for s in shown), handler


@pytest.mark.parametrize("ver,path,verb,member", [
    (14, "/v1/nodes/{node_ident}/states/provision", "put", "clean_steps"),
    (68, "/v1/nodes/{node_ident}/states/provision", "put", "deploy_steps"),
    (26, "/v1/nodes/{node_ident}/states/power", "put", "timeout"),
    (35, "/v1/heartbeat/{node_ident}", "post", "agent_version"),
    (66, "/v1/nodes/{node_ident}/vifs", "post", "port_uuid"),
])
def test_action_body_members_appear_with_their_version(ver, path, verb,
                                                        member):
    def members(v):
        op = _doc(v)["paths"][path][verb]
        return op["requestBody"]["content"]["application/json"][
            "schema"]["properties"]

    assert member not in members(ver)
    assert member in members(ver + 1)


def test_a_body_reports_a_missing_member_before_an_unknown_one(api_newest):
    # The declared schema keeps the order the reference checks in.
    resp = api_newest.post("/v1/nodes", {"what": 1})
    assert resp.status_int == 400
    assert "Schema error for node: 'driver' is a required property" in \
        resp.json["error_message"]


def test_an_action_reports_an_unexpected_argument_first(api_newest):
    # Action bodies are call arguments to the reference.
    node = api_newest.post("/v1/nodes", {"driver": "fake-hardware"}).json
    resp = api_newest.put(f"/v1/nodes/{node['uuid']}/states/power",
                          {"timeout": 5, "what": 1})
    assert resp.status_int == 400
    assert "Unexpected arguments: what" in resp.json["error_message"]


def test_the_lookup_documents_its_query():
    op = _doc(NEWEST)["paths"]["/v1/lookup"]["get"]
    assert {p.get("name") for p in op["parameters"]} >= {"addresses",
                                                         "node_uuid"}
