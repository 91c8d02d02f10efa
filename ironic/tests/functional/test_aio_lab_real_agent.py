"""The lab with the real agent in one command: ``aio_lab.py --agent real``.

What doc/source/admin/lab.rst tells a user to do, against a service with
the all-in-one drivers plus the ``direct`` deploy interface: the lab's IPMI
machine boots the real ironic-python-agent at power on, and a manual clean
of its node erases the metadata of the machine's file disk, kept in the
lab's state directory; in-band inspection of the node then reports that
disk.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from ironic.tests.emulators.launch import require_ipmitool
from ironic.tests.functional.conftest import run_service
from ironic.tests.functional.test_aio_lab import _aio_drivers, _call, _running_lab, _until
from ironic.tests.functional.test_real_agent import agent_python  # noqa: F401

MIB = 1024 * 1024


@pytest.fixture(scope="module")
def aio(tmp_path_factory, agent_python):  # noqa: F811
    drivers = dict(_aio_drivers(), enabled_deploy_interfaces="fake,direct")
    drivers["enabled_inspect_interfaces"] += ",agent"
    yield from run_service(
        tmp_path_factory, "aio-lab-real-agent", drivers=drivers,
        sections={"ipmi": {"min_command_interval": "0"},
                  "conductor": {"check_provision_state_interval": "1"}})


@pytest.fixture
def public_dir():
    # The agent runs unprivileged under root: the lab's state directory
    # must not be inside pytest's private one.
    path = tempfile.mkdtemp(prefix="lab-real-agent-")
    os.chmod(path, 0o755)
    yield Path(path)
    shutil.rmtree(path, ignore_errors=True)


def test_lab_machine_cleaned_by_the_real_agent(aio, public_dir):
    require_ipmitool()
    with _running_lab(aio, public_dir, 1, 0, "--agent", "real",
                      "--disk-size", "4") as lab:
        port = lab["ipmi"]["ports"][0]
        disk = public_dir / "state" / "real-agent" / f"machine-{port}" / \
            "disk.img"
        assert disk.stat().st_size == 4 * MIB
        with open(disk, "r+b") as f:
            f.write(b"\xee" * (4 * MIB))
        node = "/v1/nodes/lab-ipmi-0"
        _call(aio.endpoint, node, "PATCH", [
            {"op": "replace", "path": "/deploy_interface",
             "value": "direct"}])
        _call(aio.endpoint, f"{node}/states/provision", "PUT",
              {"target": "manage"})
        _until(lambda: _call(aio.endpoint, node)["provision_state"]
               == "manageable", "lab-ipmi-0 was not managed")
        _call(aio.endpoint, f"{node}/states/provision", "PUT",
              {"target": "clean", "clean_steps": [
                  {"interface": "deploy", "step": "erase_devices_metadata"}]})

        def cleaned():
            found = _call(aio.endpoint, node)
            if found["reservation"] is None and found["provision_state"] in (
                    "manageable", "clean failed"):
                return found
        done = _until(cleaned, "lab-ipmi-0 was not cleaned", timeout=90)
        log = (public_dir / "state" / "ipmi" / f"machine-{port}.log"
               ).read_text(errors="replace")
        assert done["provision_state"] == "manageable", (
            done["last_error"], log[-5000:])
        assert "Starting ironic-python-agent version" in log
        content = disk.read_bytes()
        assert content == bytes(MIB) + b"\xee" * (2 * MIB) + bytes(MIB)

        # In-band inspection of the same machine: its file disk shows.
        _call(aio.endpoint, node, "PATCH", [
            {"op": "replace", "path": "/inspect_interface",
             "value": "agent"}])
        _call(aio.endpoint, f"{node}/states/provision", "PUT",
              {"target": "inspect"})

        def inspected():
            found = _call(aio.endpoint, node)
            if found["reservation"] is None and found["provision_state"] in (
                    "manageable", "inspect failed"):
                return found
        done = _until(inspected, "lab-ipmi-0 was not inspected", timeout=90)
        assert done["provision_state"] == "manageable", done["last_error"]
        inventory = _call(aio.endpoint, f"{node}/inventory")["inventory"]
        assert [d["name"] for d in inventory["disks"]] == [str(disk)]
