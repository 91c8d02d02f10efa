#!/usr/bin/env bash
# Installs the system binaries the tests drive (ipmitool, dnsmasq, socat) when
# missing. Needs root or sudo; prints what it does.
set -euo pipefail
missing=()
command -v ipmitool >/dev/null 2>&1 || missing+=(ipmitool)
command -v dnsmasq >/dev/null 2>&1 || missing+=(dnsmasq-base)
command -v socat >/dev/null 2>&1 || missing+=(socat)
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
if command -v apt-get >/dev/null 2>&1; then
    echo "Installing ${missing[*]} with apt-get"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
elif command -v dnf >/dev/null 2>&1; then
    $SUDO dnf install -y ipmitool dnsmasq socat
else
    echo "Please install: ${missing[*]}" >&2
    exit 1
fi
