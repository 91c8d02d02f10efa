"""Tests of the project's own tools (tools/*.py) and generated files."""

from __future__ import annotations

import importlib.util
import os
import types

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))))


def load_tool(name: str) -> types.ModuleType:
    """Import tools/<name>.py, which is a script, not part of the package."""
    path = os.path.join(ROOT, "tools", f"{name}.py")
    if not os.path.exists(path):
        pytest.skip("not running from a source tree")
    spec = importlib.util.spec_from_file_location(f"_tool_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
