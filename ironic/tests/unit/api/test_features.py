"""Named microversion features: kept in step with the version record,
and the only way controllers speak of versions."""

import ast
import pathlib
import re

import pecan
import pytest
import webob
from pecan import rest

from ironic.api import features, method
from ironic.api.controllers.v1 import (
    chassis,
    driver,
    event,
    inspection_rule,
    node,
    node_actions,
    node_fields,
    node_sub,
    port,
    portgroup,
    shard,
)
from ironic.api.controllers.v1 import versions as v
from ironic.api.middleware import version as version_mw
from ironic.common import exception, states
from ironic.objects.node import Node

ALL = features.all_features()


def test_since_is_open_ended_from_its_minor():
    f = features.Since(61)
    assert not f.available(60)
    assert f.available(61) and f.available(10_000)
    assert f.minors == (61,)
    assert f.version == "1.61"


def test_since_with_until_ends_after_its_last_version():
    f = features.Since(90, until=104)
    assert [m for m in (89, 90, 104, 105) if f.available(m)] == [90, 104]
    assert f.minors == (90, 105)


@pytest.mark.parametrize("minor, until", [(0, None), (5, 4)])
def test_since_refuses_an_empty_range(minor, until):
    with pytest.raises(ValueError):
        features.Since(minor, until=until)


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_feature_is_recorded_where_it_changed(name):
    f = ALL[name]
    assert f.minor in v.HISTORY, name
    assert f in v.HISTORY[f.minor].introduces, (
        f"HISTORY[{f.minor}] does not list features.{name}")
    if f.until is not None:
        assert f.until + 1 in v.HISTORY, name
        assert f in v.HISTORY[f.until + 1].removes, (
            f"HISTORY[{f.until + 1}] does not list features.{name}")


def test_history_names_only_features_of_the_module_at_their_version():
    known = {id(f) for f in ALL.values()}
    for minor, change in v.HISTORY.items():
        for f in change.introduces:
            assert id(f) in known and f.minor == minor, minor
        for f in change.removes:
            assert id(f) in known and f.until == minor - 1, minor


@pytest.mark.parametrize("spec", [chassis.SPEC, port.SPEC, portgroup.SPEC,
                                  inspection_rule.SPEC],
                         ids=lambda spec: spec.singular)
def test_resource_fields_appear_at_recorded_versions(spec):
    for name in spec.known():
        assert spec.since(name) in v.HISTORY, (spec.singular, name)


def test_node_fields_appear_at_recorded_versions():
    for name in Node.fields:
        since = node_fields.field_since(name)
        assert since is None or since in v.HISTORY, name


def test_verbs_come_with_the_versions_of_the_state_machine():
    assert {verb: f.minor for verb, f in
            node_actions.VERB_FEATURES.items()} == states.VERB_SINCE


def test_handlers_carry_their_bounds_and_status():
    get_all = node.NodesController.get_all
    assert (get_all.api_since, get_all.api_until, get_all.api_status) == \
        (1, None, 200)
    assert shard.ShardsController.get_all.api_since == 82
    post = event.EventsController.post
    assert (post.api_since, post.api_status) == (54, 204)


def test_a_bounded_feature_sets_the_upper_bound():
    handler = method.api_method(features.LLC_VTEP, status=201)(
        lambda self: None)
    assert (handler.api_since, handler.api_until, handler.api_status) == \
        (90, 104, 201)


@pytest.mark.parametrize("handler, since", [
    (driver.RaidController.logical_disk_properties, 12),
    (node_actions.StatesController.put_raid, 12),
    (node_sub.TraitsController.get_all, 37),
])
def test_late_handlers_declare_their_bound_too(handler, since):
    assert handler.api_since == since


def test_api_method_takes_one_feature():
    with pytest.raises(TypeError):
        method.api_method(features.VIFS, since=features.VIFS)


# -- no bare numbers compared with versions in controllers -------------------

_API = pathlib.Path(features.__file__).parent
#: Where versions are compared by design: the features themselves, the
#: decorator that bounds handlers, and the negotiation of the version.
_ALLOWED = {"features.py", "method.py", "middleware/version.py"}
#: Names that hold a microversion (``verb`` is not one).
_VERSIONISH = re.compile(r"^(ver|version|minor|since|\w+_version|\w+_since)$",
                         re.IGNORECASE)


def _versionish(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Call):
        expr = expr.func
    if isinstance(expr, ast.Attribute):
        return bool(_VERSIONISH.match(expr.attr))
    return isinstance(expr, ast.Name) and bool(_VERSIONISH.match(expr.id))


_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _bare_version_comparisons(tree: ast.AST) -> list[int]:
    """Lines that order a version (``ver < since``) or compare one with a
    number (``ver == 1``): both belong in ``Since.available``."""
    found = []
    for node_ in ast.walk(tree):
        if not isinstance(node_, ast.Compare):
            continue
        operands = [node_.left, *node_.comparators]
        if not any(_versionish(o) for o in operands):
            continue
        has_number = any(isinstance(o, ast.Constant) and type(o.value) is int
                         for o in operands)
        if has_number or any(isinstance(op, _ORDER) for op in node_.ops):
            found.append(node_.lineno)
    return found


def test_the_scan_finds_bare_comparisons():
    src = ("if ver >= 61: pass\nif method.version() < 12: pass\n"
           "if 5 <= minor: pass\nif since > ver: pass\n"
           "if ver != 1: pass\nif len(verb) > 3: pass\n"
           "if since is None: pass\n"
           "if features.RETIRED.available(ver): pass\n")
    assert _bare_version_comparisons(ast.parse(src)) == [1, 2, 3, 4, 5]


def test_the_api_compares_versions_only_through_features():
    offenders = []
    for path in sorted(_API.rglob("*.py")):
        name = path.relative_to(_API).as_posix()
        if name in _ALLOWED:
            continue
        for line in _bare_version_comparisons(ast.parse(path.read_text())):
            offenders.append(f"{name}:{line}")
    assert not offenders, (
        "Compare versions through a named feature "
        "(ironic.api.features, features.X.available(ver)): "
        + ", ".join(offenders))


# -- late bounds ---------------------------------------------------------------

class _Late(rest.RestController):
    """A resource from 1.12 whose handler checks its bound itself."""

    @method.expose()
    @method.api_method(features.Since(12), too_old=406, late=True)
    def get_all(self, **params):
        check = params.get("check")
        if check == "missing":
            raise exception.NotFound()
        if check == "yes":
            method.check_bound()
        return {"ok": True}


class _LateRoot:
    late = _Late()


def _late_app():
    app = pecan.make_app(_LateRoot())

    def bound(environ, start_response):
        environ[version_mw.ENV_KEY] = int(environ["HTTP_X_MINOR"])
        method.bind_request(environ)
        try:
            return app(environ, start_response)
        finally:
            method.bind_request(None)
    return bound


@pytest.mark.parametrize("minor, check, status", [
    (12, "yes", 200), (11, "yes", 406),
    # What the handler answers first wins over the version.
    (11, "missing", 404),
    # A handler that never checks still does not serve an older version.
    (11, "no", 406), (12, "no", 200),
])
def test_a_late_bound_is_checked_where_the_handler_says(minor, check, status):
    req = webob.Request.blank(f"/late?check={check}",
                              headers={"X-Minor": str(minor)})
    resp = req.get_response(_late_app())
    assert resp.status_int == status, resp.body
    if status == 200:
        assert resp.json == {"ok": True}
