"""The http and http-ipxe boot interfaces: files under the HTTP root, the
DHCP answer of a UEFI HTTP boot client, the boot device chosen."""

from __future__ import annotations

import os

import pytest

from ironic.common import boot_devices, dhcp, exception
from ironic.drivers.modules import ipxe, pxe
from ironic.tests.unit.drivers.test_network_boot import (
    LINK_NAME,
    MAC,
    UUID,
    RecordingDHCP,
    _task,
    roots,  # noqa: F401 - fixture
)


class _HttpCapable:
    def __init__(self, management):
        self.inner = management

    def get_supported_boot_devices(self, task):
        return [boot_devices.PXE, boot_devices.UEFIHTTP]

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_http_grub_config_under_http_root(roots):  # noqa: F811
    task = _task(roots, capabilities="boot_mode:uefi")
    task.driver.management = _HttpCapable(task.driver.management)
    pxe.HttpBoot().prepare_ramdisk(task, {"ipa-agent-token": "secret"})
    config = (roots.http / UUID / "config").read_text()
    assert f"linux /{UUID}/deploy_kernel nofb vga=normal " \
           "ipa-api-url=http://192.0.2.10:6385" in config
    assert f"initrd /{UUID}/deploy_ramdisk" in config
    assert "secret" not in config
    for name in (f"grub.cfg-01-{LINK_NAME}", f"{MAC.lower()}.conf"):
        assert os.path.realpath(roots.http / name) == \
            str(roots.http / UUID / "config")
    assert (roots.http / UUID / "deploy_kernel").read_bytes() == \
        b"deploy.kernel" * 10
    assert not roots.tftp.exists()
    assert task.driver.management.inner.calls == [
        (boot_devices.UEFIHTTP, False)]
    pxe.HttpBoot().clean_up_ramdisk(task)
    assert not (roots.http / UUID).exists()
    assert not os.path.lexists(roots.http / f"{MAC.lower()}.conf")


def test_management_without_uefi_http_falls_back_to_pxe(roots):  # noqa: F811
    task = _task(roots, capabilities="boot_mode:uefi")
    task.driver.management.get_supported_boot_devices = \
        lambda task: [boot_devices.PXE, boot_devices.DISK]
    pxe.HttpBoot().prepare_ramdisk(task, {})
    assert task.driver.management.calls == [(boot_devices.PXE, False)]


@pytest.mark.parametrize("iface", [pxe.HttpBoot, ipxe.iPXEHttpBoot])
def test_bios_is_refused(roots, iface):  # noqa: F811
    task = _task(roots, capabilities="boot_mode:bios")
    with pytest.raises(exception.InvalidParameterValue, match="UEFI"):
        iface().validate(task)


def test_http_needs_the_http_server(roots, config):  # noqa: F811
    config("deploy", http_url=None)
    task = _task(roots, capabilities="boot_mode:uefi")
    with pytest.raises(exception.MissingParameterValue,
                       match=r"\[deploy\]http_url"):
        pxe.HttpBoot().validate(task)


def test_dhcp_answers_with_urls(roots, config):  # noqa: F811
    provider = RecordingDHCP()
    config("dhcp", dhcp_provider="recording")
    dhcp._PROVIDERS["recording"] = provider
    task = _task(roots, capabilities="boot_mode:uefi")
    task.driver.management = _HttpCapable(task.driver.management)
    pxe.HttpBoot().prepare_ramdisk(task, {})
    assert provider.updates[-1] == [
        {"opt_name": "67", "opt_value": "http://192.0.2.10:8080/bootx64.efi",
         "ip_version": 4},
        {"opt_name": "60", "opt_value": "HTTPClient", "ip_version": 4}]
    ipxe.iPXEHttpBoot().prepare_ramdisk(task, {})
    assert provider.updates[-1] == [
        {"opt_name": "tag:!ipxe,67",
         "opt_value": "http://192.0.2.10:8080/snponly.efi", "ip_version": 4},
        {"opt_name": "tag:!ipxe,60", "opt_value": "HTTPClient",
         "ip_version": 4},
        {"opt_name": "tag:ipxe,67",
         "opt_value": "http://192.0.2.10:8080/boot.ipxe", "ip_version": 4}]
