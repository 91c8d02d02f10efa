"""How long building a virtual media ISO takes.

Times ``ironic.common.boot_iso.build`` (pycdlib) for a kernel, a ramdisk of
``--ramdisk-mib`` MiB of random bytes and a 4 MiB EFI system partition
image, against two references on the same files in the same minutes: a
plain copy of the same bytes (the floor: building an ISO is mostly
copying) and ``xorriso`` (Debian's ISO tool, when installed) writing the
same tree with the same El Torito EFI entry. Also times the whole
``vmedia_image.build_and_publish`` path the boot interface runs (images
already in the boot image cache, so no download), which adds the cache
links and the publication.

    python tools/bench/iso_build_bench.py [--ramdisk-mib 400] [--runs 5]

Prints one Markdown table (median and spread of ``--runs`` runs). Files
live in a temporary directory on the same file system as /tmp.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import types

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__),
                                                "..", "..")))

from ironic.common import boot_iso  # noqa: E402


def _write_random(path: str, mib: int) -> None:
    chunk = os.urandom(1024 * 1024)
    with open(path, "wb") as f:
        for _ in range(mib):
            f.write(chunk)


def _timed(func, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return times


def _xorriso(work: str, out: str, kernel: str, ramdisk: str,
             esp: str) -> None:
    tree = os.path.join(work, "tree")
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(os.path.join(tree, "EFI", "BOOT"))
    os.makedirs(os.path.join(tree, "images"))
    for src, dst in ((kernel, "vmlinuz"), (ramdisk, "initrd"),
                     (esp, "images/efiboot.img")):
        os.link(src, os.path.join(tree, dst))
    with open(os.path.join(tree, "EFI", "BOOT", "grub.cfg"), "w") as f:
        f.write(boot_iso.grub_config("a=b"))
    subprocess.run(["xorriso", "-as", "mkisofs", "-quiet", "-r", "-J",
                    "-V", boot_iso.VOLUME_ID, "-e", "images/efiboot.img",
                    "-no-emul-boot", "-o", out, tree], check=True)


def _publish_path(work: str, kernel: str, ramdisk: str, esp: str):
    from ironic.conf import CONF
    from ironic.drivers.modules import vmedia_image

    CONF([], project="ironic", default_config_files=[])
    root = os.path.join(work, "httpboot")
    os.makedirs(root, exist_ok=True)
    CONF.set_override("http_root", root, group="deploy")
    CONF.set_override("http_url", "http://127.0.0.1:8080", group="deploy")
    CONF.set_override("use_swift", False, group="redfish")
    CONF.set_override("tftp_master_path", "/unused", group="pxe")
    node = types.SimpleNamespace(
        uuid="1be26c0b-03f2-4d2e-ae87-c02d7f33c123",
        driver_info={"deploy_kernel": f"file://{kernel}",
                     "deploy_ramdisk": f"file://{ramdisk}",
                     "bootloader": f"file://{esp}"},
        instance_info={}, properties={}, boot_mode=None,
        provision_state="cleaning")
    task = types.SimpleNamespace(node=node)
    # The first build fills the boot image cache; it is not timed.
    vmedia_image.build_and_publish(task, "deploy", "a=b")
    return lambda: vmedia_image.build_and_publish(task, "deploy", "a=b")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ramdisk-mib", type=int, default=400)
    ap.add_argument("--kernel-mib", type=int, default=12)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="iso-bench-") as work:
        kernel = os.path.join(work, "kernel")
        ramdisk = os.path.join(work, "ramdisk")
        esp = os.path.join(work, "esp.img")
        _write_random(kernel, args.kernel_mib)
        _write_random(ramdisk, args.ramdisk_mib)
        _write_random(esp, 4)
        out = os.path.join(work, "out.iso")
        total = (args.kernel_mib + args.ramdisk_mib + 4)

        def copy():
            with open(out, "wb") as dst:
                for src in (kernel, ramdisk, esp):
                    with open(src, "rb") as f:
                        shutil.copyfileobj(f, dst, 1024 * 1024)

        rows = [("copy of the same bytes (floor)", _timed(copy, args.runs)),
                ("boot_iso.build (pycdlib)", _timed(
                    lambda: boot_iso.build(out, kernel, ramdisk, "a=b",
                                           esp_image=esp), args.runs))]
        if shutil.which("xorriso"):
            rows.append(("xorriso -as mkisofs", _timed(
                lambda: _xorriso(work, out, kernel, ramdisk, esp),
                args.runs)))
        rows.append(("build_and_publish (cached images)",
                     _timed(_publish_path(work, kernel, ramdisk, esp),
                            args.runs)))
    print(f"{total} MiB of inputs (kernel {args.kernel_mib} MiB, ramdisk "
          f"{args.ramdisk_mib} MiB, ESP 4 MiB), {args.runs} runs\n")
    print("| | median | min - max | MiB/s (median) |")
    print("|---|---|---|---|")
    for name, times in rows:
        med = statistics.median(times)
        print(f"| {name} | {med:.2f} s | {min(times):.2f} - "
              f"{max(times):.2f} s | {total / med:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
