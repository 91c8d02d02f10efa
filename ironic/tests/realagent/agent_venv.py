"""The real agent's own virtualenv, created once and kept.

The agent's dependencies (its own pins of oslo.*, pyudev...) must not mix
with the service's, so it gets a virtualenv of its own: by default
``<repo>/.tox/ipa-agent``, or IRONIC_IPA_VENV. It holds the PyPI
ironic-python-agent (IRONIC_IPA_REQUIREMENT overrides the pin) and the lab
hardware manager of plugin/. A stamp records what was installed, so later
runs only check it.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
PLUGIN = os.path.join(HERE, "plugin")
DEFAULT_REQUIREMENT = "ironic-python-agent==13.0.0"


def venv_path() -> str:
    if "IRONIC_IPA_VENV" in os.environ:
        return os.environ["IRONIC_IPA_VENV"]
    inside = os.path.join(REPO, ".tox", "ipa-agent")
    if os.geteuid() != 0 or open_to_all(inside):
        return inside
    # A checkout in a private directory (or tox's .tox, made 0700): the
    # unprivileged agent could not read a venv there, so it gets one of
    # its own in /var/tmp.
    return os.path.join("/var/tmp", "ironic-ipa-agent")


def _requirement() -> str:
    return os.environ.get("IRONIC_IPA_REQUIREMENT", DEFAULT_REQUIREMENT)


def ensure(path: str | None = None) -> str:
    """The agent's interpreter, installing the virtualenv if needed."""
    path = os.path.abspath(path or venv_path())
    python = os.path.join(path, "bin", "python")
    stamp = os.path.join(path, ".ironic-lab-agent")
    base = _base_python()
    wanted = f"{_requirement()} {base}"
    if os.geteuid() == 0 and not open_to_all(path):
        raise OSError(f"{path} is not readable by the unprivileged user the "
                      f"agent runs as; set IRONIC_IPA_VENV to a directory "
                      f"outside private ones (e.g. /var/tmp/ipa-agent)")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # Tests and lab machines may start at once: one installs, others wait.
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        found = _read(stamp)
        if found == _stamp_text(wanted):
            return python
        if found is not None and base not in found:
            # Ours, made from another interpreter: make it again. A
            # virtualenv without the stamp is the user's: only added to.
            shutil.rmtree(path)
        if not os.path.exists(python):
            subprocess.run([base, "-m", "venv", path], check=True)
        pip = [python, "-m", "pip", "install", "-q",
               "--disable-pip-version-check"]
        subprocess.run(pip + [_requirement()], check=True)
        # Built from a copy, so that no build files land in the checkout.
        with tempfile.TemporaryDirectory() as tmp:
            copy = shutil.copytree(PLUGIN, os.path.join(tmp, "plugin"))
            subprocess.run(pip + ["--force-reinstall",
                                  "--no-deps", copy], check=True)
        with open(stamp, "w", encoding="utf-8") as f:
            f.write(_stamp_text(wanted))
    return python


def _stamp_text(requirement: str) -> str:
    digest = hashlib.sha256()
    for name in sorted(os.listdir(PLUGIN)):
        with open(os.path.join(PLUGIN, name), "rb") as f:
            digest.update(f.read())
    return f"{requirement} {digest.hexdigest()[:16]}\n"


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


def open_to_all(path: str) -> bool:
    """Whether every existing directory above ``path`` lets others in."""
    path = os.path.realpath(path)
    while True:
        if os.path.exists(path) and not os.stat(path).st_mode & 0o001:
            return False
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent


def _base_python() -> str:
    """An interpreter outside any virtualenv whose standard library the
    agent can read: under root the agent runs unprivileged, so one
    installed in a private home (pyenv in /root) will not do."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    if os.geteuid() != 0 or open_to_all(sys.base_prefix):
        return base
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.exists(candidate):
            return candidate
    raise OSError(f"no Python readable by everyone to run the agent with "
                  f"({sys.base_prefix} is private)")


if __name__ == "__main__":
    print(ensure())
