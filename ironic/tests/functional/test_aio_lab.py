"""Smoke test of the README's lab: tools/aio_lab.py against a running
all-in-one service configured with the drivers of etc/ironic/ironic-aio.conf.

The lab starts emulated BMCs and enrolls them; a lab node is then managed
(BIOS settings and firmware versions read over Redfish) and powered on
through the API, and the emulated machine itself must be on.
"""

from __future__ import annotations

import configparser
import contextlib
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



@contextlib.contextmanager
def _running_lab(aio, workdir, ipmi: int, redfish: int, *extra: str):
    """The lab on its own state directory until the block ends; yields
    its description and, after the block, ``out`` holds its output."""
    describe = workdir / f"describe-{ipmi}-{redfish}.json"
    describe.unlink(missing_ok=True)
    proc = subprocess.Popen(
        [sys.executable, str(svc.REPO_ROOT / "tools" / "aio_lab.py"),
         "--config-file", str(aio.config), "--ipmi", str(ipmi),
         "--redfish", str(redfish), "--describe", str(describe),
         "--state-dir", str(workdir / "state"), *extra],
        env=svc._child_env(), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    result = {}
    try:
        _until(describe.exists, "the lab did not describe itself")
        result.update(json.loads(describe.read_text()))
        yield result
    finally:
        proc.send_signal(signal.SIGTERM)
        result["out"], _ = proc.communicate(timeout=svc.STOP_DEADLINE)
    assert proc.returncode == 0, result["out"]


def test_lab_keeps_its_machines_and_ports_across_restarts(aio, lab,
                                                         tmp_path):
    state = tmp_path / "state"
    with _running_lab(aio, tmp_path, ipmi=1, redfish=1) as first:
        assert first["ipmi"]["state_dir"] == str(state / "ipmi")
        assert first["redfish"]["workdir"] == str(state / "redfish")
        _power_on(aio, "lab-ipmi-0")
    with _running_lab(aio, tmp_path, ipmi=1, redfish=0) as again:
        # Same port, same machine (still on), nothing under /tmp.
        assert again["ipmi"]["ports"] == first["ipmi"]["ports"]
        with open(f"{again['ipmi']['state_dir']}/bmc-"
                  f"{again['ipmi']['ports'][0]}.json",
                  encoding="utf-8") as f:
            assert json.load(f)["power"] == "on"
        node = _call(aio.endpoint, "/v1/nodes/lab-ipmi-0")
        assert node["driver_info"]["ipmi_port"] == first["ipmi"]["ports"][0]
        # The Redfish machine is not emulated this time: its node says so.
        gone = _call(aio.endpoint, "/v1/nodes/lab-redfish-0")
        assert gone["maintenance"] is True
        assert "not emulated" in gone["maintenance_reason"]
    with _running_lab(aio, tmp_path, ipmi=1, redfish=1) as back:
        # Back on its old port: maintenance ends.
        assert back["redfish"]["url"] == first["redfish"]["url"]
        assert _call(aio.endpoint, "/v1/nodes/lab-redfish-0")[
            "maintenance"] is False
        _call(aio.endpoint, "/v1/nodes/lab-ipmi-0/states/power", "PUT",
              {"target": "power off"})
        _until(lambda: _call(aio.endpoint, "/v1/nodes/lab-ipmi-0")[
            "power_state"] == "power off", "lab-ipmi-0 did not power off")
        # The printed hint works when pasted.
        lines = _until(lambda: _hint(back), "no hint printed")
        script = "set -e\n" + "\n".join(lines) + "\n"
        run = subprocess.run(["bash", "-c", script], capture_output=True,
                             text=True, timeout=svc.CLI_DEADLINE,
                             env=svc._child_env())
        assert run.returncode == 0, (script, run.stdout, run.stderr)
        _until(lambda: _call(aio.endpoint, "/v1/nodes/lab-ipmi-0")[
            "power_state"] == "power on", "the hint did not power on")


def _hint(described):
    """The commands of the hint the lab printed (after its "Try" line)."""
    return [line.strip() for line in described["hints"][1:]]


def test_lab_machines_boot_the_agent(aio, lab, tmp_path):
    with _running_lab(aio, tmp_path, 1, 0, "--agent") as running:
        port = running["ipmi"]["ports"][0]
        state_file = f"{running['ipmi']['state_dir']}/bmc-{port}.json"
        ports = _call(aio.endpoint, "/v1/ports/detail?node=lab-ipmi-0")
        assert len(ports["ports"]) == 1
        _call(aio.endpoint, "/v1/nodes/lab-ipmi-0/states/power", "PUT",
              {"target": "power off"})
        _until(lambda: _call(aio.endpoint, "/v1/nodes/lab-ipmi-0")[
            "power_state"] == "power off", "lab-ipmi-0 did not power off")
        _power_on(aio, "lab-ipmi-0")

        def agent_up():
            with open(state_file, encoding="utf-8") as f:
                return json.load(f)["running"]
        _until(agent_up, "the machine did not boot its agent")
        log = f"{running['ipmi']['state_dir']}/machine-{port}.log"
        _until(lambda: "agent for" in open(log, encoding="utf-8").read(),
               "the agent did not start")
        mac = ports["ports"][0]["address"]
        assert f"agent for {mac}" in open(log, encoding="utf-8").read()
    # The lab stopped: its machine's agent with it.
    with open(state_file, encoding="utf-8") as f:
        assert json.load(f)["running"] is False
