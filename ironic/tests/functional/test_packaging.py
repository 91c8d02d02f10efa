"""``pip install`` of the built wheel gives a working service.

The wheel is built from a copy of the checkout (nothing written into it),
installed into a fresh virtualenv without a requirements file, and then:
its metadata declares exactly the dependencies of requirements.txt,
each of them is installed at a version it allows, every console script's entry
point imports, ``ironic-dbsync`` runs, and ``ironic`` starts and answers.

Offline and quick: the fresh virtualenv sees the packages of the one
running the tests through a ``.pth`` file (the dependencies are not
downloaded again), and pip installs the wheel alone (``--no-index``).
"""

from __future__ import annotations

import configparser
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from ironic.tests.functional import service as svc

ROOT = svc.REPO_ROOT
# Not the package's own files: tool state, build output, caches.
SKIP = shutil.ignore_patterns(".git", ".tox", ".tox-bootstrap", "build",
                              "dist", "*.egg-info", "__pycache__",
                              ".pytest_cache", ".hypothesis", ".aio",
                              "*.sqlite", ".venv")
# Bounds against a hang, not tuned waits.
STEP = 180
START_DEADLINE = 60.0


def _clean_env() -> dict[str, str]:
    # Without the checkout on PYTHONPATH: the installed copy must do.
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def _run(argv: list, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run([str(a) for a in argv], capture_output=True,
                            text=True, timeout=STEP, env=_clean_env(),
                            **kwargs)
    assert result.returncode == 0, \
        f"{argv} exited {result.returncode}:\n{result.stdout}{result.stderr}"
    return result


def _requirement_names(text: str) -> list[str]:
    names = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.append(re.split(r"[<>=!~;\[ ]", line, maxsplit=1)[0]
                         .lower())
    return names


def _console_scripts() -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "setup.cfg")
    body = parser.get("options.entry_points", "console_scripts")
    return dict((name.strip(), target.strip()) for name, target in
                (line.split("=", 1) for line in body.splitlines()
                 if line.strip()))


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the fresh virtualenv, the wheel)"""
    work = tmp_path_factory.mktemp("packaging")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=SKIP)
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps",
          "--no-build-isolation", "--no-index", "-q", "-w", work / "dist",
          source])
    [wheel] = (work / "dist").glob("ironic-*.whl")
    venv = work / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    # The dependencies: those of the environment running the tests.
    fresh_site = Path(_run(
        [venv / "bin" / "python", "-c",
         "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
    ).stdout.strip())
    (fresh_site / "test-dependencies.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n")
    # --ignore-installed: the environment running the tests may have its
    # own (editable) ironic; the fresh one gets the wheel's.
    _run([venv / "bin" / "python", "-m", "pip", "install", "-q",
          "--no-index", "--no-deps", "--ignore-installed", wheel])
    return venv, wheel


def test_wheel_declares_requirements_txt(installed):
    _, wheel = installed
    with zipfile.ZipFile(wheel) as whl:
        [meta] = [n for n in whl.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = whl.read(meta).decode()
    declared = [line.split(":", 1)[1].strip() for line in
                metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert _requirement_names("\n".join(declared)) == \
        _requirement_names((ROOT / "requirements.txt").read_text())


def test_install_is_complete_and_runs(installed, tmp_path):
    venv, _ = installed
    python = venv / "bin" / "python"
    # Every declared dependency is there, at a version it allows (not
    # "pip check": it judges every package of the test environment too).
    satisfied = (
        "import importlib.metadata as md\n"
        "from packaging.requirements import Requirement\n"
        "for line in md.requires('ironic'):\n"
        "    req = Requirement(line)\n"
        "    found = md.version(req.name)\n"
        "    assert req.specifier.contains(found, prereleases=True), "
        "(req, found)\n")
    _run([python, "-c", satisfied], cwd=tmp_path)
    # The code is the installed copy, not the checkout.
    where = _run([python, "-c", "import ironic; print(ironic.__file__)"],
                 cwd=tmp_path).stdout.strip()
    assert where.startswith(str(venv)), where
    scripts = _console_scripts()
    assert {"ironic", "ironic-api", "ironic-conductor", "ironic-dbsync",
            "ironic-pxe-filter"} <= set(scripts)
    check = ("import importlib.metadata as md\n"
             "eps = md.distribution('ironic').entry_points\n"
             "for ep in eps.select(group='console_scripts'):\n"
             "    assert callable(ep.load()), ep\n"
             "assert eps.select(group='ironic.hardware.types')\n")
    _run([python, "-c", check], cwd=tmp_path)
    for name in scripts:
        assert (venv / "bin" / name).exists(), name
    assert "upgrade" in _run([venv / "bin" / "ironic-dbsync", "--help"],
                             cwd=tmp_path).stdout

    port = svc.free_port()
    (tmp_path / "state").mkdir()
    config = svc.write_config(tmp_path, port)
    with open(tmp_path / "stdout.log", "wb") as out:
        proc = subprocess.Popen([venv / "bin" / "ironic", "--config-file",
                                 config], cwd=tmp_path, stdout=out,
                                stderr=subprocess.STDOUT, env=_clean_env())
    try:
        deadline = time.monotonic() + START_DEADLINE
        while True:
            assert proc.poll() is None, (tmp_path / "stdout.log").read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1",
                                            timeout=2) as r:
                    assert r.status == 200
                    break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                assert time.monotonic() < deadline, "ironic did not answer"
                time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(30)
    assert code == 0
    printed = (tmp_path / "stdout.log").read_text()
    # No deprecation banner on start (eventlet is installed, not used).
    assert "Eventlet is deprecated" not in printed, printed
