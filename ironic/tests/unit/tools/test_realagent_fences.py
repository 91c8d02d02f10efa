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
    ["parted", "-s", "-m", "/tmp/m/disk.img", "unit", "MiB", "print"],
    ["parted", "--script", "/tmp/m/disk.img", "--", "print"],
    ["hexdump", "-s", "440", "-n", "4", "-e", '"0x%08x"', "/tmp/m/disk.img"],
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
    ["parted", "-s", "/dev/sda", "mklabel", "gpt"],
    ["parted", "-s", "/dev/sda", "rm", "1", "print"], ["partprobe", "/dev/sda"],
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


def _mbr_disk(path, size):
    """A file with an MBR partition table of one Linux partition."""
    sector = bytearray(512)
    sector[440:444] = bytes.fromhex("78563412")
    # Status, CHS (unused), type 0x83, CHS, first LBA 2048, 2048 sectors.
    sector[446:462] = (b"\x00\x00\x00\x00\x83\x00\x00\x00"
                       + (2048).to_bytes(4, "little")
                       + (2048).to_bytes(4, "little"))
    sector[510:512] = b"\x55\xaa"
    with open(path, "wb") as f:
        f.write(sector)
        f.truncate(size)


def test_lsblk_of_the_lab_disk_is_answered_for_the_file(tmp_path,
                                                        monkeypatch):
    import subprocess
    disk = tmp_path / "disk.img"
    _mbr_disk(disk, 4 * 1024 * 1024)
    monkeypatch.setenv("IRONIC_LAB_DISK", str(disk))
    argv = ["lsblk", "--pairs", "--bytes", "--ascii", "--nodeps",
            "--output", "UUID,PARTUUID,SIZE,PTTYPE,TYPE", str(disk)]
    stand_in = fences.lab_disk_stand_in(argv)
    assert stand_in is not None
    out = subprocess.run(stand_in, capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == ('UUID="" PARTUUID="" SIZE="4194304" '
                           'PTTYPE="dos" TYPE="disk"')
    # Other devices, and lsblk without the disk, run the real lsblk.
    assert fences.lab_disk_stand_in(["lsblk", "--pairs", "/dev/sda"]) is None
    assert fences.lab_disk_stand_in(["lsblk", "-bia", "--json"]) is None
    assert fences.lab_disk_stand_in(["blkid", str(disk)]) is None


def test_partprobe_of_the_lab_disk_succeeds_without_running(tmp_path,
                                                            monkeypatch):
    import subprocess
    disk = tmp_path / "disk.img"
    _mbr_disk(disk, 1024 * 1024)
    monkeypatch.setenv("IRONIC_LAB_DISK", str(disk))
    stand_in = fences.lab_disk_stand_in(["partprobe", str(disk)])
    assert subprocess.run(stand_in).returncode == 0
    # Any other device stays refused.
    assert fences.lab_disk_stand_in(["partprobe", "/dev/sda"]) is None
    assert not fences.command_allowed(["partprobe", "/dev/sda"])
