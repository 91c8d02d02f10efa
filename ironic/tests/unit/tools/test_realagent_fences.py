"""The fences around the real agent refuse what could reach the host.

ironic_lab_safe_agent runs inside the agent's own virtualenv; its policy
functions are plain Python and are checked here without the agent.
"""

import importlib.util
import os

import pytest

from ironic.tests.realagent import agent_venv

_spec = importlib.util.spec_from_file_location(
    "ironic_lab_safe_agent",
    os.path.join(agent_venv.PLUGIN, "ironic_lab_safe_agent.py"))
fences = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fences)


@pytest.mark.parametrize("argv", [
    ["lsblk", "-bia", "--json"], ["/usr/bin/lshw", "-quiet", "-json"],
    ["udevadm", "info", "--query=all", "/dev/vda"], ["udevadm", "settle"],
    ["ip", "-o", "addr", "show"], ["ldconfig", "-p"], ["dmidecode"],
    ["journalctl", "--version"], ["journalctl", "-a", "-n", "10000"],
])
def test_reading_tools_run(argv):
    assert fences.command_allowed(argv)


@pytest.mark.parametrize("argv", [
    [], ["dd", "if=/dev/zero", "of=/dev/vda"], ["wipefs", "--all", "/dev/sda"],
    ["sgdisk", "-Z", "/dev/sda"], ["poweroff"], ["reboot", "-f"],
    ["ip", "link", "set", "eth0", "down"], ["ip", "addr", "add", "1.2.3.4"],
    ["udevadm", "trigger"], ["modprobe", "ipmi_si"], ["qemu-img", "convert"],
    ["mdadm", "--assemble", "--scan"], ["ldconfig"], ["sh", "-c", "true"],
    ["journalctl", "--vacuum-size=1"], ["journalctl", "--rotate"],
])
def test_changing_tools_are_refused(argv):
    assert not fences.command_allowed(argv)


@pytest.mark.parametrize("path,forbidden", [
    ("/dev/vda", True), ("/dev/sda1", True), ("/proc/sysrq-trigger", True),
    ("/sys/class/net/eth0/flags", True), ("/dev/null", False),
    ("/dev/urandom", False), ("/tmp/lab-machine-x/disk.img", False),
])
def test_writes_under_dev_proc_sys_are_refused(path, forbidden):
    assert fences.path_forbidden(path) is forbidden


def test_private_directories_are_seen(tmp_path):
    private = tmp_path / "private"
    (private / "inner").mkdir(parents=True)
    private.chmod(0o700)
    try:
        assert not agent_venv.open_to_all(str(private / "inner"))
    finally:
        private.chmod(0o755)
    assert agent_venv.open_to_all("/usr/bin") is True


def test_agent_configuration(tmp_path):
    from ironic.tests.realagent import launch
    path = launch.write_config(str(tmp_path), "http://127.0.0.1:6385", 4321,
                               30, "http://127.0.0.1:6385/v1/continue")
    text = open(path, encoding="utf-8").read()
    for line in ("api_url = http://127.0.0.1:6385", "listen_host = 127.0.0.1",
                 "listen_port = 4321", "advertise_host = 127.0.0.1",
                 "enable_auto_tls = true", "lookup_timeout = 30",
                 "inspection_callback_url = http://127.0.0.1:6385/v1/"
                 "continue"):
        assert line in text.splitlines()
    plain = launch.write_config(str(tmp_path), "http://x", 1, 30)
    assert "inspection_callback_url" not in open(plain).read()
