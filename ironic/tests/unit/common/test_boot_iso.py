"""boot_iso: the images pycdlib writes are what firmware expects to find."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pycdlib
import pytest

from ironic.common import boot_iso


@pytest.fixture
def parts(tmp_path):
    paths = {}
    for name in ("kernel", "ramdisk", "esp", "isolinux.bin", "ldlinux.c32"):
        paths[name] = tmp_path / name
        paths[name].write_bytes(name.encode() * 700)
    return paths


def _boot_entries(path):
    iso = pycdlib.PyCdlib()
    iso.open(str(path))
    try:
        catalog = iso.eltorito_boot_catalog
        entries = [catalog.initial_entry] + [
            e for section in catalog.sections for e in section.section_entries]
        platforms = [catalog.validation_entry.platform_id] + [
            s.platform_id for s in catalog.sections]
        return entries, platforms, iso.pvd.volume_identifier.strip()
    finally:
        iso.close()


def test_uefi_and_bios_entries(parts, tmp_path):
    out = tmp_path / "out.iso"
    boot_iso.build(str(out), str(parts["kernel"]), str(parts["ramdisk"]),
                   "p=1", esp_image=str(parts["esp"]),
                   isolinux=(str(parts["isolinux.bin"]),
                             str(parts["ldlinux.c32"])),
                   inject={"etc/x.conf": b"[DEFAULT]\n"})
    entries, platforms, label = _boot_entries(out)
    assert label == boot_iso.VOLUME_ID.encode()
    # BIOS (x86, 0) first, then the EFI section (0xEF).
    assert platforms == [0, 0xEF]
    assert len(entries) == 2
    cfg = boot_iso.read_file(str(out), "isolinux/isolinux.cfg").decode()
    assert "append initrd=/initrd text p=1 --" in cfg
    assert boot_iso.read_file(str(out), "etc/x.conf") == b"[DEFAULT]\n"


def test_uefi_only(parts, tmp_path):
    out = tmp_path / "out.iso"
    boot_iso.build(str(out), str(parts["kernel"]), str(parts["ramdisk"]),
                   "p=1", esp_image=str(parts["esp"]),
                   grub_config_path="boot/grub/grub.cfg")
    entries, platforms, _ = _boot_entries(out)
    assert platforms == [0xEF] and len(entries) == 1
    assert b"linux /vmlinuz p=1" in boot_iso.read_file(
        str(out), "boot/grub/grub.cfg")


def test_nothing_bootable_or_missing_input_is_refused(parts, tmp_path):
    out = tmp_path / "out.iso"
    with pytest.raises(boot_iso.BuildError, match="EFI system partition"):
        boot_iso.build(str(out), str(parts["kernel"]),
                       str(parts["ramdisk"]), "")
    with pytest.raises(boot_iso.BuildError, match="kernel"):
        boot_iso.build(str(out), str(tmp_path / "none"),
                       str(parts["ramdisk"]), "", esp_image=str(parts["esp"]))
    assert not out.exists()


def _require_xorriso() -> str:
    path = shutil.which("xorriso")
    if path:
        return path
    message = "xorriso is not installed (tools/install-system-deps.sh)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{message}; CI=true requires it", pytrace=False)
    pytest.skip(message)


def test_xorriso_reads_the_boot_catalog_and_files(parts, tmp_path):
    """An independent ISO tool sees what firmware will: the label, a
    BIOS and a UEFI El Torito image, and the files by their names."""
    xorriso = _require_xorriso()
    out = tmp_path / "out.iso"
    boot_iso.build(str(out), str(parts["kernel"]), str(parts["ramdisk"]),
                   "p=1", esp_image=str(parts["esp"]),
                   isolinux=(str(parts["isolinux.bin"]),
                             str(parts["ldlinux.c32"])))
    report = subprocess.run(
        [xorriso, "-indev", str(out), "-report_el_torito", "plain",
         "-find", "/", "-type", "f"],
        capture_output=True, text=True, check=True)
    text = report.stdout + report.stderr
    assert "Volume id    : 'VMEDIA_BOOT_ISO'" in text
    images = re.findall(r"El Torito img path :\s+\d+\s+(\S+)", text)
    assert images == ["/isolinux/isolinux.bin", "/images/efiboot.img"]
    assert re.search(r"boot img :\s+1\s+BIOS\s+y\s+none", text)
    assert re.search(r"boot img :\s+2\s+UEFI\s+y\s+none", text)
    for name in ("'/vmlinuz'", "'/initrd'", "'/EFI/BOOT/grub.cfg'",
                 "'/isolinux/isolinux.cfg'", "'/isolinux/ldlinux.c32'"):
        assert name in text
