#!/usr/bin/env python3
"""Seconds one power state sync cycle takes over emulated BMCs, from outside.

Works against any Bare Metal API endpoint (ours or the real Ironic) over
plain HTTP; the emulated BMCs are the project's own
(``ironic/tests/emulators``), started by the ``lab`` command and shared by
both services so they are measured on the very same BMCs::

    python tools/bench/power_sync_bench.py lab --redfish 16x50 \\
        --ipmi 4x50 --out lab.json          # keeps running; Ctrl-C stops
    python tools/bench/power_sync_bench.py run --lab lab.json \\
        --url http://127.0.0.1:6395 --label ours --json-out ours.json

``run`` enrolls one node per emulated machine (redfish system or IPMI
port), moves them to ``manageable``, waits for a first quiet sync, then
flips every machine's power behind the service's back (straight on the
emulators) and polls ``GET /v1/nodes?fields=uuid,power_state`` until every
node shows the new state. With ``[conductor]force_power_state_during_sync
= false`` the service records what it finds, so the time between the first
and the last node changing is how long the service took to walk all BMCs:
the cycle's length. Done ``--flips`` times (on, off, ...); the median is
kept. The service's CPU time during the cycles comes from ``--pid``.

Both services need ``[conductor] force_power_state_during_sync = false``
and the same ``sync_power_state_interval`` and ``sync_power_state_workers``
(see RESULTS.md for the full configuration used).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
HEADERS = {"X-OpenStack-Ironic-API-Version": "1.31",
           "Content-Type": "application/json"}


# ---------------------------------------------------------------------------
# lab: the emulators

def _spec(text: str) -> tuple[int, int]:
    emulators, per = text.lower().split("x")
    return int(emulators), int(per)


def cmd_lab(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(ROOT))
    from ironic.tests.emulators.launch import IpmiEmulator, RedfishEmulator
    emus: list = []
    machines: list[dict] = []
    try:
        count, per = _spec(args.redfish)
        for _ in range(count):
            emu = RedfishEmulator(count=per).start()
            emus.append(emu)
            machines += [{"kind": "redfish", "url": emu.url,
                          "system": system} for system in emu.systems()]
        count, per = _spec(args.ipmi)
        for _ in range(count):
            emu = IpmiEmulator(count=per).start()
            emus.append(emu)
            machines += [{"kind": "ipmi", "address": emu.address,
                          "port": port, "user": emu.user,
                          "password": emu.password} for port in emu.ports()]
        Path(args.out).write_text(json.dumps({"machines": machines}))
        print(f"READY {len(machines)} machines on {len(emus)} emulators "
              f"-> {args.out}", flush=True)
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *a: stop.set())
        signal.signal(signal.SIGINT, lambda *a: stop.set())
        stop.wait()
    finally:
        for emu in emus:
            emu.stop()
    return 0


def _flip(machine: dict, state: str, session: requests.Session) -> None:
    if machine["kind"] == "redfish":
        reset = "On" if state == "power on" else "ForceOff"
        url = (f"{machine['url']}/redfish/v1/Systems/{machine['system']}"
               f"/Actions/ComputerSystem.Reset")
        session.post(url, json={"ResetType": reset},
                     timeout=30).raise_for_status()
    else:
        # The BMC may be busy answering the service: try a few times.
        for attempt in range(5):
            done = subprocess.run(
                ["ipmitool", "-I", "lanplus", "-H", machine["address"],
                 "-p", str(machine["port"]), "-U", machine["user"], "-P",
                 machine["password"], "power",
                 "on" if state == "power on" else "off"],
                capture_output=True, timeout=30)
            if done.returncode == 0:
                return
            time.sleep(0.5 * (attempt + 1))
        raise RuntimeError(f"ipmitool power {state} failed on port "
                           f"{machine['port']}: {done.stderr!r}")


def _driver_fields(machine: dict) -> dict:
    if machine["kind"] == "redfish":
        return {"driver": "redfish", "power_interface": "redfish",
                "management_interface": "redfish",
                "driver_info": {
                    "redfish_address": machine["url"],
                    "redfish_system_id":
                        f"/redfish/v1/Systems/{machine['system']}"}}
    return {"driver": "ipmi", "power_interface": "ipmitool",
            "management_interface": "ipmitool",
            "driver_info": {"ipmi_address": machine["address"],
                            "ipmi_port": machine["port"],
                            "ipmi_username": machine["user"],
                            "ipmi_password": machine["password"]}}


# ---------------------------------------------------------------------------
# run: enroll, then measure cycles

class Api:
    def __init__(self, url: str):
        self.url = url.rstrip("/")
        self._local = threading.local()

    @property
    def session(self) -> requests.Session:
        if not hasattr(self._local, "session"):
            self._local.session = requests.Session()
            self._local.session.headers.update(HEADERS)
        return self._local.session

    def call(self, method: str, path: str, **kwargs) -> requests.Response:
        for _attempt in range(20):
            resp = self.session.request(method, self.url + path,
                                        timeout=120, **kwargs)
            if resp.status_code not in (409, 503):
                return resp
            time.sleep(0.5)
        return resp

    def power_states(self) -> dict[str, str | None]:
        states: dict[str, str | None] = {}
        path = "/v1/nodes?fields=uuid,power_state,provision_state&limit=1000"
        while path:
            doc = self.call("GET", path).json()
            for node in doc["nodes"]:
                states[node["uuid"]] = (node["power_state"],
                                        node["provision_state"])
            nxt = doc.get("next")
            path = nxt[len(self.url):] if nxt else None
        return states


def _enroll(api: Api, machines: list[dict], workers: int) -> list[str]:
    def one(index_machine):
        index, machine = index_machine
        body = {"name": f"psync-{index}", **_driver_fields(machine)}
        resp = api.call("POST", "/v1/nodes", json=body)
        if resp.status_code != 201:
            raise RuntimeError(f"create failed: {resp.status_code} "
                               f"{resp.text[:300]}")
        uuid = resp.json()["uuid"]
        resp = api.call("PUT", f"/v1/nodes/{uuid}/states/provision",
                        json={"target": "manage"})
        if resp.status_code != 202:
            raise RuntimeError(f"manage failed: {resp.status_code} "
                               f"{resp.text[:300]}")
        return uuid
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(one, enumerate(machines)))


def _seed_sqlite(path: str, template_uuid: str, machines: list[dict],
                 first_index: int) -> list[str]:
    """Clone an enrolled, manageable node's row once per machine straight
    into the service's sqlite file: enrolling 1,000 nodes through the
    real Ironic's API takes over an hour on a loaded 2-core machine, and
    the sync cycle, not enrollment, is what is measured here."""
    import sqlite3
    import uuid as uuidlib
    db = sqlite3.connect(path, timeout=60)
    db.row_factory = sqlite3.Row
    row = dict(db.execute("SELECT * FROM nodes WHERE uuid = ?",
                          (template_uuid,)).fetchone())
    row.pop("id")
    uuids = []
    for index, machine in enumerate(machines, start=first_index):
        fields = _driver_fields(machine)
        new = dict(row, uuid=str(uuidlib.uuid4()), name=f"psync-{index}",
                   driver=fields["driver"],
                   power_interface=fields["power_interface"],
                   management_interface=fields["management_interface"],
                   driver_info=json.dumps(fields["driver_info"]),
                   reservation=None)
        cols = ", ".join(new)
        marks = ", ".join("?" for _ in new)
        db.execute(f"INSERT INTO nodes ({cols}) VALUES ({marks})",
                   list(new.values()))
        uuids.append(new["uuid"])
    db.commit()
    db.close()
    return uuids


def _wait(api: Api, uuids: set[str], predicate, limit: float,
          poll: float) -> dict[str, float]:
    """Poll until predicate(power, provision) holds for every node; the
    time each node first satisfied it."""
    seen: dict[str, float] = {}
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        now = time.monotonic()
        for uuid, (power, provision) in api.power_states().items():
            if uuid in uuids and uuid not in seen and \
                    predicate(power, provision):
                seen[uuid] = now
        if len(seen) == len(uuids):
            return seen
        time.sleep(poll)
    missing = len(uuids) - len(seen)
    raise TimeoutError(f"{missing} nodes not there after {limit} s")


def _cpu_seconds(pid: int | None) -> float | None:
    if not pid:
        return None
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    pids = [pid]
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text()
        pids += [int(p) for p in children.split()]
    except OSError:
        pass
    for p in pids:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1]
            values = fields.split()
            total += (int(values[11]) + int(values[12])) / tick
        except (OSError, IndexError, ValueError):
            continue
    return total


def cmd_run(args: argparse.Namespace) -> int:
    machines = json.loads(Path(args.lab).read_text())["machines"]
    if args.nodes:
        machines = machines[:args.nodes]
    api = Api(args.url)
    # Every machine starts powered off, whatever an earlier run left.
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda m: _flip(m, "power off", requests), machines))
    started = time.monotonic()
    if args.seed_sqlite:
        # One node through the API (the template), the rest cloned.
        uuids = _enroll(api, machines[:1], 1)
        _wait(api, set(uuids), lambda power, prov: prov == "manageable",
              args.limit, args.poll)
        uuids += _seed_sqlite(args.seed_sqlite, uuids[0], machines[1:], 1)
    else:
        uuids = _enroll(api, machines, args.concurrency)
    enroll_s = time.monotonic() - started
    by_uuid = dict(zip(uuids, machines, strict=True))
    wanted = set(uuids)
    print(f"enrolled {len(uuids)} nodes in {enroll_s:.1f} s", flush=True)
    _wait(api, wanted, lambda power, prov: prov == "manageable" and
          power == "power off", args.limit, args.poll)
    print("all manageable and power off", flush=True)

    cycles = []
    flip_session = requests.Session()
    state = "power off"
    for _ in range(args.flips):
        state = "power on" if state == "power off" else "power off"
        with ThreadPoolExecutor(16) as pool:
            list(pool.map(lambda m, s=state: _flip(m, s, flip_session),
                          machines))
        flipped = time.monotonic()
        cpu_before = _cpu_seconds(args.pid)
        seen = _wait(api, wanted, lambda power, prov, s=state: power == s,
                     args.limit, args.poll)
        cpu_after = _cpu_seconds(args.pid)
        first, last = min(seen.values()), max(seen.values())
        cycle = {"flip": state, "walk_s": round(last - first, 2),
                 "flip_to_all_s": round(last - flipped, 2),
                 "nodes_per_s": round(len(seen) / max(last - first, 1e-3),
                                      1)}
        if cpu_before is not None and cpu_after is not None:
            cycle["service_cpu_s"] = round(cpu_after - cpu_before, 2)
        kinds = {}
        for uuid, when in seen.items():
            kinds.setdefault(by_uuid[uuid]["kind"], []).append(when)
        cycle["walk_s_by_kind"] = {k: round(max(v) - min(v), 2)
                                   for k, v in kinds.items()}
        cycles.append(cycle)
        print(json.dumps(cycle), flush=True)
    result = {"label": args.label, "url": args.url, "nodes": len(uuids),
              "enroll_s": round(enroll_s, 1), "cycles": cycles,
              "median_walk_s": statistics.median(c["walk_s"]
                                                 for c in cycles)}
    if args.cleanup:
        with ThreadPoolExecutor(args.concurrency) as pool:
            list(pool.map(lambda u: api.call("DELETE", f"/v1/nodes/{u}"),
                          uuids))
    line = json.dumps(result)
    print(line)
    if args.json_out:
        Path(args.json_out).write_text(line + "\n")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    lab = sub.add_parser("lab", help="start the emulated BMCs")
    lab.add_argument("--redfish", default="16x50",
                     help="EMULATORSxSYSTEMS (default 16x50)")
    lab.add_argument("--ipmi", default="4x50",
                     help="EMULATORSxBMCS (default 4x50)")
    lab.add_argument("--out", default="lab.json")
    run = sub.add_parser("run", help="enroll and measure sync cycles")
    run.add_argument("--lab", default="lab.json")
    run.add_argument("--url", required=True)
    run.add_argument("--label", default="service")
    run.add_argument("--nodes", type=int, default=0,
                     help="use only the first N machines")
    run.add_argument("--flips", type=int, default=3)
    run.add_argument("--concurrency", type=int, default=8)
    run.add_argument("--poll", type=float, default=0.25)
    run.add_argument("--limit", type=float, default=900)
    run.add_argument("--pid", type=int)
    run.add_argument("--cleanup", action="store_true")
    run.add_argument("--json-out")
    run.add_argument("--seed-sqlite", metavar="FILE",
                     help="enroll one node through the API and clone it "
                          "for the other machines into this sqlite file")
    args = parser.parse_args()
    return cmd_lab(args) if args.command == "lab" else cmd_run(args)


if __name__ == "__main__":
    sys.exit(main())
