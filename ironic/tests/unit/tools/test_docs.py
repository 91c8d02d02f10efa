"""Documentation sources stay consistent as pages and notes are added."""

from __future__ import annotations

import glob
import os
import re

import pytest
import yaml

from ironic.tests.unit.tools import ROOT

API_REF = os.path.join(ROOT, "api-ref", "source")
DOC = os.path.join(ROOT, "doc", "source")
NOTES = os.path.join(ROOT, "releasenotes", "notes")

# The sections reno knows; anything else is silently dropped from the notes.
NOTE_SECTIONS = {"prelude", "features", "issues", "upgrade", "deprecations",
                 "critical", "security", "fixes", "other"}

pytestmark = pytest.mark.skipif(not os.path.isdir(API_REF),
                                reason="not running from a source tree")


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def test_every_api_ref_page_is_included_once():
    index = _read(os.path.join(API_REF, "index.rst"))
    included = re.findall(r"^\.\. include:: (\S+)$", index, re.M)
    pages = sorted(os.path.basename(p)
                   for p in glob.glob(os.path.join(API_REF, "*.inc")))
    assert sorted(included) == pages, (
        "api-ref/source/index.rst must include each *.inc page exactly once")


def _toctree_entries(text: str) -> set[str]:
    entries = set()
    for block in re.findall(r"^\.\. toctree::\n((?:[ \t]+.*\n|\n)*)", text,
                            re.M):
        for line in block.splitlines():
            line = line.strip()
            if line and not line.startswith(":"):
                entries.add(line)
    return entries


def test_every_doc_page_is_in_a_toctree():
    pages = {os.path.relpath(p, DOC)[:-len(".rst")]
             for p in glob.glob(os.path.join(DOC, "**", "*.rst"),
                                recursive=True)}
    linked = set()
    for page in pages:
        base = os.path.dirname(page)
        for entry in _toctree_entries(_read(os.path.join(DOC,
                                                         page + ".rst"))):
            linked.add(os.path.normpath(os.path.join(base, entry)))
    orphans = pages - linked - {"index"}
    assert not orphans, f"doc pages no toctree links to: {sorted(orphans)}"
    assert linked <= pages, f"toctree entries without a page: " \
                            f"{sorted(linked - pages)}"


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(NOTES,
                                                                "*.yaml"))),
                         ids=os.path.basename)
def test_release_note_is_well_formed(path):
    assert re.search(r"-[0-9a-f]{16}\.yaml$", path), \
        "name notes with 'reno new <slug>'"
    note = yaml.safe_load(_read(path))
    assert isinstance(note, dict) and note, "a note is a non-empty mapping"
    assert set(note) <= NOTE_SECTIONS, f"unknown: {set(note) - NOTE_SECTIONS}"
    for section, body in note.items():
        if section == "prelude":
            assert isinstance(body, str)
        else:
            assert isinstance(body, list) and body
            assert all(isinstance(item, str) and item.strip()
                       for item in body), section


def _literal_includes(page: str) -> list[str]:
    text = _read(os.path.join(DOC, page))
    return [os.path.normpath(os.path.join(DOC, os.path.dirname(page), p))
            for p in re.findall(r"^\.\. literalinclude:: (\S+)$", text,
                                re.M)]


def test_out_of_tree_page_shows_the_tested_example():
    # The page includes the files the tests install and load, so what it
    # shows cannot drift from what works.
    example = os.path.join(ROOT, "ironic", "tests", "outoftree_example")
    shown = _literal_includes(
        os.path.join("contributor", "out-of-tree-hardware-type.rst"))
    assert all(os.path.isfile(p) for p in shown), shown
    wanted = {os.path.join(example, "setup.cfg")} | {
        p for p in glob.glob(os.path.join(example, "ironic_example_hw",
                                          "*.py"))
        if os.path.getsize(p) > 0
        and not p.endswith("__init__.py")}
    assert wanted <= set(shown), sorted(wanted - set(shown))
