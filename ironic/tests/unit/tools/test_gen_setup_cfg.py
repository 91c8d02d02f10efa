"""setup.cfg's entry points are generated from setup.cfg.d/."""

from __future__ import annotations

import configparser
import os
import subprocess
import sys

import pytest

from ironic.tests.unit.tools import ROOT, load_tool

gen = load_tool("gen_setup_cfg")


def test_setup_cfg_matches_setup_cfg_d():
    current, expected = gen.generate(ROOT)
    assert current == expected, (
        "setup.cfg differs from setup.cfg.d/: run "
        "'python3 tools/gen_setup_cfg.py' and commit the result")


def test_every_namespace_file_has_entries():
    directory = os.path.join(ROOT, "setup.cfg.d")
    for namespace, entries in gen.read_namespaces(directory).items():
        assert entries, f"setup.cfg.d/{namespace}.cfg lists nothing"


def _project(tmp_path, setup_cfg: str, files: dict[str, str]):
    (tmp_path / "setup.cfg").write_text(setup_cfg)
    (tmp_path / "setup.cfg.d").mkdir()
    for name, text in files.items():
        (tmp_path / "setup.cfg.d" / name).write_text(text)
    return tmp_path


SETUP_CFG = """[metadata]
name = demo

[options.entry_points]
old.namespace =
    gone = demo.old:thing

[options.package_data]
demo = data/*.json
"""


def test_section_is_replaced_and_other_sections_kept(tmp_path):
    root = _project(tmp_path, SETUP_CFG, {
        "demo.types.cfg": "# a comment\n\nb-type = demo.b:B\na = demo.a:A\n",
        "console_scripts.cfg": "demo = demo.cmd:main\n",
        "README": "not a namespace file",
    })
    assert gen.main(["--root", str(root)]) == 0
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(root / "setup.cfg")
    eps = dict(parser.items("options.entry_points"))
    assert list(eps) == ["console_scripts", "demo.types"]
    # File order is kept: the author decides how entries read.
    assert eps["demo.types"].split("\n") == [
        "", "b-type = demo.b:B", "a = demo.a:A"]
    assert parser.get("options.package_data", "demo") == "data/*.json"
    assert parser.get("metadata", "name") == "demo"
    assert gen.main(["--root", str(root), "--check"]) == 0


def test_check_reports_stale_setup_cfg_without_writing(tmp_path, capsys):
    root = _project(tmp_path, SETUP_CFG, {"x.cfg": "a = demo.a:A\n"})
    assert gen.main(["--root", str(root), "--check"]) == 1
    assert "+    a = demo.a:A" in capsys.readouterr().out
    assert (root / "setup.cfg").read_text() == SETUP_CFG


def test_section_added_when_missing(tmp_path):
    root = _project(tmp_path, "[metadata]\nname = demo\n",
                    {"x.cfg": "a = demo.a:A\n"})
    assert gen.main(["--root", str(root)]) == 0
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(root / "setup.cfg")
    assert parser.get("options.entry_points", "x").strip() == "a = demo.a:A"


@pytest.mark.parametrize("text, message", [
    ("a = demo.a:A\na = demo.b:B\n", "duplicate 'a'"),
    ("a demo.a:A\n", "expected 'name = module.path:attr'"),
    ("a = demo.a\n", "expected 'name = module.path:attr'"),
    ("a = demo.a:A extra\n", "expected 'name = module.path:attr'"),
])
def test_malformed_namespace_file_is_refused(tmp_path, capsys, text,
                                             message):
    root = _project(tmp_path, SETUP_CFG, {"x.cfg": text})
    assert gen.main(["--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert message in err and "x.cfg:" in err
    assert (root / "setup.cfg").read_text() == SETUP_CFG


_PROBE = """
import importlib.metadata, sys
sys.path.insert(0, {tools!r})
import gen_setup_cfg
acted = gen_setup_cfg.expose_entry_points({root!r}, dist="demo")
names = sorted(ep.name for ep in
               importlib.metadata.entry_points(group="demo.things"))
print(acted, names)
"""


def _probe(root) -> str:
    code = _PROBE.format(tools=os.path.join(ROOT, "tools"), root=str(root))
    out = subprocess.run([sys.executable, "-c", code], cwd=root,
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_expose_publishes_entry_points_when_not_installed(tmp_path):
    root = _project(tmp_path, SETUP_CFG, {"demo.things.cfg": "a = json:dumps\n"})
    assert _probe(root) == "True ['a']"


def test_expose_overrides_a_stale_egg_info_in_the_tree(tmp_path):
    # 'pip install -e' leaves <dist>.egg-info in the checkout; after a
    # setup.cfg.d/ change it lists old entry points and would win.
    root = _project(tmp_path, SETUP_CFG, {"demo.things.cfg": "a = json:dumps\n"})
    stale = root / "demo.egg-info"
    stale.mkdir()
    (stale / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: demo\n"
                                    "Version: 0.1\n")
    (stale / "entry_points.txt").write_text("[demo.things]\nold = json:loads\n")
    assert _probe(root) == "True ['a']"


def test_adopt_moves_hand_written_entries_into_namespace_files(tmp_path):
    root = _project(tmp_path, SETUP_CFG, {"old.namespace.cfg": "# kept\n"})
    assert gen.main(["--root", str(root), "--adopt"]) == 0
    assert (root / "setup.cfg.d" / "old.namespace.cfg").read_text() == (
        "# kept\ngone = demo.old:thing\n")
    # Adopting twice adds nothing: the entry is known now.
    assert gen.adopt(str(root)) == []
    assert gen.main(["--root", str(root), "--check"]) == 0
