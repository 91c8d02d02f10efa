"""The layer contracts of pyproject.toml hold (as the lint step checks)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ironic.tests.unit.tools import ROOT, load_tool


def test_layer_contracts_are_kept():
    pytest.importorskip("importlinter.cli")
    # In a child: import-linter configures logging with dictConfig, which
    # would silence the loggers of modules this process already imported.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (ROOT, os.environ.get("PYTHONPATH")) if p))
    result = subprocess.run(
        [sys.executable, "-c",
         "import sys; from importlinter import cli; sys.exit(cli.lint_imports("
         f"config_filename={os.path.join(ROOT, 'pyproject.toml')!r}, "
         "no_cache=True, no_logo=True))"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_measure_counts_the_wrong_way_imports(capsys, monkeypatch):
    import_layers = load_tool("import_layers")
    monkeypatch.setattr(sys, "argv", ["import_layers.py"])
    import_layers.main()
    lines = dict(line.rsplit(None, 1) for line in
                 capsys.readouterr().out.splitlines()
                 if not line.startswith(" "))
    # Rules that hold today stay at zero (the contracts block them too,
    # except for imports under TYPE_CHECKING, which are counted here).
    for rule in ("conductor -> api", "db -> above db",
                 "common -> upper floors", "task -> above objects",
                 "objects -> api/conductor/drivers", "drivers -> api/db"):
        assert lines[rule] == "0", rule


def test_no_package_circles():
    """No two of ironic's top-level packages import each other, directly
    or around a circle.

    Imports in functions and under ``if TYPE_CHECKING:`` count: a deferred
    import is the same dependency, and a type named across floors ties
    them as much (the contracts of pyproject.toml leave those out).
    """
    import_layers = load_tool("import_layers")
    pairs, groups = import_layers.package_circles(import_layers.module_edges())
    assert pairs == [], f"packages importing each other: {pairs}"
    assert groups == [], f"packages in one circle: {groups}"


def test_circles_are_found():
    import_layers = load_tool("import_layers")
    edges = {("ironic.a.x", "ironic.b.y"), ("ironic.b.z", "ironic.c"),
             ("ironic.c", "ironic.a"), ("ironic.d", "ironic.a.x")}
    pairs, groups = import_layers.package_circles(edges)
    assert pairs == []
    assert groups == [["ironic.a", "ironic.b", "ironic.c"]]
    pairs, _ = import_layers.package_circles(
        edges | {("ironic.a", "ironic.d")})
    assert pairs == [("ironic.a", "ironic.d")]
