"""Sphinx configuration of the documentation (built by tox -e docs)."""

project = "Bare Metal API service"
extensions: list[str] = []
master_doc = "index"
exclude_patterns = ["_build"]
html_theme = "alabaster"
