#!/usr/bin/env bash
# The test command of the README and of CI (.ci/run): installs the system
# tools the tests drive, bootstraps tox, then runs ruff, the "tests" env
# (unit, functional and integration suites in one venv) and the "scenario"
# env (separate API and conductor processes, 300 nodes, a conductor killed
# and one stopped). TOX_ENVS picks other envs (e.g. TOX_ENVS=py3); further
# arguments go to tox.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-system-deps.sh

BOOT=.tox-bootstrap
if [ ! -x "$BOOT/bin/tox" ]; then
    python3 -m venv "$BOOT"
    "$BOOT/bin/pip" install -q --upgrade pip
    "$BOOT/bin/pip" install -q "tox>=4.11"
fi
exec "$BOOT/bin/tox" -e "${TOX_ENVS:-ruff,tests,scenario}" "$@"
