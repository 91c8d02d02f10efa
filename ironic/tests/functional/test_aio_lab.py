"""Smoke test of the README's lab: tools/aio_lab.py against a running
all-in-one service configured with the drivers of etc/ironic/ironic-aio.conf.

The lab starts emulated BMCs and enrolls them; a lab node is then managed
(BIOS settings and firmware versions read over Redfish) and powered on
through the API, and the emulated machine itself must be on.
"""

from __future__ import annotations

import configparser
import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
import sushy

from ironic.tests.emulators.launch import require_ipmitool
from ironic.tests.functional import service as svc
from ironic.tests.functional.conftest import run_service

AIO_CONF = svc.REPO_ROOT / "etc" / "ironic" / "ironic-aio.conf"
DEADLINE = 60.0
HEADERS = {"Content-Type": "application/json",
           "X-OpenStack-Ironic-API-Version": "1.86"}


def _aio_drivers() -> dict[str, str]:
    """The enabled hardware types and interfaces of the AIO template."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(AIO_CONF)
    return {name: value for name, value in parser["DEFAULT"].items()
            if name.startswith("enabled_")}


def _call(endpoint: str, path: str, method: str = "GET", body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(endpoint + path, data=data, method=method,
                                 headers=HEADERS)
    with urllib.request.urlopen(req, timeout=10) as resp:
        raw = resp.read()
        return json.loads(raw) if raw else None


def _until(check, what: str, timeout: float = DEADLINE):
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = check()
        except urllib.error.HTTPError as e:
            if e.code != 404:
                raise
            value = None
        if value:
            return value
        assert time.monotonic() < deadline, f"{what} after {timeout} s"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def aio(tmp_path_factory):
    yield from run_service(tmp_path_factory, "aio-lab",
                           drivers=_aio_drivers())


@pytest.fixture(scope="module")
def lab(aio, tmp_path_factory):
    require_ipmitool()
    workdir = tmp_path_factory.mktemp("lab")
    describe = workdir / "lab.json"
    output = open(workdir / "lab.log", "w+", encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, str(svc.REPO_ROOT / "tools" / "aio_lab.py"),
         "--config-file", str(aio.config), "--ipmi", "1", "--redfish", "1",
         "--describe", str(describe)],
        env=svc._child_env(), stdout=output, stderr=subprocess.STDOUT)
    try:
        _until(describe.exists, "the lab did not describe itself")
        yield json.loads(describe.read_text())
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(svc.STOP_DEADLINE)
        output.seek(0)
        log = output.read()
        output.close()
        assert code == 0, log


def _power_on(aio, name: str) -> dict:
    _call(aio.endpoint, f"/v1/nodes/{name}/states/power", "PUT",
          {"target": "power on"})
    return _until(lambda: (lambda n: n if n["power_state"] == "power on"
                           and n["reservation"] is None else None)(
        _call(aio.endpoint, f"/v1/nodes/{name}")),
        f"{name} did not power on")


def test_lab_nodes_are_enrolled_with_the_aio_drivers(aio, lab):
    names = {n["name"]: n for n in _call(
        aio.endpoint, "/v1/nodes?detail=true")["nodes"]}
    assert names["lab-ipmi-0"]["power_interface"] == "ipmitool"
    redfish = names["lab-redfish-0"]
    assert redfish["power_interface"] == "redfish"
    # The Redfish interfaces the AIO configuration enables are the
    # defaults of a redfish node.
    assert (redfish["bios_interface"], redfish["raid_interface"],
            redfish["firmware_interface"], redfish["vendor_interface"]) == \
        ("redfish", "redfish", "redfish", "redfish")


def test_ipmi_lab_node_powers_on(aio, lab):
    node = _power_on(aio, "lab-ipmi-0")
    assert node["last_error"] is None
    state_file = f"{lab['ipmi']['state_dir']}/bmc-{lab['ipmi']['ports'][0]}" \
                 f".json"
    with open(state_file, encoding="utf-8") as f:
        assert json.load(f)["power"] == "on"


def test_redfish_lab_node_manages_and_powers_on(aio, lab):
    rf = lab["redfish"]
    _call(aio.endpoint, "/v1/nodes/lab-redfish-0/states/provision", "PUT",
          {"target": "manage"})
    node = _until(lambda: (lambda n: n if n["provision_state"] in (
        "manageable", "enroll") and n["reservation"] is None else None)(
        _call(aio.endpoint, "/v1/nodes/lab-redfish-0")),
        "lab-redfish-0 did not finish verifying")
    assert node["provision_state"] == "manageable", node["last_error"]
    # Managing read the BIOS settings and firmware versions over Redfish.
    bios = _call(aio.endpoint, "/v1/nodes/lab-redfish-0/bios")
    assert any(s["name"] == "BootMode" and s["value"] == "Uefi"
               for s in bios["bios"]), bios
    firmware = _call(aio.endpoint, "/v1/nodes/lab-redfish-0/firmware")
    assert any(c["component"] == "bios" and c["current_version"]
               for c in firmware["firmware"])

    node = _power_on(aio, "lab-redfish-0")
    assert node["last_error"] is None
    client = sushy.Sushy(f"{rf['url']}/redfish/v1",
                         auth=sushy.auth.BasicAuth(rf["user"],
                                                   rf["password"]))
    system = client.get_system(f"/redfish/v1/Systems/{rf['systems'][0]}")
    assert system.power_state == sushy.POWER_STATE_ON
