"""The virtual media ISO the service builds boots in real UEFI firmware.

QEMU with OVMF (Debian's UEFI firmware for virtual machines) boots the ISO
``boot_iso.build`` writes as its CD. The EFI system partition image is
made here the way an operator's is (``grub-mkstandalone`` from Debian's
GRUB, a FAT file system with ``mkfs.vfat`` and mtools), with the small
embedded configuration such images carry: find the CD by ``/vmlinuz``,
then read ``EFI/BOOT/grub.cfg`` from it. The firmware must start GRUB from
the El Torito EFI entry, GRUB must show the service's menu entry and load
``/vmlinuz``; the kernel is random bytes, so GRUB stops at its magic
number, which shows it read the file the service put there. Slow under
emulation (tens of seconds), hence a scenario.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time

import pytest

from ironic.common import boot_iso

OVMF_CODE = "/usr/share/OVMF/OVMF_CODE.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS.fd"
TOOLS = ("qemu-system-x86_64", "grub-mkstandalone", "mkfs.vfat", "mcopy",
         "mmd")
# Bounds only: GRUB's menu appears well within a minute when it works.
BOOT_DEADLINE = 240.0
GRUB_MODULES = ("part_gpt part_msdos iso9660 fat search search_fs_file "
                "configfile linux normal echo test all_video efi_gop "
                "serial terminal boot")
EMBEDDED = """search --no-floppy --file --set=root /vmlinuz
set prefix=($root)/EFI/BOOT
configfile ($root)/EFI/BOOT/grub.cfg
"""


def _require_tools() -> None:
    missing = [t for t in TOOLS if not shutil.which(t)]
    if not os.path.exists(OVMF_CODE):
        missing.append(OVMF_CODE)
    if not missing:
        return
    message = (f"missing {', '.join(missing)} "
               f"(tools/install-system-deps.sh)")
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{message}; CI=true requires them", pytrace=False)
    pytest.skip(message)


def _esp_image(work) -> str:
    embedded = work / "embedded.cfg"
    embedded.write_text(EMBEDDED)
    loader = work / "BOOTX64.EFI"
    subprocess.run(["grub-mkstandalone", "-O", "x86_64-efi", "-o",
                    str(loader), f"--install-modules={GRUB_MODULES}",
                    f"--modules={GRUB_MODULES}",
                    f"boot/grub/grub.cfg={embedded}"],
                   check=True, capture_output=True)
    esp = work / "efiboot.img"
    size_kib = os.path.getsize(loader) // 1024 + 2048
    subprocess.run(["mkfs.vfat", "-C", str(esp), str(size_kib)], check=True,
                   capture_output=True)
    subprocess.run(["mmd", "-i", str(esp), "::EFI", "::EFI/BOOT"],
                   check=True, capture_output=True)
    subprocess.run(["mcopy", "-i", str(esp), str(loader), "::EFI/BOOT/"],
                   check=True, capture_output=True)
    return str(esp)


def _serial_until(proc: subprocess.Popen, pattern: str) -> str:
    """The firmware's serial output up to ``pattern`` (or the deadline)."""
    os.set_blocking(proc.stdout.fileno(), False)
    seen = b""
    deadline = time.monotonic() + BOOT_DEADLINE
    wanted = re.compile(pattern.encode())
    while time.monotonic() < deadline and proc.poll() is None:
        chunk = proc.stdout.read()
        if chunk:
            seen += chunk
            if wanted.search(seen):
                break
        else:
            time.sleep(0.2)
    return seen.decode("utf-8", "replace")


def test_ovmf_boots_the_built_iso_into_its_grub_entry(tmp_path):
    _require_tools()
    kernel = tmp_path / "vmlinuz"
    kernel.write_bytes(os.urandom(64 * 1024))
    ramdisk = tmp_path / "initrd"
    ramdisk.write_bytes(os.urandom(128 * 1024))
    iso = tmp_path / "boot.iso"
    boot_iso.build(str(iso), str(kernel), str(ramdisk),
                   "console=ttyS0 ipa-agent-token=T0KEN",
                   esp_image=_esp_image(tmp_path))
    variables = tmp_path / "OVMF_VARS.fd"
    shutil.copyfile(OVMF_VARS, variables)
    proc = subprocess.Popen(
        ["qemu-system-x86_64", "-machine", "q35", "-m", "256",
         "-nographic", "-no-reboot", "-net", "none",
         "-drive", f"if=pflash,format=raw,readonly=on,file={OVMF_CODE}",
         "-drive", f"if=pflash,format=raw,file={variables}",
         "-cdrom", str(iso), "-boot", "d"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT)
    try:
        serial = _serial_until(proc, r"invalid magic number|not found")
    finally:
        proc.kill()
        proc.wait(10)
    assert "starting Boot0001 \"UEFI QEMU DVD-ROM" in serial, serial[-2000:]
    assert "Welcome to GRUB!" in serial, serial[-2000:]
    assert "boot_ramdisk" in serial, serial[-2000:]
    # GRUB found /vmlinuz on the CD and read it: the random bytes have no
    # Linux boot header.
    assert "error: invalid magic number" in serial, serial[-2000:]
    assert "not found" not in serial, serial[-2000:]
