#!/usr/bin/env python3
"""A small lab for the all-in-one service: emulated BMCs, enrolled.

Starts IPMI and Redfish BMC emulators on loopback, waits for the API named
in the configuration file, enrolls one node per emulated machine (by name,
so running it again enrolls nothing twice) and keeps the emulators running
until interrupted. Used by tools/run-aio.sh; runs on its own too:

    python tools/aio_lab.py --config-file .aio/ironic.conf --ipmi 2 --redfish 2

The lab keeps its machines: the emulators' state (power, boot device,
BIOS settings...) and their ports live under ``--state-dir`` (by default
``lab/`` next to the configuration file, i.e. in the service's state
directory), so a restart finds the same machines where the enrolled nodes
point. Nodes of machines the current run does not emulate (fewer BMCs than
last time) are put in maintenance, saying why, and taken out again when
their machine is back. Nothing is left in /tmp.

``--agent`` makes the IPMI machines boot an agent ramdisk: powering one on
starts the emulated agent (``ironic.tests.emulators.agent``, loopback only,
touching nothing of the host), powering it off stops it; each lab-ipmi
node gets a port with its machine's MAC so the agent finds its node.
``--agent real`` boots the real ironic-python-agent from PyPI instead
(``ironic.tests.realagent``: its own virtualenv, installed on first use,
fenced off the host), whose only disk is the file
``real-agent/machine-<port>/disk.img`` in the lab's state directory.

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
import socket
import sys
import time
import urllib.error
import urllib.request

from ironic.tests.emulators.ipmi_bmc import machine_mac
from ironic.tests.emulators.launch import (
    IpmiEmulator,
    RedfishEmulator,
    free_tcp_port,
    free_udp_ports,
)

#: The maintenance reason of lab nodes whose machine is not emulated.
NOT_EMULATED = "lab: this machine is not emulated in this run (IRONIC_AIO_LAB)"

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


def _load_ports(state_dir: str) -> dict:
    try:
        with open(os.path.join(state_dir, "lab.json"),
                  encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _save_ports(state_dir: str, ports: dict) -> None:
    path = os.path.join(state_dir, "lab.json")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(ports, f)
    os.replace(path + ".tmp", path)


def _free(kind: int, port: int, address: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, kind) as probe:
        try:
            probe.bind((address, port))
        except OSError:
            return False
    return True


def ipmi_base_port(saved: int | None, count: int) -> int:
    """The ports of last time when all are free, else new ones."""
    if saved and all(_free(socket.SOCK_DGRAM, saved + i)
                     for i in range(count)):
        return saved
    return free_udp_ports(count)


def redfish_port(saved: int | None) -> int:
    if saved and _free(socket.SOCK_STREAM, saved):
        return saved
    return free_tcp_port()


def _mark_emulated(url: str, prefix: str, count: int) -> None:
    """Maintenance for lab nodes past ``count``, none for the others when
    the lab had put them there."""
    nodes = _call(f"{url}/v1/nodes?fields=name,maintenance,"
                  f"maintenance_reason")["nodes"]
    for node in nodes:
        name = node.get("name") or ""
        if not name.startswith(prefix):
            continue
        try:
            index = int(name[len(prefix):])
        except ValueError:
            continue
        ours = node.get("maintenance_reason") == NOT_EMULATED
        if index >= count and not node.get("maintenance"):
            _call(f"{url}/v1/nodes/{name}/maintenance", "PUT",
                  {"reason": NOT_EMULATED})
            print(f"  {name}: not emulated in this run, put in maintenance")
        elif index < count and node.get("maintenance") and ours:
            _call(f"{url}/v1/nodes/{name}/maintenance", "DELETE")
            print(f"  {name}: emulated again, maintenance ended")


def _openstack_cli() -> str | None:
    """The openstack command when the baremetal plugin is installed (in
    PATH or next to this interpreter)."""
    here = os.path.join(os.path.dirname(sys.executable), "openstack")
    for candidate in (shutil.which("openstack"), here):
        if candidate and os.access(candidate, os.X_OK):
            try:
                import ironicclient  # noqa: F401 - the baremetal commands
            except ImportError:
                if candidate != here:
                    return candidate
                continue
            return candidate
    return None


def hints(url: str, name: str) -> list[str]:
    """Commands that work when pasted as printed."""
    cli = _openstack_cli()
    if cli:
        return ["Try (no authentication in the all-in-one service):",
                f"    export OS_ENDPOINT={url} OS_AUTH_TYPE=none",
                f"    {cli} baremetal node power on {name}"]
    return ["Try (the openstack client is not installed: pip install "
            "python-openstackclient python-ironicclient):",
            f"    curl -s -X PUT -H 'Content-Type: application/json' "
            f"-H 'X-OpenStack-Ironic-API-Version: latest' "
            f"-d '{{\"target\": \"power on\"}}' "
            f"{url}/v1/nodes/{name}/states/power",
            f"    curl -s -H 'X-OpenStack-Ironic-API-Version: latest' "
            f"{url}/v1/nodes/{name}"]


def _ensure_port(url: str, name: str, mac: str) -> None:
    try:
        _call(f"{url}/v1/ports/detail?address={mac}")["ports"][0]
        return
    except (IndexError, KeyError):
        pass
    node = _call(f"{url}/v1/nodes/{name}")
    _call(f"{url}/v1/ports", "POST", {"address": mac,
                                      "node_uuid": node["uuid"]})
    print(f"  {name}: port {mac} (its agent's NIC)")


def _real_agent_machines(url: str, state_dir: str, base_port: int,
                         count: int, disk_mib: int) -> str:
    """Prepare the real agent and each machine's file disk; the command
    the BMCs run at power on."""
    from ironic.tests.realagent import agent_venv, launch
    print("Preparing the real ironic-python-agent (installed once into "
          f"{agent_venv.venv_path()})", flush=True)
    agent_venv.ensure()
    machines = os.path.join(state_dir, "real-agent")
    for port in range(base_port, base_port + count):
        disk = launch.prepare_machine(
            os.path.join(machines, f"machine-{port}"), disk_mib << 20)
        print(f"  machine on BMC port {port}: disk {disk}")
    # {port}: ipmi_bmc puts the machine's BMC port there. The inspection
    # URL: every boot first offers inspection data, which the service
    # takes only from a node being inspected (no PXE to tell them apart).
    return (f"{sys.executable} -m ironic.tests.realagent.launch --api {url} "
            f"--mac {{mac}} --disk {machines}/machine-{{port}}/disk.img "
            f"--inspection-url {url}/v1/continue_inspection")


def _ipmi_count(wanted: int) -> int:
    if wanted and shutil.which("ipmitool") is None:
        print(f"ipmitool is not installed: skipping the {wanted} emulated "
              f"IPMI BMC(s); install it (tools/install-system-deps.sh) to "
              f"drive IPMI nodes.", flush=True)
        return 0
    return wanted


def _describe(path: str, ipmi, redfish, hint: list[str]) -> None:
    """What tests and curious users need to look at the emulators."""
    doc = {"ipmi": None if ipmi is None else {
               "address": ipmi.address, "ports": ipmi.ports(),
               "user": ipmi.user, "password": ipmi.password,
               "state_dir": ipmi.state_dir},
           "redfish": None if redfish is None else {
               "url": redfish.url, "systems": redfish.systems(),
               "user": redfish.user, "password": redfish.password,
               "workdir": redfish.workdir},
           "hints": hint}
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(doc, f)
    os.replace(path + ".tmp", path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config-file", required=True)
    parser.add_argument("--ipmi", type=int, default=2)
    parser.add_argument("--redfish", type=int, default=2)
    parser.add_argument("--api-timeout", type=float, default=120)
    parser.add_argument("--agent", nargs="?", const="emulated",
                        choices=["emulated", "real"],
                        help="IPMI machines boot the emulated agent (or "
                             "the real ironic-python-agent) when powered "
                             "on")
    parser.add_argument("--disk-size", type=int, default=8192,
                        help="MiB of each real-agent machine's file disk "
                             "(sparse; the agent wants 4 GiB for a root "
                             "disk)")
    parser.add_argument("--state-dir",
                        help="where the machines and their ports are kept "
                             "(default: lab/ next to the config file)")
    parser.add_argument("--describe", metavar="FILE",
                        help="write the emulators' addresses and state "
                             "directories here (JSON)")
    args = parser.parse_args(argv)
    args.ipmi = _ipmi_count(args.ipmi)

    url = _api_url(args.config_file)
    state_dir = args.state_dir or os.path.join(
        os.path.dirname(os.path.abspath(args.config_file)), "lab")
    os.makedirs(state_dir, exist_ok=True)
    saved = _load_ports(state_dir)
    emulators = []
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    try:
        base_port = ipmi_base_port(saved.get("ipmi_base_port"), args.ipmi)
        # {mac}: the machine's NIC (ipmi_bmc.machine_mac of its port).
        machine_cmd = (f"{sys.executable} -m ironic.tests.emulators.agent "
                       f"--api {url} --mac {{mac}}" if args.agent else None)
        if args.agent == "real" and args.ipmi:
            machine_cmd = _real_agent_machines(
                url, state_dir, base_port, args.ipmi, args.disk_size)
        ipmi = IpmiEmulator(
            count=args.ipmi, state_dir=os.path.join(state_dir, "ipmi"),
            base_port=base_port, machine_cmd=machine_cmd).start() \
            if args.ipmi else None
        redfish = RedfishEmulator(
            count=args.redfish, user="admin", password="password",
            workdir=os.path.join(state_dir, "redfish"),
            port=redfish_port(saved.get("redfish_port"))).start() \
            if args.redfish else None
        emulators = [e for e in (ipmi, redfish) if e]
        _save_ports(state_dir, {
            "ipmi_base_port": ipmi.base_port if ipmi
            else saved.get("ipmi_base_port"),
            "redfish_port": redfish.port if redfish
            else saved.get("redfish_port")})
        _wait_for_api(url, args.api_timeout)
        print(f"Enrolling emulated machines into {url} (machines kept in "
              f"{state_dir})")
        for i, port in enumerate(ipmi.ports() if ipmi else []):
            _enroll(url, f"lab-ipmi-{i}", "ipmi", {
                "ipmi_address": ipmi.address, "ipmi_port": port,
                "ipmi_username": ipmi.user, "ipmi_password": ipmi.password})
            print(f"    ipmitool -I lanplus -H {ipmi.address} -p {port} "
                  f"-U {ipmi.user} -P {ipmi.password} power status")
            if args.agent:
                _ensure_port(url, f"lab-ipmi-{i}", machine_mac(port))
        for i, system in enumerate(redfish.systems() if redfish else []):
            _enroll(url, f"lab-redfish-{i}", "redfish", {
                "redfish_address": redfish.url,
                "redfish_system_id": f"/redfish/v1/Systems/{system}",
                "redfish_username": "admin",
                "redfish_password": "password"})
        if redfish:
            print(f"    Redfish emulator: {redfish.url}/redfish/v1 "
                  f"(admin/password)")
        _mark_emulated(url, "lab-ipmi-", args.ipmi)
        _mark_emulated(url, "lab-redfish-", args.redfish)
        hint = hints(url, "lab-ipmi-0" if ipmi else "lab-redfish-0") \
            if ipmi or redfish else []
        if args.describe:
            _describe(args.describe, ipmi, redfish, hint)
        if hint:
            print("\n".join(hint), flush=True)
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
