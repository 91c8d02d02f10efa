"""The whole fake-hardware lifecycle through ``openstack baremetal``.

One all-in-one service (API and conductor in one process, in-process RPC);
each verb is run by the real CLI with ``--wait`` where the CLI offers it,
and the state reached is read back with ``node show``.
"""

from __future__ import annotations

import json
import time

import pytest

from ironic.tests.functional import service as svc

NEEDED = 87   # service verb; every other verb used here is older


@pytest.fixture
def cli87(service, needs_version):
    needs_version(NEEDED)
    return svc.Cli(service.endpoint, api_version=f"1.{NEEDED}")


def _show(cli, node):
    return cli.json("node", "show", node)


def _state(cli, node):
    return _show(cli, node)["provision_state"]


def _until(cli, node, field, value, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = _show(cli, node)
        if shown[field] == value:
            return shown
        time.sleep(0.5)
    pytest.fail(f"{field} of {node} never became {value!r}: {shown}")


def test_provisioning_lifecycle(cli87, unique):
    cli = cli87
    name = f"life-{unique}"
    cli.json("node", "create", "--driver", "fake-hardware", "--name", name)
    for verb, state in (("manage", "manageable"), ("inspect", "manageable"),
                        ("provide", "available")):
        cli.run("node", verb, name, "--wait", "60")
        assert _state(cli, name) == state, verb
    drive = json.dumps({"meta_data": {"hostname": name}})
    cli.run("node", "deploy", name, "--config-drive", drive, "--wait", "60")
    assert _state(cli, name) == "active"
    cli.run("node", "rebuild", name, "--wait", "60")
    assert _state(cli, name) == "active"
    cli.run("node", "rescue", name, "--rescue-password", "pw", "--wait", "60")
    assert _state(cli, name) == "rescue"
    cli.run("node", "unrescue", name, "--wait", "60")
    assert _state(cli, name) == "active"
    cli.run("node", "undeploy", name, "--wait", "60")
    shown = _show(cli, name)
    assert (shown["provision_state"], shown["last_error"]) == (
        "available", None)


def test_clean_abort_history_and_adopt(cli87, unique):
    cli = cli87
    name = f"clean-{unique}"
    cli.json("node", "create", "--driver", "fake-hardware", "--name", name)
    cli.run("node", "manage", name, "--wait", "60")
    steps = [{"interface": "bios", "step": "apply_configuration",
              "args": {"settings": [{"name": "LogicalProc",
                                     "value": "Enabled"}]}},
             {"interface": "bios", "step": "factory_reset"}]
    cli.run("node", "clean", name, "--clean-steps", json.dumps(steps),
            "--wait", "60")
    assert _state(cli, name) == "manageable"
    cli.run("node", "clean", name, "--clean-steps",
            json.dumps([{"interface": "deploy", "step": "hold"}]))
    _until(cli, name, "provision_state", "clean hold")
    cli.run("node", "abort", name)
    shown = _until(cli, name, "provision_state", "clean failed")
    assert "clean hold" in shown["last_error"]
    history = cli.json("node", "history", "list", name, "--long")
    assert any("clean hold" in json.dumps(e) for e in history), history
    cli.run("node", "manage", name, "--wait", "60")
    cli.run("node", "adopt", name, "--wait", "60")
    assert _state(cli, name) == "active"
    cli.run("node", "service", name, "--service-steps",
            json.dumps([{"interface": "bios", "step": "factory_reset"}]),
            "--wait", "60")
    assert _state(cli, name) == "active"


def test_power_boot_device_maintenance_validate(cli87, unique):
    cli = cli87
    name = f"power-{unique}"
    cli.json("node", "create", "--driver", "fake-hardware", "--name", name)
    cli.run("node", "power", "on", name)
    _until(cli, name, "power_state", "power on")
    cli.run("node", "power", "off", name, "--soft", "--power-timeout", "10")
    _until(cli, name, "power_state", "power off")
    cli.run("node", "reboot", name)
    _until(cli, name, "power_state", "power on")
    cli.run("node", "boot", "device", "set", name, "disk", "--persistent")
    assert cli.json("node", "boot", "device", "show", name) == {
        "boot_device": "disk", "persistent": True}
    cli.run("node", "maintenance", "set", name, "--reason", "fan noise")
    shown = _show(cli, name)
    assert (shown["maintenance"], shown["maintenance_reason"]) == (
        True, "fan noise")
    cli.run("node", "maintenance", "unset", name)
    assert _show(cli, name)["maintenance"] is False
    report = {r["Interface"]: r["Result"]
              for r in cli.json("node", "validate", name)}
    assert report["power"] is True and report["management"] is True
    bad = cli.run("node", "deploy", name, check=False)
    assert bad.returncode != 0
    assert "enroll" in bad.stderr
