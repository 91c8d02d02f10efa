#!/usr/bin/env python3
"""Power on to the agent's first heartbeat, in the lab.

The all-in-one service (``[api]restrict_lookup = false``, so a manageable
node may be looked up) and one emulated IPMI BMC whose machine boots the
emulated agent (``ipmi_bmc --machine-cmd``, see doc/source/admin/lab.rst).
``--samples`` times: power the node on through the API and time until the
service records the agent's first heartbeat
(``driver_internal_info/agent_last_heartbeat``), then power it off (which
stops the agent and discards its token). The emulated agent's boot is a
Python process start, a self-signed certificate, a lookup and a
heartbeat: this measures the lab and the service's side, not a real
ramdisk boot.

    python tools/bench/lab_boot_bench.py --samples 10

The last line printed is the JSON result.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))

from ironic.tests import entry_points  # noqa: E402
from ironic.tests.emulators.ipmi_bmc import machine_mac  # noqa: E402
from ironic.tests.emulators.launch import IpmiEmulator  # noqa: E402
from ironic.tests.functional import service as svc  # noqa: E402

HEADERS = {"Content-Type": "application/json",
           "X-OpenStack-Ironic-API-Version": "1.72"}


def _call(url: str, method: str = "GET", body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers=HEADERS)
    with urllib.request.urlopen(req, timeout=30) as resp:
        raw = resp.read()
        return json.loads(raw) if raw else None


def _until(check, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in time")
        time.sleep(0.02)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10)
    args = parser.parse_args(argv)
    # The service runs from this checkout: publish its plugins' entry
    # points as the tests do (a no-op when the package is installed).
    entry_points.expose(str(svc.REPO_ROOT / "setup.cfg"))
    drivers = dict(svc.TEST_DRIVERS,
                   enabled_hardware_types="ipmi,fake-hardware",
                   enabled_deploy_interfaces="fake,direct",
                   enabled_power_interfaces="fake,ipmitool",
                   enabled_management_interfaces="fake,ipmitool",
                   enabled_vendor_interfaces="fake,no-vendor,ipmitool",
                   enabled_console_interfaces="fake,no-console")
    sections = {"api": {"restrict_lookup": "false"},
                "ipmi": {"min_command_interval": "0"}}
    with tempfile.TemporaryDirectory(prefix="lab-boot-bench-") as work:
        service = svc.Service(Path(work), drivers=drivers,
                              sections=sections).start()
        api = service.endpoint
        cmd = (f"{sys.executable} -m ironic.tests.emulators.agent "
               f"--api {api} --mac {{mac}}")
        emu = IpmiEmulator(count=1, machine_cmd=cmd,
                           state_dir=os.path.join(work, "bmc")).start()
        samples = []
        try:
            node = _call(f"{api}/v1/nodes", "POST", {
                "name": "bench", "driver": "ipmi", "boot_interface": "fake",
                "deploy_interface": "direct", "network_interface": "noop",
                "driver_info": {"ipmi_address": emu.address,
                                "ipmi_port": emu.base_port,
                                "ipmi_username": emu.user,
                                "ipmi_password": emu.password}})
            _call(f"{api}/v1/ports", "POST", {
                "address": machine_mac(emu.base_port),
                "node_uuid": node["uuid"]})
            _call(f"{api}/v1/nodes/bench/states/provision", "PUT",
                  {"target": "manage"})
            _until(lambda: _call(f"{api}/v1/nodes/bench")[
                "provision_state"] == "manageable")
            for _ in range(args.samples):
                start = time.perf_counter()
                _call(f"{api}/v1/nodes/bench/states/power", "PUT",
                      {"target": "power on"})
                _until(lambda: _call(f"{api}/v1/nodes/bench")[
                    "driver_internal_info"].get("agent_last_heartbeat"))
                samples.append(time.perf_counter() - start)
                _call(f"{api}/v1/nodes/bench/states/power", "PUT",
                      {"target": "power off"})
                _until(lambda: (lambda n: n["power_state"] == "power off"
                                and not n["driver_internal_info"].get(
                                    "agent_last_heartbeat"))(
                    _call(f"{api}/v1/nodes/bench")))
        finally:
            emu.stop()
            service.stop()
    result = {"samples": len(samples),
              "power_on_to_first_heartbeat_p50_s":
                  round(statistics.median(samples), 3),
              "min_s": round(min(samples), 3),
              "max_s": round(max(samples), 3)}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
