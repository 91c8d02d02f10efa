"""Child processes see the same plugins as the tests."""

import os
import subprocess
import sys

from ironic.tests import entry_points


def test_child_process_loads_our_plugins(tmp_path):
    env = dict(os.environ)
    paths = entry_points.child_pythonpath() + [
        os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(entry_points.__file__))))]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    code = ("import stevedore; print(sorted(stevedore.ExtensionManager("
            "'ironic.hardware.types').names()))")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "fake-hardware" in out.stdout and "example-hw" in out.stdout
