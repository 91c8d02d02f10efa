"""Sphinx configuration of the release notes (built by tox -e releasenotes)."""

project = "Bare Metal API service release notes"
extensions = ["reno.sphinxext"]
master_doc = "index"
exclude_patterns = ["_build"]
html_theme = "alabaster"
