#!/usr/bin/env python3
"""The real agent in the lab: first heartbeat, and a raw deploy against dd.

The all-in-one service and one lab machine whose emulated IPMI BMC starts
the real, unmodified ironic-python-agent (PyPI, its own virtualenv and
fences: ironic.tests.realagent) at power on, with a file-backed disk, as
ironic/tests/functional/test_real_agent.py runs them. Then:

1. ``--boots`` times: power the manageable node on through the API
   (``[api]restrict_lookup = false``) and time until the service records
   the agent's first heartbeat (``driver_internal_info/
   agent_last_heartbeat``); power off between samples.
2. ``--deploys`` times: deploy a raw whole-disk image of ``--size-mib``
   MiB (an MBR with one partition, then data) from a loopback HTTP
   server, with its SHA-256, through the ``direct`` deploy interface (the
   agent streams it onto the disk): the time from the ``active`` request
   to ``active``, the agent's own "Image streamed onto device ... in X
   seconds", and, for the same bytes on the same file system,
   ``dd bs=1M conv=fsync`` and ``curl -o`` from the same server. The disk
   is checked against the image's hash after each deploy.

The machine's directory (its disk, the agent's configuration) is under
the system's temporary directory, where the unprivileged agent can write,
and is removed at the end.

    PYTHONPATH=$PWD .tox/tests/bin/python \
        tools/bench/real_agent_deploy_bench.py --boots 10 --deploys 3

It imports the functional tests' lab modules (pytest and the test
requirements must be installed). The image server prints a reset
connection once per deploy: the conductor's reachability check, which
closes its GET after the headers.

The last line printed is the JSON result.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))

from ironic.tests import entry_points  # noqa: E402
from ironic.tests.emulators import launch as emulators  # noqa: E402
from ironic.tests.emulators.ipmi_bmc import machine_mac  # noqa: E402
from ironic.tests.functional import conftest as fconf  # noqa: E402
from ironic.tests.functional import service as svc  # noqa: E402
from ironic.tests.functional import test_real_agent as real  # noqa: E402
from ironic.tests.functional.test_network_boot import _Server  # noqa: E402
from ironic.tests.realagent import agent_venv, launch  # noqa: E402

MIB = 1024 * 1024
STREAMED = re.compile(r"Image streamed onto device (\S+) in ([0-9.]+) "
                      r"seconds for (\d+) bytes")


def _until(check, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not reached in {timeout} s")
        time.sleep(0.05)


def _load() -> float:
    return os.getloadavg()[0]


def _timed_cmd(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - start


def _sha256(path: str, size: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        left = size
        while left:
            chunk = f.read(min(left, 4 * MIB))
            if not chunk:
                break
            digest.update(chunk)
            left -= len(chunk)
    return digest.hexdigest()


def _stats(samples: list[float]) -> dict:
    return {"p50": round(statistics.median(samples), 3),
            "min": round(min(samples), 3), "max": round(max(samples), 3)}


class Bench:
    def __init__(self, conn, bmc, node_id: str, disk: str) -> None:
        self.conn = conn
        self.bmc = bmc
        self.node_id = node_id
        self.disk = disk

    def _node(self):
        return self.conn.baremetal.get_node(self.node_id)

    def _state(self, *wanted: str, timeout: float):
        def check():
            node = self._node()
            if node.provision_state in wanted and node.reservation is None:
                return node
            return None
        try:
            return _until(check, timeout, f"provision state {wanted}")
        except TimeoutError:
            print(real._agent_log(self.bmc)[-8000:], file=sys.stderr)
            raise

    def boot(self) -> float:
        """Power on to the agent's first heartbeat, then power off."""
        start = time.perf_counter()
        self.conn.baremetal.set_node_power_state(self.node_id, "power on")
        _until(lambda: self._node().driver_internal_info.get(
            "agent_last_heartbeat"), 180, "first heartbeat")
        took = time.perf_counter() - start
        self.conn.baremetal.set_node_power_state(self.node_id, "power off")
        _until(lambda: (lambda n: n.power_state == "power off"
                        and not n.driver_internal_info.get(
                            "agent_last_heartbeat"))(self._node()),
               60, "power off")
        return took

    def deploy(self, url: str, checksum: str, size: int) -> dict:
        """One deploy of the image; the disk is made anew (sparse)."""
        launch.make_disk(self.disk, size + 64 * MIB)
        self.conn.baremetal.patch_node(self.node_id, [
            {"op": "add", "path": "/instance_info", "value": {
                "image_source": url, "image_disk_format": "raw",
                "image_os_hash_algo": "sha256",
                "image_os_hash_value": checksum}},
            # BIOS: no boot loader to install (refused in the lab).
            {"op": "add", "path": "/properties/capabilities",
             "value": "boot_mode:bios"}])
        load = _load()
        seen = len(real._agent_log(self.bmc))
        start = time.perf_counter()
        self.conn.baremetal.set_node_provision_state(self.node_id, "active")
        done, phases = self._watch(start, "active", "deploy failed",
                                   timeout=900)
        took = time.perf_counter() - start
        if done.provision_state != "active":
            raise RuntimeError(f"deploy failed: {done.last_error}")
        log = real._agent_log(self.bmc)[seen:]
        found = STREAMED.findall(log)
        device, streamed, written = found[-1]
        if device != self.disk or int(written) != size:
            raise RuntimeError(f"the agent wrote {written} bytes to "
                               f"{device}")
        same = _sha256(self.disk, size) == checksum
        self.conn.baremetal.set_node_provision_state(self.node_id,
                                                     "deleted")
        self._state("available", timeout=300)
        return {"deploy_s": took, "agent_stream_s": float(streamed),
                "disk_matches_image": same, "load1": (load + _load()) / 2,
                **_agent_phases(log), "phases": phases}

    def _watch(self, start: float, *wanted: str, timeout: float):
        """Wait for a provision state, noting when the provision and power
        states changed (seconds after ``start``): where a deploy's time
        goes."""
        phases: list[list] = []
        deadline = time.monotonic() + timeout
        while True:
            node = self._node()
            seen = [node.provision_state, node.power_state]
            if not phases or phases[-1][1:] != seen:
                phases.append([round(time.perf_counter() - start, 2),
                               *seen])
            if node.provision_state in wanted and node.reservation is None:
                return node, phases
            if time.monotonic() > deadline:
                print(real._agent_log(self.bmc)[-8000:], file=sys.stderr)
                raise TimeoutError(f"{wanted} not reached: {phases}")
            time.sleep(0.05)


def _stamp(line: str) -> float:
    """Seconds of an agent log line's time of day."""
    clock = line[11:23]
    hours, minutes, seconds = clock.split(":")
    return int(hours) * 3600 + int(minutes) * 60 + float(seconds)


def _agent_phases(log: str) -> dict:
    """From the agent's log of one deploy: how long it spent after the
    stream until its write step ended (partition probes), and until the
    heartbeat that told the service."""
    lines = log.splitlines()

    def first(text: str, after: float = 0.0) -> float | None:
        for line in lines:
            if text in line and line[:4].isdigit() and _stamp(line) >= after:
                return _stamp(line)
        return None

    streamed = first("Image streamed onto device")
    written = first("Asynchronous command prepare_image completed")
    told = first("heartbeat successful", written or 0.0)
    phases = {"refused_partprobe": sum(
        "refused to run: partprobe" in line for line in lines)}
    if streamed is not None and written is not None:
        phases["after_stream_s"] = written - streamed
    if written is not None and told is not None:
        phases["heartbeat_wait_s"] = told - written
    return phases


def _machine_command(api: str, disk: str) -> str:
    return " ".join([sys.executable, "-m", "ironic.tests.realagent.launch",
                     "--api", api, "--mac", "{mac}", "--disk", disk])


def _write_image(path: str, size: int) -> str:
    image = real._whole_disk_image(size)
    with open(path, "wb") as f:
        f.write(image)
    return hashlib.sha256(image).hexdigest()


def _references(image: str, url: str, workdir: str) -> dict:
    """dd and curl of the same bytes into the machine's file system."""
    out = os.path.join(workdir, "reference.out")
    try:
        dd = _timed_cmd(["dd", f"if={image}", f"of={out}", "bs=1M",
                         "conv=fsync", "status=none"])
        os.unlink(out)
        curl = _timed_cmd(["curl", "-sf", "-o", out, url])
    finally:
        if os.path.exists(out):
            os.unlink(out)
    return {"dd_s": dd, "curl_s": curl}


def _run(args, work: str, machine: str, result: dict) -> None:
    images = os.path.join(machine, "images")
    os.makedirs(images)
    http_root = os.path.join(work, "httpboot")
    os.makedirs(http_root)
    image_server = _Server(images)
    boot_server = _Server(http_root)
    sections = {"api": {"restrict_lookup": "false"},
                "agent": {"post_deploy_get_power_state_retries": "0",
                          "command_wait_interval": "1"},
                "ipmi": {"min_command_interval": "0"},
                "conductor": {"check_provision_state_interval": "1"},
                "deploy": {"http_root": http_root,
                           "http_url": boot_server.url}}
    os.makedirs(os.path.join(work, "service"))
    service = svc.Service(Path(work) / "service", drivers=real.DRIVERS,
                          sections=sections).start()
    disk = os.path.join(machine, "disk.img")
    launch.make_disk(disk, 64 * MIB)
    emu = emulators.IpmiEmulator(count=1,
                       machine_cmd=_machine_command(service.endpoint, disk),
                       state_dir=os.path.join(work, "bmc")).start()
    conn = fconf.sdk_connection(service.endpoint,
                                baremetal_api_version="1.72")
    try:
        node = conn.baremetal.create_node(
            driver="ipmi", name="bench", boot_interface="fake",
            deploy_interface="direct", network_interface="noop",
            automated_clean=False, driver_info=emu.driver_info())
        conn.baremetal.create_port(node_id=node.id,
                                   address=machine_mac(emu.base_port))
        bench = Bench(conn, emu, node.id, disk)
        conn.baremetal.set_node_provision_state(node.id, "manage")
        bench._state("manageable", timeout=60)
        boots, loads = [], []
        for i in range(args.boots):
            loads.append(_load())
            boots.append(bench.boot())
            print(f"boot {i + 1}: power on to first heartbeat "
                  f"{boots[-1]:.2f} s (load {loads[-1]:.1f})", flush=True)
        if boots:
            result["boots"] = dict(_stats(boots), samples=len(boots),
                                   load1=round(statistics.mean(loads), 1))
        if not args.deploys:
            return
        conn.baremetal.set_node_provision_state(node.id, "provide")
        bench._state("available", timeout=60)
        size = args.size_mib * MIB
        image = os.path.join(images, "lab.raw")
        checksum = _write_image(image, size)
        url = f"{image_server.url}/lab.raw"
        runs = []
        for i in range(args.deploys):
            subprocess.run(["sync"], check=True)
            run = bench.deploy(url, checksum, size)
            run.update(_references(image, url, machine))
            run["deploy_vs_dd"] = run["deploy_s"] / run["dd_s"]
            run["stream_vs_dd"] = run["agent_stream_s"] / run["dd_s"]
            runs.append(run)
            print(f"deploy {i + 1}: " + ", ".join(
                f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}"
                for k, v in run.items() if k != "phases"), flush=True)
            print("  states (s after the request, provision, power): "
                  + "; ".join(" ".join(map(str, p)) for p in run["phases"]),
                  flush=True)
        result["deploys"] = runs
    finally:
        conn.close()
        if args.logs:
            os.makedirs(args.logs, exist_ok=True)
            with open(os.path.join(args.logs, "agent.log"), "w",
                      encoding="utf-8") as f:
                f.write(real._agent_log(emu))
        emu.stop()
        emu.remove()
        code = service.stop()
        image_server.close()
        boot_server.close()
        if code != 0:
            print(service.logs()[-4000:], file=sys.stderr)
        if args.logs:
            with open(os.path.join(args.logs, "service.log"), "w",
                      encoding="utf-8") as f:
                f.write(service.logs())


def _table(result: dict) -> str:
    lines = ["| measure | p50 | min | max |", "|---|---|---|---|"]
    if "boots" in result:
        b = result["boots"]
        lines.append(f"| power on to first heartbeat, {b['samples']} boots "
                     f"(s) | {b['p50']} | {b['min']} | {b['max']} |")
    names = [("deploy_s", "deploy, `active` request to active (s)"),
             ("agent_stream_s", "agent's image stream onto the disk (s)"),
             ("dd_s", "dd bs=1M conv=fsync, same bytes (s)"),
             ("curl_s", "curl -o from the same server (s)"),
             ("after_stream_s", "agent, end of stream to step done (s)"),
             ("heartbeat_wait_s", "agent, step done to its heartbeat (s)"),
             ("deploy_vs_dd", "deploy / dd"),
             ("stream_vs_dd", "agent stream / dd")]
    for key, label in names:
        values = [run[key] for run in result.get("deploys", [])]
        if values:
            s = _stats(values)
            lines.append(f"| {label} | {s['p50']} | {s['min']} "
                         f"| {s['max']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boots", type=int, default=5)
    parser.add_argument("--deploys", type=int, default=2)
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--logs", metavar="DIR",
                        help="keep the agent's and the service's logs here")
    args = parser.parse_args(argv)
    emulators.require_ipmitool()
    entry_points.expose(str(svc.REPO_ROOT / "setup.cfg"))
    python = agent_venv.ensure()
    version = subprocess.run(
        [python, "-c", "from importlib.metadata import version; "
         "print(version('ironic-python-agent'))"],
        check=True, capture_output=True, text=True).stdout.strip()
    result: dict = {"size_mib": args.size_mib,
                    "ironic_python_agent": version}
    machine = launch.machine_dir()
    work = tempfile.mkdtemp(prefix="real-agent-bench-")
    try:
        _run(args, work, machine, result)
    finally:
        shutil.rmtree(machine, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    print(_table(result))
    for run in result.get("deploys", []):
        for key, value in run.items():
            if isinstance(value, float):
                run[key] = round(value, 3)
    print(json.dumps(result))
    return 0 if all(run["disk_matches_image"]
                    for run in result.get("deploys", [])) else 1


if __name__ == "__main__":
    sys.exit(main())
