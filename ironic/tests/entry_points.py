"""Make the entry points of setup.cfg visible when the package is not
installed (running the tests straight from a checkout in a shared venv).

stevedore finds plugins through ``importlib.metadata``; an installed
distribution has an ``entry_points.txt`` in its ``.dist-info``. When our
distribution is absent or stale, one is written from setup.cfg into a
temporary directory and found first by a meta path finder - the metadata
``pip install -e`` would write, so the tests load the plugins exactly as
the service does.
"""

from __future__ import annotations

import configparser
import importlib.abc
import importlib.metadata
import os
import pathlib
import sys
import tempfile


class _Finder(importlib.abc.MetaPathFinder):
    """Yields the published distributions ahead of every other finder."""

    def __init__(self) -> None:
        self.dists: dict[str, pathlib.Path] = {}

    def find_spec(self, *args, **kwargs):  # imports: not our business
        return None

    def find_distributions(self, context=None):
        name = getattr(context, "name", None)
        wanted = importlib.metadata.Prepared.normalize(name) if name \
            else None
        for norm, path in self.dists.items():
            if wanted is None or wanted == norm:
                yield importlib.metadata.PathDistribution(path)


_FINDER = _Finder()
# Directories holding published metadata (and sources), for child processes.
_CHILD_PATHS: list[str] = []


def _installed_entry_points(dist: str) -> set[tuple] | None:
    """Entry points of the distribution Python would use, or None."""
    try:
        found = importlib.metadata.distribution(dist)
    except importlib.metadata.PackageNotFoundError:
        return None
    return {(ep.group, ep.name, ep.value) for ep in found.entry_points}


def _declared_entry_points(text: str) -> set[tuple]:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # entry point names are case-sensitive
    parser.read_string(text)
    return {(group, name, value.strip()) for group in parser.sections()
            for name, value in parser.items(group)}


def _entry_points_txt(setup_cfg: str) -> tuple[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(setup_cfg)
    name = parser.get("metadata", "name")
    out = []
    for group, body in parser.items("options.entry_points"):
        out.append(f"[{group}]")
        out.extend(line.strip() for line in body.splitlines()
                   if line.strip())
        out.append("")
    return name, "\n".join(out)


def expose(setup_cfg: str, source_dir: str | None = None) -> bool:
    """Publish the entry points of ``setup_cfg`` unless installed.

    ``source_dir`` is added to ``sys.path`` too (for a distribution whose
    code is not importable otherwise). Returns True when it had to act.
    """
    name, text = _entry_points_txt(setup_cfg)
    # An installed copy counts only while it matches setup.cfg: an egg-info
    # left by an editable install goes stale when setup.cfg changes.
    if _installed_entry_points(name) == _declared_entry_points(text):
        return False
    root = tempfile.mkdtemp(prefix=f"{name}-eps-")
    info = os.path.join(root, f"{name.replace('-', '_')}-0.0.0.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.0.0\n")
    with open(os.path.join(info, "entry_points.txt"), "w") as f:
        f.write(text)
    # Found before anything on sys.path: importlib.metadata uses the first
    # distribution of a name, and a stale one may sit in the working
    # directory (which pytest puts first on sys.path).
    _FINDER.dists[importlib.metadata.Prepared.normalize(name)] = \
        pathlib.Path(info)
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    _CHILD_PATHS.append(root)
    if source_dir:
        _CHILD_PATHS.append(source_dir)
        sys.path.append(source_dir)
    importlib.invalidate_caches()
    return True


def child_pythonpath() -> list[str]:
    """PYTHONPATH entries that give a child process (a service started by
    a functional test) the same plugins: the published metadata comes
    before the checkout, so a stale egg-info there is not used."""
    return list(_CHILD_PATHS)
