"""/v1/inspection_rules (API 1.96): CRUD, collections, masking of
sensitive rules, bad input and version gating."""

from __future__ import annotations

import re

import pytest

from ironic.tests import fixtures as ifx

V = "1.96"
URL = "/v1/inspection_rules"
ACTION = {"op": "set-attribute", "args": {
    "path": "/properties/arch", "value": "{inventory[cpu][architecture]}"}}
CONDITION = {"op": "!eq", "args": {"values": ["{inventory[cpu][count]}",
                                              "4"]}}
MISSING = "11111111-2222-3333-4444-555555555555"


@pytest.fixture
def api(api_newest):
    api_newest.version = V
    return api_newest


def _create(api, **body):
    body.setdefault("actions", [ACTION])
    resp = api.post(URL, body)
    assert resp.status_int == 201, resp.body
    return resp


def _error(resp, status):
    assert resp.status_int == status, resp.body
    return ifx.error_message(resp)


def test_create_shows_the_whole_rule(api):
    resp = _create(api, conditions=[CONDITION], description="d",
                   priority=5)
    rule = resp.json
    assert resp.location == f"http://localhost{URL}/{rule['uuid']}"
    assert list(rule) == ["uuid", "created_at", "updated_at", "description",
                          "priority", "sensitive", "phase", "conditions",
                          "actions", "links"]
    assert rule["conditions"] == [CONDITION] and rule["actions"] == [ACTION]
    assert (rule["priority"], rule["phase"], rule["sensitive"]) == \
        (5, "main", False)
    assert rule["updated_at"] is None and rule["created_at"]
    assert rule["links"][0]["href"].endswith(f"{URL}/{rule['uuid']}")
    assert api.get(f"{URL}/{rule['uuid']}").json == rule


def test_steps_show_op_args_and_loops_only(api):
    rule = _create(api, conditions=[
        {"op": "eq", "args": [[1, 1]], "multiple": "all", "note": "x"},
        {"op": "is-true", "args": {"value": "{item}"}, "loop": ["yes"]}],
        actions=[{"op": "log", "args": {"msg": "{item}"}, "loop": [1, 2],
                  "extra": 1}]).json
    assert rule["conditions"] == [
        {"op": "eq", "args": [[1, 1]]},
        {"op": "is-true", "args": {"value": "{item}"}, "loop": ["yes"],
         "multiple": "any"}]
    assert rule["actions"] == [{"op": "log", "args": {"msg": "{item}"},
                                "loop": [1, 2]}]


def test_strings_from_the_cli_are_understood(api):
    # ``inspection rule create --priority 5 --sensitive true`` sends these.
    rule = _create(api, priority="5", sensitive="true",
                   conditions=None).json
    assert rule["priority"] == 5 and rule["sensitive"] is True
    uuid = _create(api, conditions=None).json["uuid"]
    assert api.get(f"{URL}/{uuid}").json["conditions"] == []


def test_given_uuid_and_conflict(api):
    rule = _create(api, uuid=MISSING.upper()).json
    assert rule["uuid"] == MISSING
    msg = _error(api.post(URL, {"uuid": MISSING, "actions": [ACTION]}), 409)
    assert msg == f"A rule with UUID {MISSING} already exists."


def test_sensitive_rules_hide_conditions_and_actions(api):
    uuid = _create(api, sensitive=True, conditions=[CONDITION]).json["uuid"]
    shown = [api.get(f"{URL}/{uuid}").json,
             api.get(f"{URL}?detail=true").json["inspection_rules"][0],
             api.get(f"{URL}?fields=uuid,conditions,actions"
                     ).json["inspection_rules"][0]]
    for doc in shown:
        assert doc["conditions"] is None and doc["actions"] is None
    # Still usable: patches apply to the stored (hidden) content.
    resp = api.patch(f"{URL}/{uuid}", [{"op": "replace",
                                        "path": "/actions/0/args/path",
                                        "value": "/extra/arch"}])
    assert resp.status_int == 200 and resp.json["actions"] is None
    msg = _error(api.patch(f"{URL}/{uuid}", [
        {"op": "replace", "path": "/sensitive", "value": False}]), 400)
    assert "cannot have the sensitive flag unset" in msg
    _error(api.patch(f"{URL}/{uuid}", [
        {"op": "remove", "path": "/sensitive"}]), 400)


def test_list_defaults_detail_fields_and_phase(api):
    uuid = _create(api, description="x", priority=3).json["uuid"]
    item = api.get(URL).json["inspection_rules"][0]
    assert list(item) == ["uuid", "description", "priority", "phase",
                          "links"]
    assert item["uuid"] == uuid
    detail = api.get(f"{URL}?detail=true").json["inspection_rules"][0]
    assert detail == api.get(f"{URL}/{uuid}").json
    fields = api.get(f"{URL}?fields=priority").json["inspection_rules"][0]
    assert list(fields) == ["priority", "links"]
    one = api.get(f"{URL}/{uuid}?fields=uuid,sensitive").json
    assert list(one) == ["uuid", "sensitive", "links"]
    assert api.get(f"{URL}?phase=main").json["inspection_rules"]
    assert api.get(f"{URL}?phase=other").json == {"inspection_rules": []}


def test_paging_and_sorting(api):
    uuids = [_create(api, priority=p).json["uuid"] for p in (2, 0, 1)]
    page = api.get(f"{URL}?limit=2&sort_key=priority&phase=main").json
    assert [r["priority"] for r in page["inspection_rules"]] == [0, 1]
    assert page["next"].startswith(f"http://localhost{URL}?")
    assert "phase=main" in page["next"] and f"marker={uuids[2]}" in \
        page["next"]
    rest = api.get(page["next"].replace("http://localhost", "")).json
    assert [r["priority"] for r in rest["inspection_rules"]] == [2]
    assert "next" not in rest
    desc = api.get(f"{URL}?sort_key=priority&sort_dir=desc").json
    assert [r["uuid"] for r in desc["inspection_rules"]] == [
        uuids[0], uuids[2], uuids[1]]


def test_patch(api):
    uuid = _create(api).json["uuid"]
    resp = api.patch(f"{URL}/{uuid}", [
        {"op": "replace", "path": "/priority", "value": 10},
        {"op": "add", "path": "/description", "value": "new"},
        {"op": "add", "path": "/conditions/-", "value": CONDITION}])
    assert resp.status_int == 200, resp.body
    rule = resp.json
    assert (rule["priority"], rule["description"]) == (10, "new")
    assert rule["conditions"] == [CONDITION] and rule["updated_at"]
    assert api.get(f"{URL}/{uuid}").json == rule


@pytest.mark.parametrize("patch, status, match", [
    ([{"op": "replace", "path": "/uuid", "value": MISSING}], 400,
     "Cannot overwrite the UUID"),
    ([{"op": "replace", "path": "/uuid", "value": "x"}], 400,
     "^Expected UUID for uuid: x$"),
    ([{"op": "replace", "path": "/bogus", "value": 1}], 400,
     "^Couldn't apply patch .*can't replace a non-existent object 'bogus'"),
    ([{"op": "add", "path": "/bogus", "value": 1}], 400,
     "^Adding a new attribute \\(/bogus\\) to the root of the resource "
     "is not allowed$"),
    ([{"op": "remove", "path": "/actions"}], 400,
     "^Schema error for patch: 'actions' is a required property$"),
    ([{"op": "replace", "path": "/actions", "value": []}], 400,
     "non-empty"),
    ([{"op": "replace", "path": "/priority", "value": 10000}], 400,
     "between 0 and 9999"),
    ([{"op": "replace", "path": "/phase", "value": "early"}], 400,
     "Invalid phase: early"),
    ([{"op": "add", "path": "/actions/0/args/colour", "value": 1}], 400,
     "unexpected argument"),
    ([{"op": "move", "path": "/phase", "from": "/description"}], 400,
     "^Schema error for patch: "),
    ([{"op": "replace", "path": "/description"}], 400, "'value'"),
    ({"op": "replace"}, 400,
     "^Schema error for patch: {'op': 'replace'} is not of type 'array'$"),
])
def test_bad_patches(api, patch, status, match):
    uuid = _create(api).json["uuid"]
    msg = _error(api.patch(f"{URL}/{uuid}", patch), status)
    assert re.search(match, msg), msg
    assert api.get(f"{URL}/{uuid}").json["updated_at"] is None


@pytest.mark.parametrize("body, match", [
    ({}, "'actions' is a required property"),
    ({"actions": []}, "non-empty"),
    ({"actions": [{"op": "nope", "args": {}}]}, "is not one of"),
    ({"actions": [{"op": "fail", "args": {}}]},
     "missing required argument\\(s\\): msg"),
    ({"actions": [{"op": "fail", "args": []}]},
     "missing required argument\\(s\\): msg"),
    ({"actions": [ACTION], "uuid": "bad"}, "^Expected UUID for uuid: bad$"),
    ({"actions": [ACTION], "scope": "x"}, "Additional properties"),
    ({"actions": [ACTION], "priority": -1}, "minimum of 0"),
    ({"actions": [ACTION], "sensitive": "maybe"}, "sensitive"),
    ({"actions": [ACTION], "priority": "high"}, "not of type"),
    ({"actions": [ACTION], "priority": "--5"}, "not of type"),
    ({"actions": [ACTION], "conditions": [{"op": "eq", "args": {}}]},
     "missing required argument"),
    ({"actions": [ACTION], "conditions": {}}, "not of type 'array'"),
    ([ACTION], "^Schema error: \\[.*\\] is not of type 'object'$"),
])
def test_bad_creates(api, body, match):
    msg = _error(api.post(URL, body), 400)
    assert re.search(match, msg), msg
    assert api.get(URL).json == {"inspection_rules": []}


@pytest.mark.parametrize("query, status, match", [
    ("fields=bogus", 400, "bogus"),
    ("sort_key=actions", 400, "invalid field for sorting"),
    ("sort_key=conditions", 400, "invalid field for sorting"),
    ("sort_key=bogus", 400, "invalid field for sorting"),
    ("sort_dir=up", 400, "Schema error: 'up' is not one of ['asc', 'desc']"),
    ("limit=-1", 400, "positive"),
    ("limit=abc", 400, "integer"),
    ("detail=maybe", 400, "detail"),
    ("detail=true&fields=uuid", 400, "Can not specify"),
    ("bogus=1", 400, "Unexpected arguments"),
    # Ironic 39 looks any marker up: one that is no UUID names no rule.
    ("marker=nope", 404, "Rule nope could not be found."),
    ("sort_dir=DESC", 400,
     "Schema error: 'DESC' is not one of ['asc', 'desc']"),
    (f"marker={MISSING}", 404, f"Rule {MISSING} could not be found."),
])
def test_bad_list_queries(api, query, status, match):
    _create(api)
    assert match in _error(api.get(f"{URL}?{query}"), status)


def test_missing_and_malformed_identifiers(api):
    msg = f"Rule {MISSING} could not be found."
    assert _error(api.get(f"{URL}/{MISSING}"), 404) == msg
    assert _error(api.delete(f"{URL}/{MISSING}"), 404) == msg
    assert _error(api.patch(f"{URL}/{MISSING}", [
        {"op": "replace", "path": "/priority", "value": 1}]), 404) == msg
    for resp in (api.get(f"{URL}/not-a-uuid"),
                 api.delete(f"{URL}/not-a-uuid"),
                 api.patch(f"{URL}/not-a-uuid", [
                     {"op": "replace", "path": "/priority", "value": 1}])):
        assert "not-a-uuid" in _error(resp, 400)
    uuid = _create(api).json["uuid"]
    _error(api.get(f"{URL}/{uuid}?other=1"), 400)
    assert _error(api.get(f"{URL}/{uuid}/sub"), 400) == \
        'Field(s) "sub" are not valid'
    _error(api.put(f"{URL}/{uuid}", {"actions": [ACTION]}), 405)
    # Without an identifier: a client error (the exact status is the
    # routing's, shared by every resource).
    for resp in (api.delete(URL), api.patch(URL, [])):
        assert resp.status_int in (400, 405), resp.body
        ifx.error_message(resp)


def test_delete(api):
    uuid = _create(api).json["uuid"]
    resp = api.delete(f"{URL}/{uuid}")
    assert resp.status_int == 204 and resp.body == b""
    _error(api.get(f"{URL}/{uuid}"), 404)


def test_version_gating(api):
    old = "1.95"
    uuid = _create(api).json["uuid"]
    gone = "The API version does not allow inspection rules"
    assert _error(api.get(URL, version=old), 404) == gone
    assert _error(api.get(f"{URL}/{uuid}", version=old), 404) == gone
    assert _error(api.post(URL, {"actions": [ACTION]}, version=old),
                  405) == gone
    assert _error(api.patch(f"{URL}/{uuid}", [
        {"op": "replace", "path": "/priority", "value": 1}], version=old),
        405) == gone
    assert _error(api.delete(f"{URL}/{uuid}", version=old), 405) == gone
    assert api.get(URL, version="1.1").status_int == 404
    assert "inspection_rules" not in api.get("/v1", version=old).json
    links = api.get("/v1", version=V).json["inspection_rules"]
    assert links[0]["href"] == f"http://localhost{URL}/"


@pytest.mark.parametrize("step", [
    {"op": "eq", "args": ["node:memory_mb", 4096]},
    {"op": "eq", "args": ["a"]},
    # Values past the last parameter are dropped, as the reference does.
    {"op": "eq", "args": ["a", "b", "c"]},
])
def test_list_args_are_positional(api, step):
    """``args`` as a list is documented as Python's *args: matched to the
    parameters in order, their values taken as given."""
    resp = api.post(URL, {"conditions": [step], "actions": [ACTION]})
    assert resp.status_int == 201, resp.body
    assert resp.json["conditions"] == [step]
    patched = api.patch(f"{URL}/{resp.json['uuid']}", [
        {"op": "replace", "path": "/conditions/0",
         "value": {"op": "gt", "args": ["node:cpus", 4]}}])
    assert patched.status_int == 200, patched.body


@pytest.mark.parametrize("version", ["1.95", V])
@pytest.mark.parametrize("verb", ["PUT", "POST", "HEAD"])
def test_405_on_an_item_says_what_is_allowed(api, verb, version):
    """Ironic 39 answers a method an item does not take with 405 and an
    ``Allow`` header, for inspection rules as for every resource (at any
    version: the route exists before the resource does)."""
    ident = _create(api).json["uuid"]
    for path in (f"{URL}/{ident}", f"{URL}/{MISSING}"):
        resp = api.request(verb, path, {"actions": [ACTION]},
                           version=version)
        assert resp.status_int == 405, resp.body
        # Ironic 39 also names POST (pecan lists the collection's
        # methods); every resource here names only what the item serves.
        assert set(resp.headers["Allow"].split(", ")) == {
            "DELETE", "GET", "PATCH"}
