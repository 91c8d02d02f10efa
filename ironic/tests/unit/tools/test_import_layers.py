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
    # Rules that hold today stay at zero (the contracts block them too).
    assert lines["conductor -> api"] == "0"
    assert lines["db -> above db"] == "0"
