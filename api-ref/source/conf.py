"""Sphinx configuration of the API reference (built by tox -e api-ref)."""

project = "Bare Metal API reference"
extensions: list[str] = []
master_doc = "index"
exclude_patterns = ["_build"]
# Resource pages are .inc files pulled into index.rst, not documents.
source_suffix = {".rst": "restructuredtext"}
html_theme = "alabaster"
