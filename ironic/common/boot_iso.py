"""Bootable ISO 9660 images of a kernel and a ramdisk, written with pycdlib.

The image a BMC presents as a virtual CD when it is told to boot a
ramdisk: the kernel (``/vmlinuz``) and ramdisk (``/initrd``), the kernel
command line in the configuration of each boot loader, and extra files
(e.g. a CA certificate for the agent). Two El Torito entries can make it
bootable:

* UEFI: an EFI system partition image (a FAT file system holding
  ``EFI/BOOT/BOOTX64.EFI``, usually GRUB), given by the caller. Its GRUB
  finds the CD by a file on it and reads the configuration at
  ``grub_config_path`` (``EFI/BOOT/grub.cfg``) from the CD;
* legacy BIOS: ISOLINUX (``isolinux.bin`` and its ``ldlinux.c32``), with
  ``isolinux/isolinux.cfg``.

pycdlib is pure Python and reads the large files only while writing, so a
build needs no root, no loop devices and little memory. Names are kept
in Rock Ridge and Joliet as given (lower case), which is what Linux, the
firmware and GRUB see; the plain ISO 9660 names are upper-case 8.3 forms.
"""

from __future__ import annotations

import io
import os
import re

import pycdlib

#: Volume label of the images (what the agent and udev see).
VOLUME_ID = "VMEDIA_BOOT_ISO"
KERNEL = "vmlinuz"
RAMDISK = "initrd"
ESP_PATH = "images/efiboot.img"
ISOLINUX_DIR = "isolinux"


class BuildError(Exception):
    """The image could not be built (a missing or unreadable input)."""


def grub_config(params: str) -> str:
    """GRUB configuration booting the image's kernel with ``params``."""
    return (
        "set default=0\n"
        "set timeout=5\n"
        f"# The CD holds /{KERNEL}; find it whatever its device name.\n"
        f"search --no-floppy --file --set=root /{KERNEL}\n"
        "menuentry \"boot_ramdisk\" {\n"
        f"    linux /{KERNEL} {params}\n"
        f"    initrd /{RAMDISK}\n"
        "}\n")


def isolinux_config(params: str) -> str:
    """ISOLINUX configuration booting the kernel with ``params``."""
    return (
        "default boot\n"
        "prompt 0\n"
        "timeout 5\n"
        "label boot\n"
        f"    kernel /{KERNEL}\n"
        f"    append initrd=/{RAMDISK} text {params} --\n")


def _iso9660_name(name: str, is_dir: bool) -> str:
    """An ISO 9660 level 1 name for ``name`` (8.3, upper case)."""
    stem, dot, ext = name.upper().rpartition(".")
    if not dot:
        stem, ext = ext, ""
    stem = re.sub(r"[^A-Z0-9_]", "_", stem)[:8] or "_"
    ext = re.sub(r"[^A-Z0-9_]", "_", ext)[:3]
    if is_dir:
        return stem
    return f"{stem}.{ext};1" if ext else f"{stem}.;1"


class _Tree:
    """Adds files under their Rock Ridge/Joliet paths, creating the
    directories on the way and keeping the ISO 9660 names unique."""

    def __init__(self, iso: pycdlib.PyCdlib) -> None:
        self.iso = iso
        self.dirs: dict[str, str] = {"": ""}
        self.used: set[str] = set()

    def unique(self, parent: str, name: str, is_dir: bool) -> str:
        base = _iso9660_name(name, is_dir)
        candidate, n = base, 0
        while f"{parent}/{candidate}" in self.used:
            n += 1
            stem = base.split(".")[0]
            suffix = base[len(stem):]
            tag = str(n)
            candidate = stem[:8 - len(tag)] + tag + suffix
        self.used.add(f"{parent}/{candidate}")
        return f"{parent}/{candidate}"

    def directory(self, path: str) -> str:
        """The ISO 9660 path of directory ``path`` (a/b), made if new."""
        path = path.strip("/")
        if path in self.dirs:
            return self.dirs[path]
        parent, _, name = path.rpartition("/")
        parent_iso = self.directory(parent)
        iso_path = self.unique(parent_iso, name, True)
        self.iso.add_directory(iso_path, rr_name=name,
                               joliet_path=f"/{path}")
        self.dirs[path] = iso_path
        return iso_path

    def _place(self, path: str) -> tuple[str, str, str]:
        path = path.strip("/")
        parent, _, name = path.rpartition("/")
        iso_path = self.unique(self.directory(parent), name, False)
        return iso_path, name, f"/{path}"

    def file(self, path: str, source: str) -> str:
        iso_path, name, joliet = self._place(path)
        self.iso.add_file(source, iso_path=iso_path, rr_name=name,
                          joliet_path=joliet)
        return iso_path

    def data(self, path: str, content: bytes) -> str:
        iso_path, name, joliet = self._place(path)
        self.iso.add_fp(io.BytesIO(content), len(content), iso_path,
                        rr_name=name, joliet_path=joliet)
        return iso_path


def _check_readable(path: str, what: str) -> None:
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        raise BuildError(f"The {what} {path} is not a readable file.")


def build(output: str, kernel: str, ramdisk: str, params: str, *,
          esp_image: str | None = None,
          isolinux: tuple[str, str] | None = None,
          grub_config_path: str = "EFI/BOOT/grub.cfg",
          inject: dict[str, bytes] | None = None) -> None:
    """Write a bootable ISO to ``output``.

    ``esp_image`` makes it UEFI-bootable, ``isolinux`` (paths of
    ``isolinux.bin`` and ``ldlinux.c32``) BIOS-bootable; at least one is
    needed. ``inject`` maps paths on the image to their content.
    """
    if not esp_image and not isolinux:
        raise BuildError("A bootable ISO needs an EFI system partition "
                         "image (UEFI) or ISOLINUX (legacy BIOS).")
    _check_readable(kernel, "kernel")
    _check_readable(ramdisk, "ramdisk")
    if esp_image:
        _check_readable(esp_image, "EFI system partition image")
    if isolinux:
        _check_readable(isolinux[0], "ISOLINUX boot loader")
        _check_readable(isolinux[1], "ISOLINUX module ldlinux.c32")
    iso = pycdlib.PyCdlib()
    iso.new(interchange_level=1, vol_ident=VOLUME_ID, joliet=3,
            rock_ridge="1.09", app_ident_str="ironic")
    try:
        tree = _Tree(iso)
        tree.file(KERNEL, kernel)
        tree.file(RAMDISK, ramdisk)
        tree.data(grub_config_path, grub_config(params).encode())
        if isolinux:
            loader = tree.file(f"{ISOLINUX_DIR}/isolinux.bin", isolinux[0])
            tree.file(f"{ISOLINUX_DIR}/ldlinux.c32", isolinux[1])
            tree.data(f"{ISOLINUX_DIR}/isolinux.cfg",
                      isolinux_config(params).encode())
            catalog = tree.unique(tree.directory(ISOLINUX_DIR),
                                   "boot.cat", False)
            # 4 sectors of 512 bytes loaded, with the boot information
            # table ISOLINUX expects patched in.
            iso.add_eltorito(loader, bootcatfile=catalog,
                             rr_bootcatname="boot.cat",
                             joliet_bootcatfile=f"/{ISOLINUX_DIR}/boot.cat",
                             boot_load_size=4, boot_info_table=True)
        if esp_image:
            esp = tree.file(ESP_PATH, esp_image)
            if isolinux:
                iso.add_eltorito(esp, efi=True)
            else:
                catalog = tree.unique(tree.directory("images"),
                                       "boot.cat", False)
                iso.add_eltorito(esp, bootcatfile=catalog,
                                 rr_bootcatname="boot.cat",
                                 joliet_bootcatfile="/images/boot.cat",
                                 platform_id=0xEF, efi=True)
        for path, content in (inject or {}).items():
            tree.data(path, content)
        tmp = f"{output}.part"
        try:
            iso.write(tmp)
            os.replace(tmp, output)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except (pycdlib.pycdlibexception.PyCdlibException, OSError) as e:
        raise BuildError(f"Building the ISO image failed: {e}") from e
    finally:
        iso.close()


def read_file(iso_path: str, path: str) -> bytes:
    """The content of ``path`` (Rock Ridge name) on the image; for tests
    and tools that check what was built."""
    iso = pycdlib.PyCdlib()
    iso.open(iso_path)
    try:
        out = io.BytesIO()
        iso.get_file_from_iso_fp(out, rr_path=f"/{path.strip('/')}")
        return out.getvalue()
    finally:
        iso.close()
