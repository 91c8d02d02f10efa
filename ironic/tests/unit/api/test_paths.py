"""The other spellings of /v1 paths (ironic.api.middleware.paths)."""

import pytest

from ironic.api.controllers.v1 import index
from ironic.api.middleware import paths


def test_roots_are_the_v1_resources():
    # openapi.json is a document, not a resource with bookmark links.
    routed = {name for name in dir(index.V1Controller)
              if not name.startswith("_")
              and name not in ("index", "openapi.json")}
    assert paths.V1_ROOTS == routed


@pytest.mark.parametrize("path, ver, expected", [
    ("/nodes/abc", 1, "/v1/nodes/abc"),
    ("/nodes", 90, "/v1/nodes"),
    ("/v1/nodes/abc.json", 90, "/v1/nodes/abc"),
    ("/v1/nodes/abc.json", 91, "/v1/nodes/abc.json"),
    ("/nodes/abc.json", 1, "/v1/nodes/abc"),
    ("/v1/nodes/abc.json/states", 1, "/v1/nodes/abc.json/states"),
    ("/v1/nodes/abc.xml", 1, "/v1/nodes/abc.xml"),
    ("/v1/nodes/abc/", 1, "/v1/nodes/abc"),
    ("/v1.json", 1, "/v1"),
    ("/v1/openapi.json", 1, "/v1/openapi.json"),
    ("/v1/", 1, "/v1/"),
    ("/", 1, "/"),
    ("/v2/nodes", 1, "/v2/nodes"),
    ("/unknown", 1, "/unknown"),
])
def test_canonical(path, ver, expected):
    assert paths.canonical(path, ver) == expected


@pytest.mark.parametrize("path, named", [
    ("/", True), ("/v1", True), ("/v1/nodes", True), ("/nodes/x", True),
    ("/nodes.json", True), ("/nothing", False), ("/v2/nodes", False)])
def test_names_version(path, named):
    assert paths.names_version(path) is named


@pytest.mark.parametrize("path, named", [
    ("/v1/nodes/__class__", True), ("/v1/__module__/x", True),
    ("/v1/nodes/__init__/states", True),
    # A node may be named with underscores; only Python's names are out.
    ("/v1/nodes/__my_node__", False), ("/v1/nodes/_route", False),
    ("/v1/nodes/class", False)])
def test_names_object_attribute(path, named):
    assert paths.names_object_attribute(path) is named
