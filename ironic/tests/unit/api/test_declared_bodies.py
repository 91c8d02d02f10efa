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

_SHAPE = 'Body must be {"traits": [...]}'
_LENGTH = "Invalid trait {}: must be a string of 1 to 255 characters."
_VOCABULARY = ("Invalid trait {}: a trait must be a standard trait or start "
               "with CUSTOM_ followed by upper case letters, digits and "
               "underscores.")
_LIMIT = "A node can have at most 50 traits."


@pytest.fixture
def node(api) -> str:
    resp = api.post("/v1/nodes", {"driver": "fake-hardware"})
    assert resp.status_int == 201, resp.body
    return resp.json["uuid"]


@pytest.mark.parametrize("body, message", [
    ({}, _SHAPE), ({"x": 1}, _SHAPE), ({"traits": [], "x": 1}, _SHAPE),
    ({"traits": "x"}, _SHAPE), ({"traits": None}, _SHAPE),
    ({"traits": {}}, _SHAPE), ({"trait": "CUSTOM_X"}, _SHAPE),
    ({"traits": [5]}, _LENGTH.format(5)),
    ({"traits": [None]}, _LENGTH.format(None)),
    ({"traits": [True]}, _LENGTH.format(True)),
    ({"traits": [[]]}, _LENGTH.format([])),
    ({"traits": [""]}, _LENGTH.format("''")),
    ({"traits": ["A" * 256]}, _LENGTH.format(repr("A" * 256))),
    ({"traits": ["lower"]}, _VOCABULARY.format("'lower'")),
    ({"traits": ["CUSTOM_lower"]}, _VOCABULARY.format("'CUSTOM_lower'")),
    # The items in their order: a bad name before a bad kind is named,
    # though the schema alone would name the kind.
    ({"traits": ["lower", 5]}, _VOCABULARY.format("'lower'")),
    ({"traits": [5, "lower"]}, _LENGTH.format(5)),
    ({"traits": ["CUSTOM_A", "bad", 7]}, _VOCABULARY.format("'bad'")),
    ({"traits": [f"CUSTOM_{i}" for i in range(51)]}, _LIMIT),
    ({"traits": [f"CUSTOM_{i}" for i in range(51)] + [3]},
     _LENGTH.format(3)),
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
    ("lower", _VOCABULARY.format("'lower'")),
    ("CUSTOM_", _VOCABULARY.format("'CUSTOM_'")),
    ("A" * 256, _LENGTH.format(repr("A" * 256))),
])
def test_one_trait_keeps_its_messages(api, node, trait, message):
    resp = api.put(f"/v1/nodes/{node}/traits/{trait}")
    assert resp.status_int == 400, resp.body
    assert error_message(resp) == message


@pytest.mark.parametrize("body, message", [
    ({"x": 1}, "The maintenance body accepts only 'reason'."),
    ({"reason": 5, "x": 1}, "The maintenance body accepts only 'reason'."),
    ({"reason": 5}, "The maintenance reason must be a string."),
    ({"reason": []}, "The maintenance reason must be a string."),
    ({"reason": True}, "The maintenance reason must be a string."),
    ([], "Request body must be an object."),
])
def test_maintenance_bodies_keep_their_messages(api, node, body, message):
    resp = api.put(f"/v1/nodes/{node}/maintenance?reason=q", body)
    assert resp.status_int == 400, resp.body
    assert error_message(resp) == message
    assert api.get(f"/v1/nodes/{node}").json["maintenance"] is False


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


def test_undeclared_messages_keep_the_validators_words():
    body = Body({"names": Field(type=ARRAY, nullable=False,
                                items=Field(nullable=False, max_length=2)),
                 "size": Field(type="integer")}, required=("names",))
    assert _refusal(body, {"size": 1}) == \
        "Invalid thing: 'names' is a required property"
    assert _refusal(body, {"names": [], "size": "x"}).startswith(
        "Invalid thing field 'size': 'x' is not of type")
    assert _refusal(body, {"names": ["a", "abc"]}).startswith(
        "Invalid thing field 'names/1': 'abc' is too long")
    # The same words as the schema alone gives.
    for doc in ({"size": 1}, {"names": [], "size": "x"},
                {"names": ["a", "abc"]}):
        assert _refusal(body, doc) == _refusal(body.schema, doc)


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
    assert _refusal(body, {"names": ["a", "no", 3]}) == "not no"
    assert _refusal(body, {"names": ["a", 3, "no"]}) == "bad 3"


def test_items_are_part_of_the_schema():
    field = Field(type=ARRAY, items=node_sub.TRAIT)
    assert field.body_schema()["items"] == node_sub.TRAIT.body_schema()
    assert field.value_schema()["items"] == node_sub.TRAIT.value_schema()
    assert node_sub.TRAITS.schema["properties"]["traits"]["items"] == {
        "type": "string", "minLength": 1, "maxLength": 255}


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
