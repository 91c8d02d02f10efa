"""The all-in-one install guide, followed as written.

``doc/source/install/all-in-one.rst`` is read block by block: ``console``
blocks run in order in bash (HOME is a scratch directory, so every ``~``
path lands there), ``text`` blocks marked ``expect`` must appear in the
output, and RST comments ``.. install-test: skip`` / ``background`` say
which blocks are not run (installing into a new virtual environment: the
test links the one it runs in instead) and which one starts the service.
The guide's ports are swapped for free ones; nothing else is changed.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ironic.tests.functional import service as svc

GUIDE = svc.REPO_ROOT / "doc" / "source" / "install" / "all-in-one.rst"
PORTS = ("6385", "9608")
COMMANDS = ("ironic", "ironic-api", "ironic-conductor", "ironic-dbsync",
            "openstack", "pip", "python", "python3")
# Bounds against a hang, not tuned waits.
STEP_DEADLINE = 600.0


@dataclasses.dataclass
class Block:
    language: str
    lines: list[str]
    marker: str = ""


def read_blocks(text: str) -> list[Block]:
    """Every ``.. code-block::`` with the ``install-test`` comment (if any)
    standing right before it."""
    lines = text.splitlines()
    blocks, marker = [], ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(".. install-test:"):
            marker = line.split(":", 1)[1].strip()
        elif line.startswith(".. code-block::"):
            body, i = _indented_body(lines, i + 1)
            blocks.append(Block(line.split("::")[1].strip(), body, marker))
            marker = ""
            continue
        elif line.strip() and not line.startswith(" "):
            marker = ""
        i += 1
    return blocks


def _indented_body(lines: list[str], i: int) -> tuple[list[str], int]:
    body = []
    while i < len(lines) and (not lines[i].strip()
                              or lines[i].startswith("    ")):
        body.append(lines[i][4:])
        i += 1
    while body and not body[-1].strip():
        body.pop()
    while body and not body[0].strip():
        body.pop(0)
    return body, i


def commands(block: Block) -> str:
    """The block as a shell script: ``$ `` starts a command, other lines
    continue it (backslash continuations, here-documents)."""
    out = []
    for line in block.lines:
        out.append(line[2:] if line.startswith("$ ") else line)
    return "\n".join(out) + "\n"


def test_guide_is_parsed_as_expected():
    blocks = read_blocks(GUIDE.read_text())
    markers = [b.marker.split()[0] for b in blocks if b.marker]
    assert markers.count("background") == 1
    assert markers.count("expect") >= 2
    assert all(m in ("skip", "background", "expect") for m in markers)


def _link_venv(home: Path) -> None:
    """What the guide's skipped install step makes: ~/ironic/bin with the
    service's and the client's commands (those of the running venv)."""
    bindir = home / "ironic" / "bin"
    bindir.mkdir(parents=True)
    for name in COMMANDS:
        target = Path(sys.prefix) / "bin" / name
        if target.exists():
            (bindir / name).symlink_to(target)


def _wait_for(url: str, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + svc.START_DEADLINE
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the service exited"
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer")


def _run(script: str, env: dict, home: Path) -> str:
    done = subprocess.run(["bash", "-e", "-c", script], env=env, cwd=home,
                          capture_output=True, text=True,
                          timeout=STEP_DEADLINE)
    assert done.returncode == 0, (
        f"guide step failed ({done.returncode}):\n{script}\n"
        f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}")
    return done.stdout


def test_all_in_one_guide(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    _link_venv(home)
    ports = {p: str(svc.free_port()) for p in PORTS}
    env = dict(svc._child_env(), HOME=str(home))
    for name in [k for k in env if k.startswith("OS_")]:
        del env[name]

    def localize(text: str) -> str:
        for old, new in ports.items():
            text = text.replace(old, new)
        return text

    before, background, after, expected = "", None, "", []
    for block in read_blocks(GUIDE.read_text()):
        kind = block.marker.split()[0] if block.marker else ""
        if kind == "skip":
            continue
        if kind == "expect":
            expected += [ln.strip() for ln in block.lines if ln.strip()]
        elif block.language == "console" and kind == "background":
            background = localize(commands(block))
        elif block.language == "console":
            if background is None:
                before += localize(commands(block))
            else:
                after += localize(commands(block))
    assert background is not None

    _run(before, env, home)
    proc = subprocess.Popen(["bash", "-c", f"exec {background}"], env=env,
                            cwd=home, start_new_session=True,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        _wait_for(f"http://127.0.0.1:{ports['6385']}/", proc)
        output = _run(after, env, home)
        for line in expected:
            assert line in output, f"{line!r} not in the output:\n{output}"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            code = proc.wait(svc.STOP_DEADLINE)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail("the service did not stop on SIGTERM")
    assert code == 0
