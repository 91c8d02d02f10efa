#!/usr/bin/env bash
# Runs the all-in-one Bare Metal service on embedded defaults: sqlite,
# in-process RPC, no authentication, listening on 127.0.0.1:6385.
#
# Needs only python3. On first use it creates .venv/ with the project and
# its dependencies installed (editable, so source changes apply on restart)
# and writes the configuration from etc/ironic/ironic-aio.conf into the
# state directory. Extra arguments are passed to the `ironic` command.
#
# Environment:
#   IRONIC_AIO_STATE  state directory (default: <repo>/.aio)
#   IRONIC_VENV       virtualenv to use or create (default: <repo>/.venv)
#   PYTHON            interpreter used to create the venv (default: python3)
#   IRONIC_AIO_LAB    emulated IPMI and Redfish BMCs to enroll, e.g. "2,2"
#                     (default); "0" runs the service alone
#   IRONIC_AIO_AGENT  "1": powering an IPMI lab machine on boots the
#                     emulated agent ramdisk (loopback only); "real": it
#                     boots the real ironic-python-agent from PyPI, fenced
#                     off this host, whose disk is a file in the state
#                     directory (needs udev, lshw: install-system-deps.sh)
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
STATE="${IRONIC_AIO_STATE:-$REPO/.aio}"
VENV="${IRONIC_VENV:-$REPO/.venv}"
PYTHON="${PYTHON:-python3}"
CONF="$STATE/ironic.conf"

ensure_venv() {
    local stamp="$VENV/.ironic-installed"
    if [ ! -x "$VENV/bin/python" ]; then
        echo "Creating $VENV"
        "$PYTHON" -m venv "$VENV"
    fi
    # Reinstall only when the dependencies or entry points changed, so
    # a restart is quick.
    if [ ! -f "$stamp" ] || [ "$REPO/requirements.txt" -nt "$stamp" ] \
            || [ "$REPO/setup.cfg" -nt "$stamp" ]; then
        echo "Installing the service and its dependencies into $VENV"
        "$VENV/bin/pip" install -q --upgrade pip
        "$VENV/bin/pip" install -q -r "$REPO/requirements.txt"
        # The BMC emulators of the lab (tools/aio_lab.py).
        "$VENV/bin/pip" install -q "sushy-tools>=1.0.0"
        "$VENV/bin/pip" install -q --no-deps -e "$REPO"
        touch "$stamp"
    fi
}

ensure_config() {
    mkdir -p "$STATE"
    if [ ! -f "$CONF" ]; then
        # '|' as sed delimiter: the path contains slashes.
        sed "s|@STATE_PATH@|$STATE|" "$REPO/etc/ironic/ironic-aio.conf" \
            > "$CONF"
        echo "Wrote $CONF"
    fi
}

# The IPMI lab nodes are driven with ipmitool: install it when this user
# may (root, or sudo without a password); otherwise aio_lab.py skips the
# IPMI BMCs and says why.
ensure_ipmitool() {
    command -v ipmitool >/dev/null 2>&1 && return 0
    if [ "$(id -u)" -eq 0 ] || sudo -n true 2>/dev/null; then
        echo "ipmitool is missing: installing it for the IPMI lab nodes"
        "$REPO/tools/install-system-deps.sh" \
            || echo "Could not install ipmitool; the IPMI lab is skipped" >&2
    fi
}

ensure_venv
ensure_config
LAB="${IRONIC_AIO_LAB:-2,2}"
if [ "$LAB" != "0" ] && [ "${LAB%%,*}" != "0" ]; then
    ensure_ipmitool
fi
if [ "$LAB" = "0" ]; then
    echo "Starting the all-in-one service with $CONF; Ctrl-C stops it"
    exec "$VENV/bin/ironic" --config-file "$CONF" "$@"
fi
echo "Starting the all-in-one service with $CONF and emulated BMCs;" \
     "Ctrl-C stops both"
"$VENV/bin/ironic" --config-file "$CONF" "$@" &
SERVICE=$!
"$VENV/bin/python" "$REPO/tools/aio_lab.py" --config-file "$CONF" \
    --ipmi "${LAB%%,*}" --redfish "${LAB##*,}" \
    ${IRONIC_AIO_AGENT:+$(case "$IRONIC_AIO_AGENT" in
        1) echo --agent ;; real) echo --agent real ;; esac)} &
LAB_PID=$!
# Both run in the background and the script waits: bash runs a trap only
# once its foreground command ends, so a SIGTERM sent to this script (not
# Ctrl-C, which reaches every process) would otherwise stop nothing.
trap 'kill $SERVICE $LAB_PID 2>/dev/null; wait 2>/dev/null' EXIT INT TERM
wait -n $SERVICE $LAB_PID
