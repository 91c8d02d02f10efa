"""Bodies declared as typed fields with the API's own messages: the traits
and maintenance bodies keep, word for word, what the service answered when
they were checked by hand; answers rendered from a declaration show what
the OpenAPI document says they show."""

from __future__ import annotations

import json

import pytest

from ironic.api import openapi
from ironic.api.controllers.v1 import answers, driver, index, node_sub, versions
from ironic.api.controllers.v1 import utils as api_utils
from ironic.common import exception
from ironic.objects.base import ARRAY, Body, Field
from ironic.tests.fixtures import error_message

_NO_TRAITS = node_sub._NO_TRAITS
_ERR = "Schema error for body: {}"
_EXTRA = _ERR.format("Additional properties are not allowed ('{}' was "
                     "unexpected)")
_VOCABULARY = ("{0} is not valid under any of the given schemas. Possible "
               "root cause: {0} does not match '^CUSTOM_[A-Z0-9_]+$'")
_LIMIT = "A node can have at most 50 traits."


@pytest.fixture
def node(api) -> str:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware"})
    assert resp.status_int == 201, resp.body
    return resp.json["uuid"]


@pytest.mark.parametrize("body, message", [
    ({}, _NO_TRAITS), ({"x": 1}, _EXTRA.format("x")),
    ({"traits": [], "x": 1}, _EXTRA.format("x")),
    ({"traits": "x"}, _ERR.format("'x' is not of type 'array'")),
    ({"traits": None}, _ERR.format("None is not of type 'array'")),
    ({"traits": {}}, _ERR.format("{} is not of type 'array'")),
    ({"trait": "CUSTOM_X"}, _EXTRA.format("trait")),
    ({"traits": [5]}, _ERR.format("5 is not of type 'string'")),
    ({"traits": [None]}, _ERR.format("None is not of type 'string'")),
    ({"traits": [True]}, _ERR.format("True is not of type 'string'")),
    ({"traits": [[]]}, _ERR.format("[] is not of type 'string'")),
    ({"traits": [""]}, _ERR.format("'' should be non-empty")),
    ({"traits": ["A" * 256]}, _ERR.format(f"{'A' * 256!r} is too long")),
    ({"traits": ["lower"]}, _ERR.format(_VOCABULARY.format("'lower'"))),
    ({"traits": ["CUSTOM_lower"]},
     _ERR.format(_VOCABULARY.format("'CUSTOM_lower'"))),
    # Of several bad items the reference names the last.
    ({"traits": ["lower", 5]}, _ERR.format("5 is not of type 'string'")),
    ({"traits": [5, "lower"]}, _ERR.format(_VOCABULARY.format("'lower'"))),
    ({"traits": ["CUSTOM_A", "bad", 7]},
     _ERR.format("7 is not of type 'string'")),
    ({"traits": [f"CUSTOM_{i}" for i in range(51)]}, _LIMIT),
    ({"traits": [f"CUSTOM_{i}" for i in range(51)] + [3]},
     _ERR.format("3 is not of type 'string'")),
])
def test_traits_bodies_keep_their_messages(api, node, body, message):
    resp = api.put(f"/v1/nodes/{node}/traits", body)
    assert resp.status_int == 400, resp.body
    assert error_message(resp) == message
    assert api.get(f"/v1/nodes/{node}/traits").json == {"traits": []}


def test_traits_duplicates_count_once(api, node):
    url = f"/v1/nodes/{node}/traits"
    resp = api.put(url, {"traits": ["CUSTOM_A"] * 60 + ["HW_CPU_X86_AVX2"]})
    assert resp.status_int == 204, resp.body
    assert sorted(api.get(url).json["traits"]) == ["CUSTOM_A",
                                                   "HW_CPU_X86_AVX2"]


@pytest.mark.parametrize("trait, message", [
    ("lower", "Schema error for trait: " + _VOCABULARY.format("'lower'")),
    ("CUSTOM_", "Schema error for trait: " + _VOCABULARY.format(
        "'CUSTOM_'")),
    ("A" * 256, f"Schema error for trait: {'A' * 256!r} is too long"),
])
def test_one_trait_keeps_its_messages(api, node, trait, message):
    resp = api.put(f"/v1/nodes/{node}/traits/{trait}")
    assert resp.status_int == 400, resp.body
    assert error_message(resp) == message


@pytest.mark.parametrize("body, message", [
    ({"x": 1}, "Unexpected arguments: x"),
    ({"reason": 5, "x": 1}, "Unexpected arguments: x"),
    ({"reason": 5}, "Expected string for reason: 5"),
    ({"reason": []}, "Expected string for reason: []"),
    ({"reason": True}, "Expected string for reason: True"),
])
def test_maintenance_bodies_keep_their_messages(api, node, body, message):
    resp = api.put(f"/v1/nodes/{node}/maintenance", body)
    assert resp.status_int == 400, resp.body
    assert error_message(resp) == message
    assert api.get(f"/v1/nodes/{node}").json["maintenance"] is False


def test_maintenance_body_that_is_no_object_gives_no_reason(api, node):
    # The reference reads such a body as no arguments at all.
    resp = api.put(f"/v1/nodes/{node}/maintenance?reason=q", [])
    assert resp.status_int == 202, resp.body
    assert api.get(f"/v1/nodes/{node}").json["maintenance_reason"] == "q"


@pytest.mark.parametrize("body, query, reason", [
    (None, "", None), (None, "?reason=q", "q"), ({}, "?reason=q", "q"),
    ({"reason": "fan"}, "?reason=q", "fan"),
    # A null reason in the body wins over the query's.
    ({"reason": None}, "?reason=q", None),
])
def test_maintenance_reason_from_body_or_query(api, node, body, query,
                                               reason):
    resp = api.put(f"/v1/nodes/{node}/maintenance{query}", body)
    assert resp.status_int == 202, resp.body
    doc = api.get(f"/v1/nodes/{node}").json
    assert doc["maintenance"] is True
    assert doc["maintenance_reason"] == reason


# --- the declaration's pieces ----------------------------------------------

def _refusal(schema, doc) -> str:
    with pytest.raises(exception.InvalidParameterValue) as e:
        api_utils.validate(schema, doc, "thing")
    return str(e.value)


def test_undeclared_messages_are_the_references_schema_errors():
    body = Body({"names": Field(type=ARRAY, nullable=False,
                                items=Field(nullable=False, max_length=2)),
                 "size": Field(type="integer")}, required=("names",))
    assert _refusal(body, {"size": 1}) == \
        "Schema error for thing: 'names' is a required property"
    assert _refusal(body, {"names": [], "size": "x"}).startswith(
        "Schema error for thing: 'x' is not of type")
    assert _refusal(body, {"names": ["a", "abc"]}).startswith(
        "Schema error for thing: 'abc' is too long")
    # The same words as the schema alone gives.
    for doc in ({"size": 1}, {"names": [], "size": "x"},
                {"names": ["a", "abc"]}):
        assert _refusal(body, doc) == _refusal(body.schema, doc)


def test_a_refusal_without_a_name():
    assert _refusal_as({"type": "object"}, [], None) == \
        "Schema error: [] is not of type 'object'"


def test_no_alternative_fitting_names_a_root_cause():
    schema = {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}
    assert _refusal(schema, {}) == (
        "Schema error for thing: {} is not valid under any of the given "
        "schemas. Possible root cause: 'a' is a required property")


def _refusal_as(schema, doc, what) -> str:
    with pytest.raises(exception.InvalidParameterValue) as e:
        api_utils.validate(schema, doc, what)
    return str(e.value)


def test_checks_run_on_values_the_schema_took_in_order():
    seen = []

    def item_check(value):
        seen.append(value)
        if value == "no":
            raise exception.InvalidParameterValue(err=f"not {value}")

    body = Body({"names": Field(
        type=ARRAY, nullable=False,
        items=Field(nullable=False, check=item_check, invalid="bad {value}"),
        check=lambda names: seen.append(tuple(names)))})
    api_utils.validate(body, {"names": ["a", "b"]}, "thing")
    assert seen == ["a", "b", ("a", "b")]
    assert _refusal(body, {"names": ["a", "no", "b"]}) == "not no"
    # A value the schema refuses is refused before any check runs.
    seen.clear()
    assert _refusal(body, {"names": ["no", 3]}).startswith(
        "Schema error for thing: 3 is not of type")
    assert seen == []


def test_items_are_part_of_the_schema():
    field = Field(type=ARRAY, items=node_sub.TRAIT)
    assert field.body_schema()["items"] == node_sub.TRAIT.body_schema()
    assert field.value_schema()["items"] == node_sub.TRAIT.value_schema()
    items = node_sub.TRAITS.schema["properties"]["traits"]["items"]
    assert {k: items[k] for k in ("type", "minLength", "maxLength")} == {
        "type": "string", "minLength": 1, "maxLength": 255}
    assert [list(alt) for alt in items["anyOf"]] == [["pattern"], ["enum"]]


def _put(ver: int, path: str) -> dict:
    doc = json.loads(openapi.encoded(index.V1Controller, ver))
    return doc["paths"][path]["put"]


def test_the_document_gives_the_declared_bodies():
    newest = versions.MAX_VERSION
    traits = _put(newest, "/v1/nodes/{node_ident}/traits")["requestBody"]
    assert traits["required"] is True
    assert traits["content"]["application/json"]["schema"] == \
        node_sub.TRAITS.schema
    one = _put(newest, "/v1/nodes/{node_ident}/traits/{trait}")
    assert one["requestBody"]["required"] is False
    assert {"name": "trait", "in": "path", "required": True,
            "schema": node_sub.TRAIT.body_schema()} in one["parameters"]
    maintenance = _put(1, "/v1/nodes/{node_ident}/maintenance")
    assert maintenance["requestBody"]["required"] is False
    assert maintenance["requestBody"]["content"]["application/json"][
        "schema"] == node_sub.MAINTENANCE.schema
    assert any(p.get("name") == "reason" and p["in"] == "query"
               for p in maintenance["parameters"] if "in" in p)


# --- answers rendered from their declaration ---------------------------------

@pytest.mark.parametrize("ver", [1, 11, 12, 74, 75, versions.MAX_VERSION])
def test_states_show_what_the_document_says(api_newest, ver):
    resp = api_newest.post("/v1/nodes", {"driver": "fake-hardware"})
    answer = api_newest.get(f"/v1/nodes/{resp.json['uuid']}/states",
                            version=f"1.{ver}").json
    assert list(answer) == list(
        answers.NODE_STATES.schema(ver)["properties"])


def test_drivers_take_their_fields_from_the_declaration():
    assert driver.SPEC.api_fields == answers.DRIVER.features()
    assert set(answers.DRIVER_BASE) <= set(answers.DRIVER.members)
    assert list(answers.DRIVER.names(29)) == [
        "name", "hosts", "links", "properties"]
