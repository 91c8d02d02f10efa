#!/usr/bin/env python3
"""A small lab for the all-in-one service: emulated BMCs, enrolled.

Starts IPMI and Redfish BMC emulators on loopback, waits for the API named
in the configuration file, enrolls one node per emulated machine (by name,
so running it again enrolls nothing twice) and keeps the emulators running
until interrupted. Used by tools/run-aio.sh; runs on its own too:

    python tools/aio_lab.py --config-file .aio/ironic.conf --ipmi 2 --redfish 2

The conductor drives IPMI BMCs with ``ipmitool``: without it the IPMI part
of the lab is skipped, saying so (tools/install-system-deps.sh installs
it). ``--describe FILE`` writes where the emulators listen and keep their
state, as JSON, once the nodes are enrolled.
"""

from __future__ import annotations

import argparse
import configparser
import json
import os
import shutil
import signal
import sys
import time
import urllib.error
import urllib.request

from ironic.tests.emulators.launch import IpmiEmulator, RedfishEmulator

HEADERS = {"Content-Type": "application/json",
           "X-OpenStack-Ironic-API-Version": "latest"}


def _api_url(config_file: str) -> str:
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(config_file)
    host = parser.get("api", "host_ip", fallback="127.0.0.1")
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    return f"http://{host}:{parser.get('api', 'port', fallback='6385')}"


def _call(url: str, method: str = "GET", body: dict | list | None = None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers=HEADERS)
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.load(resp) if resp.length != 0 else None


def _wait_for_api(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            _call(f"{url}/v1")
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.5)
    raise SystemExit(f"The API at {url} did not answer in {timeout}s")


def _enroll(url: str, name: str, driver: str, driver_info: dict) -> None:
    try:
        _call(f"{url}/v1/nodes/{name}")
    except urllib.error.HTTPError as e:
        if e.code != 404:
            raise
    else:
        # The emulators listen on new ports each run: point the node there.
        _call(f"{url}/v1/nodes/{name}", "PATCH",
              [{"op": "add", "path": "/driver_info", "value": driver_info}])
        print(f"  {name}: already enrolled, driver_info updated")
        return
    node = _call(f"{url}/v1/nodes", "POST",
                 {"name": name, "driver": driver, "driver_info": driver_info})
    print(f"  {name}: enrolled as {node['uuid']} ({driver})")


def _ipmi_count(wanted: int) -> int:
    if wanted and shutil.which("ipmitool") is None:
        print(f"ipmitool is not installed: skipping the {wanted} emulated "
              f"IPMI BMC(s); install it (tools/install-system-deps.sh) to "
              f"drive IPMI nodes.", flush=True)
        return 0
    return wanted


def _describe(path: str, ipmi, redfish) -> None:
    """What tests and curious users need to look at the emulators."""
    doc = {"ipmi": None if ipmi is None else {
               "address": ipmi.address, "ports": ipmi.ports(),
               "user": ipmi.user, "password": ipmi.password,
               "state_dir": ipmi.state_dir},
           "redfish": None if redfish is None else {
               "url": redfish.url, "systems": redfish.systems(),
               "user": redfish.user, "password": redfish.password,
               "workdir": redfish.workdir}}
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(doc, f)
    os.replace(path + ".tmp", path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config-file", required=True)
    parser.add_argument("--ipmi", type=int, default=2)
    parser.add_argument("--redfish", type=int, default=2)
    parser.add_argument("--api-timeout", type=float, default=120)
    parser.add_argument("--describe", metavar="FILE",
                        help="write the emulators' addresses and state "
                             "directories here (JSON)")
    args = parser.parse_args(argv)
    args.ipmi = _ipmi_count(args.ipmi)

    url = _api_url(args.config_file)
    emulators = []
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    try:
        ipmi = IpmiEmulator(count=args.ipmi).start() if args.ipmi else None
        redfish = RedfishEmulator(count=args.redfish, user="admin",
                                  password="password").start() \
            if args.redfish else None
        emulators = [e for e in (ipmi, redfish) if e]
        _wait_for_api(url, args.api_timeout)
        print(f"Enrolling emulated machines into {url}")
        for i, port in enumerate(ipmi.ports() if ipmi else []):
            _enroll(url, f"lab-ipmi-{i}", "ipmi", {
                "ipmi_address": ipmi.address, "ipmi_port": port,
                "ipmi_username": ipmi.user, "ipmi_password": ipmi.password})
            print(f"    ipmitool -I lanplus -H {ipmi.address} -p {port} "
                  f"-U {ipmi.user} -P {ipmi.password} power status")
        for i, system in enumerate(redfish.systems() if redfish else []):
            _enroll(url, f"lab-redfish-{i}", "redfish", {
                "redfish_address": redfish.url,
                "redfish_system_id": f"/redfish/v1/Systems/{system}",
                "redfish_username": "admin",
                "redfish_password": "password"})
        if redfish:
            print(f"    Redfish emulator: {redfish.url}/redfish/v1 "
                  f"(admin/password)")
        if args.describe:
            _describe(args.describe, ipmi, redfish)
        if ipmi or redfish:
            first = "lab-ipmi-0" if ipmi else "lab-redfish-0"
            print(f"Try: openstack baremetal node power on {first}",
                  flush=True)
        while not stop:
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        for emu in emulators:
            emu.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
