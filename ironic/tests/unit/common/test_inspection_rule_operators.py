"""Inspection rule conditions: every operator, negation, loops, references
to the data and the masking of secrets."""

from __future__ import annotations

import types

import pytest

from ironic.inspection_rules import interpolation, masking, operators, plugin

INVENTORY = {
    "cpu": {"count": 4, "architecture": "x86_64", "flags": ["vmx", "aes"]},
    "memory": {"physical_mb": 8192},
    "interfaces": [{"name": "eth0", "ipv4_address": "192.0.2.10"},
                   {"name": "eth1", "ipv4_address": None}],
    "bmc_address": "192.0.2.200",
    "bmc_password": "s3cret",
}


def _scope(mask=True, plugin_data=None, **node):
    node = types.SimpleNamespace(uuid="node-1", properties={}, **node)
    task = types.SimpleNamespace(node=node)
    return plugin.Scope.build(task, INVENTORY, plugin_data or {}, mask)


def check(op, args, scope=None, **extra):
    return operators.check({"op": op, "args": args, **extra},
                           scope or _scope())


@pytest.mark.parametrize("op, values, expected", [
    ("eq", [1, 1, 1], True), ("eq", [1, 2], False), ("eq", [], True),
    ("eq", ["x"], True), ("lt", [1, 2, 3], True), ("lt", [1, 3, 2], False),
    ("gt", [3, 2, 1], True), ("gt", [2, 2], False),
    ("eq", ["{inventory[cpu][architecture]}", "x86_64"], True),
    # A reference renders to a string, as in the reference service.
    ("eq", ["{inventory[cpu][count]}", 4], False),
    ("eq", ["{inventory[cpu][count]}", "4"], True),
    # Orderings compare numbers, even rendered ones.
    ("gt", ["{inventory[memory][physical_mb]}", "512"], True),
    ("gt", ["{inventory[memory][physical_mb]}", 65536], False),
    ("lt", ["9", "10", 10.5], True), ("lt", ["b", "a"], False),
    ("lt", ["a", "b"], True), ("gt", [True, False], True),
])
def test_comparisons(op, values, expected):
    assert check(op, {"values": values}) is expected
    assert check(f"!{op}", {"values": values}) is (not expected)


def test_comparison_with_force_strings_and_errors():
    assert check("eq", {"values": [4, "4"], "force_strings": True})
    with pytest.raises(operators.Failure, match="cannot compare"):
        check("lt", {"values": [1, "a"]})
    with pytest.raises(operators.Failure, match="expected a list"):
        check("eq", {"values": "{inventory[cpu][count]}"})


@pytest.mark.parametrize("value, expected", [
    ("", True), (None, True), ([], True), ({}, True), ("x", False),
    (0, False), ("{inventory[memory][nothing]}", True),
    ("{inventory[interfaces][1][ipv4_address]}", True),
    ("{inventory[interfaces][0][ipv4_address]}", False),
])
def test_is_empty(value, expected):
    assert check("is-empty", {"value": value}) is expected


@pytest.mark.parametrize("address, subnet, expected", [
    ("192.0.2.10", "192.0.2.0/24", True),
    ("198.51.100.1", "192.0.2.0/24", False),
    ("{inventory[bmc_address]}", "192.0.2.128/25", True),
    ("2001:db8::1", "2001:db8::/32", True),
    ("192.0.2.10", "192.0.2.1/24", True),
])
def test_in_net(address, subnet, expected):
    assert check("in-net", {"address": address, "subnet": subnet}) \
        is expected


def test_in_net_bad_input_fails():
    with pytest.raises(operators.Failure, match="invalid subnet"):
        check("in-net", {"address": "192.0.2.1", "subnet": "nope"})
    with pytest.raises(operators.Failure, match="invalid address"):
        check("in-net", {"address": "nope", "subnet": "10.0.0.0/8"})


def test_matches_is_whole_value_contains_is_part():
    arch = "{inventory[cpu][architecture]}"
    assert check("matches", {"value": arch, "regex": "x86_.*"})
    assert not check("matches", {"value": arch, "regex": "x86"})
    assert not check("matches", {"value": arch, "regex": "x86|arm"})
    assert check("contains", {"value": arch, "regex": "86"})
    assert not check("contains", {"value": arch, "regex": "^86"})
    assert check("!contains", {"value": arch, "regex": "arm"})
    with pytest.raises(operators.Failure, match="regular expression"):
        check("matches", {"value": "x", "regex": "("})


def test_one_of():
    assert check("one-of", {"value": "{inventory[cpu][architecture]}",
                            "values": ["aarch64", "x86_64"]})
    assert not check("one-of", {"value": "ppc64le", "values": ["x86_64"]})
    assert not check("one-of", {"value": "x"})  # no values: nothing matches


@pytest.mark.parametrize("op, value, expected", [
    ("is-none", None, True), ("is-none", "", False), ("is-none", 0, False),
    ("is-true", True, True), ("is-true", 1, True), ("is-true", "YES", True),
    ("is-true", "true", True), ("is-true", "on", False),
    ("is-true", None, False), ("is-true", 0.0, False),
    ("is-false", False, True), ("is-false", 0, True), ("is-false", "No", True),
    ("is-false", "false", True), ("is-false", None, True),
    ("is-false", "x", False), ("is-false", [], False),
])
def test_truth_operators(op, value, expected):
    assert check(op, {"value": value}) is expected
    assert check(f"!{op}", {"value": value}) is (not expected)


def test_list_args_are_positional():
    assert check("eq", [[1, 1]])
    assert check("in-net", ["192.0.2.1", "192.0.2.0/24"])
    assert check("one-of", ["a", ["a"]])


def test_node_references():
    scope = _scope(name="web-1")
    assert check("eq", {"values": ["{node.name}", "web-1"]}, scope)
    assert check("eq", {"values": ["{node.uuid}", "node-1"]}, scope)


def test_private_attributes_are_not_reachable():
    text = "{node.__class__.__name__}"
    assert check("eq", {"values": [text, text]})  # kept as written
    assert interpolation.render(text, {"node": object()}) == text


def test_huge_format_widths_are_refused():
    variables = _scope().variables()
    assert interpolation.render("{node.uuid:>5}", variables) == "node-1"
    assert interpolation.render("{node.uuid:>99999999}", variables) == \
        "{node.uuid:>99999999}"


@pytest.mark.parametrize("multiple, expected", [
    ("any", True), ("all", False), ("first", False), ("last", True),
])
def test_loops_combine_items(multiple, expected):
    cond = {"op": "eq", "args": {"values": ["{item}", "eth1"]},
            "loop": ["eth0", "eth1"], "multiple": multiple}
    assert operators.check(cond, _scope()) is expected


def test_loop_defaults_to_any_and_negates_each_item():
    cond = {"op": "!eq", "args": {"values": ["{item}", "eth0"]},
            "loop": ["eth0", "eth1"]}
    assert operators.check(cond, _scope()) is True
    cond["multiple"] = "all"
    assert operators.check(cond, _scope()) is False


def test_loop_items_may_hold_references_and_compare_as_strings():
    cond = {"op": "eq", "args": {"values": ["{item[a]}", "{item[b]}"]},
            "loop": [{"a": "{inventory[cpu][count]}", "b": 4}],
            "multiple": "all"}
    assert operators.check(cond, _scope()) is True
    # An object loops once over itself.
    cond["loop"] = {"a": 1, "b": "1"}
    assert operators.check(cond, _scope()) is True


def test_secrets_are_masked_unless_disabled():
    args = {"values": ["{inventory[bmc_password]}", "***"]}
    assert check("eq", args)
    assert not check("eq", args, _scope(mask=False))
    nested = _scope(plugin_data={"x": [{"password": "p", "ok": 1}]})
    assert check("eq", {"values": ["{plugin_data[x][0][password]}", "***"]},
                 nested)
    assert "s3cret" not in interpolation.render(
        "{inventory}", nested.variables())


def test_masked_views_are_live_and_read_only():
    data = {"a": {"password": "p"}}
    view = masking.view(data)
    data["b"] = 1
    assert dict(view) == {"a": {"password": "***"}, "b": 1}
    assert masking.plain(view) == {"a": {"password": "***"}, "b": 1}
    assert not hasattr(view, "__setitem__")
    assert masking.view(data, enabled=False) is data


def test_split_negation_and_paths():
    assert interpolation.split_negation(" !eq ") == ("eq", True)
    assert interpolation.split_negation("gt") == ("gt", False)
    with pytest.raises(ValueError):
        interpolation.split_negation("!!eq")
    assert interpolation.split_path("/properties/a/b") == [
        "properties", "a", "b"]
    assert interpolation.split_path("extra.x") == ["extra", "x"]


def test_unrenderable_strings_are_kept():
    variables = _scope().variables()
    assert interpolation.render("{unknown}", variables) == "{unknown}"
    assert interpolation.render("a {", variables) == "a {"
    assert interpolation.render(
        {"{inventory[cpu][architecture]}": ["{inventory[memory]}", 1]},
        variables) == {"x86_64": ["{'physical_mb': 8192}", 1]}
