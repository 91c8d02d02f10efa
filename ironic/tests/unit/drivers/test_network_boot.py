"""The pxe and ipxe boot interfaces write real files in a temporary TFTP
and HTTP root: configurations, per-MAC links, cached images, clean-up."""

from __future__ import annotations

import os
import types

import pytest

from ironic.common import boot_devices, dhcp, exception, states
from ironic.drivers.modules import ipxe, pxe

UUID = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
MAC = "52:54:00:AA:BB:01"
LINK_NAME = "52-54-00-aa-bb-01"


class RecordingManagement:
    def __init__(self):
        self.calls = []
        self.boot_mode = None

    def set_boot_device(self, task, device, persistent=False):
        self.calls.append((device, persistent))

    def get_boot_mode(self, task):
        return self.boot_mode

    def set_boot_mode(self, task, mode):
        self.boot_mode = mode


class RecordingDHCP(dhcp.DHCPProvider):
    def __init__(self):
        self.updates = []
        self.cleaned = 0

    def update_dhcp(self, task, options):
        self.updates.append(options)

    def clean_dhcp(self, task):
        self.cleaned += 1


@pytest.fixture
def roots(tmp_path, config):
    images = tmp_path / "images"
    images.mkdir()
    for name in ("deploy.kernel", "deploy.initrd", "rescue.kernel",
                 "rescue.initrd", "instance.kernel", "instance.initrd"):
        (images / name).write_bytes(name.encode() * 10)
    config("pxe", tftp_root=str(tmp_path / "tftp"),
           tftp_master_path=str(tmp_path / "tftp" / "master_images"))
    config("deploy", http_root=str(tmp_path / "http"),
           http_url="http://192.0.2.10:8080/")
    config("api", public_endpoint="http://192.0.2.10:6385/")
    config("dhcp", dhcp_provider="none")
    dhcp.reset()
    yield types.SimpleNamespace(
        tftp=tmp_path / "tftp", http=tmp_path / "http",
        image=lambda name: (images / name).as_uri())
    dhcp.reset()


def _task(roots, provision_state=states.DEPLOYING, driver_info=None,
          instance_info=None, capabilities=None, deploy="direct"):
    info = {"deploy_kernel": roots.image("deploy.kernel"),
            "deploy_ramdisk": roots.image("deploy.initrd"),
            "rescue_kernel": roots.image("rescue.kernel"),
            "rescue_ramdisk": roots.image("rescue.initrd")}
    info.update(driver_info or {})
    node = types.SimpleNamespace(
        uuid=UUID, driver_info=info, instance_info=instance_info or {},
        properties={"capabilities": capabilities} if capabilities else {},
        boot_mode=None, deploy_interface=deploy,
        provision_state=provision_state)
    ports = [types.SimpleNamespace(address=MAC, pxe_enabled=True),
             types.SimpleNamespace(address="52:54:00:aa:bb:02",
                                   pxe_enabled=False)]
    return types.SimpleNamespace(node=node, ports=ports,
                                 driver=types.SimpleNamespace(
                                     management=RecordingManagement()))


def _resolve(link):
    return os.path.realpath(link)


# --- pxe ----------------------------------------------------------------------

def test_pxe_bios_ramdisk_config_links_and_images(roots):
    task = _task(roots, capabilities="boot_mode:bios")
    pxe.PXEBoot().prepare_ramdisk(task, {"ipa-inspection-callback-url":
                                         "http://x/cb",
                                         "ipa-agent-token": "secret"})
    node_dir = roots.tftp / UUID
    config = (node_dir / "config").read_text()
    assert f"kernel {UUID}/deploy_kernel" in config
    assert f"append initrd={UUID}/deploy_ramdisk nofb vga=normal " \
           "ipa-api-url=http://192.0.2.10:6385 " \
           "ipa-inspection-callback-url=http://x/cb" in config
    assert "secret" not in config and "ipa-agent-token" not in config
    link = roots.tftp / "pxelinux.cfg" / f"01-{LINK_NAME}"
    assert os.readlink(link) == f"../{UUID}/config"
    assert _resolve(link) == str(node_dir / "config")
    assert _resolve(roots.tftp / f"grub.cfg-01-{LINK_NAME}") == \
        str(node_dir / "config")
    # Only the pxe_enabled port is linked.
    assert not (roots.tftp / "pxelinux.cfg" / "01-52-54-00-aa-bb-02"
                ).exists()
    kernel = node_dir / "deploy_kernel"
    assert kernel.read_bytes() == b"deploy.kernel" * 10
    assert os.stat(kernel).st_nlink == 2   # linked from the cache
    assert len([p for p in os.listdir(roots.tftp / "master_images")
                if "." not in p]) == 2
    assert oct(os.stat(node_dir / "config").st_mode & 0o777) == "0o644"
    assert task.driver.management.calls == [(boot_devices.PXE, False)]


def test_pxe_uefi_writes_grub_config_with_absolute_paths(roots):
    task = _task(roots)   # [deploy]default_boot_mode is uefi
    pxe.PXEBoot().prepare_ramdisk(task, {})
    config = (roots.tftp / UUID / "config").read_text()
    assert f"linux /{UUID}/deploy_kernel nofb vga=normal " \
           "ipa-api-url=http://192.0.2.10:6385 BOOTIF=$net_default_mac" \
        in config
    assert f"initrd /{UUID}/deploy_ramdisk" in config
    assert _resolve(roots.tftp / f"{MAC.lower()}.conf") == \
        str(roots.tftp / UUID / "config")


def test_rescue_boots_the_rescue_ramdisk(roots):
    task = _task(roots, provision_state=states.RESCUING,
                 capabilities="boot_mode:bios")
    pxe.PXEBoot().prepare_ramdisk(task, {})
    node_dir = roots.tftp / UUID
    assert sorted(os.listdir(node_dir)) == ["config", "rescue_kernel",
                                            "rescue_ramdisk"]
    assert f"kernel {UUID}/rescue_kernel" in (node_dir / "config").read_text()


def test_clean_up_ramdisk_removes_node_files_keeps_cache(roots):
    task = _task(roots)
    boot = pxe.PXEBoot()
    boot.prepare_ramdisk(task, {})
    boot.clean_up_ramdisk(task)
    assert not (roots.tftp / UUID).exists()
    assert not os.path.lexists(roots.tftp / "pxelinux.cfg" /
                               f"01-{LINK_NAME}")
    assert not os.path.lexists(roots.tftp / f"grub.cfg-01-{LINK_NAME}")
    masters = [p for p in os.listdir(roots.tftp / "master_images")
               if "." not in p]
    assert len(masters) == 2


def test_prepare_instance_local_boot_removes_network_boot(roots):
    task = _task(roots)
    boot = pxe.PXEBoot()
    boot.prepare_ramdisk(task, {})
    boot.prepare_instance(task)
    assert not (roots.tftp / UUID).exists()
    assert task.driver.management.calls[-1] == (boot_devices.DISK, True)


def test_never_persistent_boot_device(roots):
    task = _task(roots, driver_info={"force_persistent_boot_device":
                                     "Never"})
    pxe.PXEBoot().prepare_instance(task)
    assert task.driver.management.calls == [(boot_devices.DISK, False)]


def test_always_persistent_ramdisk_boot(roots):
    task = _task(roots, driver_info={"force_persistent_boot_device":
                                     "Always"})
    pxe.PXEBoot().prepare_ramdisk(task, {})
    assert task.driver.management.calls == [(boot_devices.PXE, True)]


def test_ramdisk_deploy_boots_the_instance_over_the_network(roots):
    task = _task(roots, deploy="ramdisk", capabilities="boot_mode:bios",
                 instance_info={"kernel": roots.image("instance.kernel"),
                                "ramdisk": roots.image("instance.initrd"),
                                "ramdisk_kernel_arguments": "root=/dev/ram0"})
    boot = pxe.PXEBoot()
    boot.prepare_ramdisk(task, {})
    boot.prepare_instance(task)
    node_dir = roots.tftp / UUID
    assert sorted(os.listdir(node_dir)) == ["config", "kernel", "ramdisk"]
    config = (node_dir / "config").read_text()
    assert f"kernel {UUID}/kernel" in config
    assert "nofb vga=normal root=/dev/ram0" in config
    assert "ipa-api-url" not in config
    assert task.driver.management.calls[-1] == (boot_devices.PXE, True)
    # The ramdisk clean-up after the deployment keeps the instance's boot.
    boot.clean_up_ramdisk(task)
    assert (node_dir / "config").exists()
    boot.clean_up_instance(task)
    assert not node_dir.exists()
    assert not os.path.lexists(roots.tftp / "pxelinux.cfg" /
                               f"01-{LINK_NAME}")


def test_kernel_params_from_driver_info_with_default(roots, config):
    config("pxe", kernel_append_params="console=ttyS0")
    task = _task(roots, capabilities="boot_mode:bios",
                 driver_info={"kernel_append_params": "%default% quiet"})
    pxe.PXEBoot().prepare_ramdisk(task, {"flag": None})
    config_text = (roots.tftp / UUID / "config").read_text()
    assert "console=ttyS0 quiet ipa-api-url=http://192.0.2.10:6385 flag" \
        in config_text


def test_operator_template_and_bad_placeholder(roots, config, tmp_path):
    template = tmp_path / "mine.template"
    template.write_text("KERNEL {{ kernel }} ARGS {{ kernel_params }}\n")
    config("pxe", pxe_config_template=str(template))
    task = _task(roots, capabilities="boot_mode:bios")
    pxe.PXEBoot().prepare_ramdisk(task, {})
    assert (roots.tftp / UUID / "config").read_text().startswith(
        f"KERNEL {UUID}/deploy_kernel ARGS nofb")
    template.write_text("KERNEL {{ kernal }}\n")
    with pytest.raises(exception.IronicException) as err:
        pxe.PXEBoot().prepare_ramdisk(task, {})
    assert "kernal" in str(err.value)


def test_requested_boot_mode_is_synced(roots):
    task = _task(roots, instance_info={"deploy_boot_mode": "bios"})
    task.driver.management.boot_mode = "uefi"
    pxe.PXEBoot().prepare_ramdisk(task, {})
    assert task.driver.management.boot_mode == "bios"
    assert f"kernel {UUID}/deploy_kernel" in \
        (roots.tftp / UUID / "config").read_text()


def test_dhcp_provider_gets_the_boot_options(roots, config):
    provider = RecordingDHCP()
    config("dhcp", dhcp_provider="recording")
    dhcp._PROVIDERS["recording"] = provider
    config("pxe", tftp_server="192.0.2.10")
    task = _task(roots, capabilities="boot_mode:bios")
    boot = ipxe.iPXEBoot()
    boot.prepare_ramdisk(task, {})
    options = {o["opt_name"]: o["opt_value"] for o in provider.updates[0]}
    assert options["tag:!ipxe,67"] == "undionly.kpxe"
    assert options["tag:ipxe,67"] == "http://192.0.2.10:8080/boot.ipxe"
    assert options["server-ip-address"] == "192.0.2.10"
    boot.clean_up_ramdisk(task)
    assert provider.cleaned == 1


# --- ipxe -----------------------------------------------------------------------

def test_ipxe_script_boot_script_and_link(roots, config):
    config("pxe", ipxe_timeout=30)
    assert not roots.http.exists()
    task = _task(roots)
    ipxe.iPXEBoot().prepare_ramdisk(task, {"ipa-debug": "1"})
    script = (roots.http / UUID / "config").read_text()
    assert script.startswith("#!ipxe\n")
    base = f"http://192.0.2.10:8080/{UUID}"
    assert f"kernel --timeout 30000 {base}/deploy_kernel nofb vga=normal " \
           f"ipa-api-url=http://192.0.2.10:6385 ipa-debug=1 " \
           f"initrd=deploy_ramdisk BOOTIF=${{mac}}" in script
    assert f"initrd --timeout 30000 {base}/deploy_ramdisk" in script
    link = roots.http / "pxelinux.cfg" / LINK_NAME
    assert _resolve(link) == str(roots.http / UUID / "config")
    boot_script = (roots.http / "boot.ipxe").read_text()
    assert boot_script.startswith("#!ipxe\n")
    assert "chain --autofree pxelinux.cfg/${net${nic}/mac:hexhyp}" \
        in boot_script
    assert (roots.http / UUID / "deploy_ramdisk").read_bytes() == \
        b"deploy.initrd" * 10
    # The cache is on the HTTP root's file system: links, not copies.
    assert os.stat(roots.http / UUID / "deploy_ramdisk").st_nlink == 2
    assert not roots.tftp.exists()


def test_ipxe_boot_script_follows_the_fallback_option(roots, config):
    task = _task(roots)
    ipxe.iPXEBoot().prepare_ramdisk(task, {})
    assert "chain --autofree inspector.ipxe" not in \
        (roots.http / "boot.ipxe").read_text()
    config("pxe", ipxe_fallback_script="inspector.ipxe")
    ipxe.iPXEBoot().prepare_ramdisk(task, {})
    assert "chain --autofree inspector.ipxe" in \
        (roots.http / "boot.ipxe").read_text()


def test_ipxe_clean_up_instance(roots):
    task = _task(roots)
    boot = ipxe.iPXEBoot()
    boot.prepare_ramdisk(task, {})
    boot.clean_up_instance(task)
    assert not (roots.http / UUID).exists()
    assert not os.path.lexists(roots.http / "pxelinux.cfg" / LINK_NAME)
    assert (roots.http / "boot.ipxe").exists()


def test_without_cache_files_are_plain_copies(roots, config):
    config("pxe", tftp_master_path="")
    task = _task(roots)
    ipxe.iPXEBoot().prepare_ramdisk(task, {})
    assert os.stat(roots.http / UUID / "deploy_kernel").st_nlink == 1
    assert not (roots.http / "master_images").exists()


# --- validation ---------------------------------------------------------------

@pytest.mark.parametrize("boot_class", [pxe.PXEBoot, ipxe.iPXEBoot])
def test_valid_node_passes(roots, boot_class):
    boot_class().validate(_task(roots))
    boot_class().validate_inspection(_task(roots))
    boot_class().validate_rescue(_task(roots))


@pytest.mark.parametrize("driver_info,error,text", [
    ({"deploy_kernel": None}, exception.MissingParameterValue,
     "driver_info/deploy_kernel"),
    ({"deploy_ramdisk": "0b3a3e29-1c55-4f3e-b1c4-1a2b3c4d5e6f"},
     exception.InvalidParameterValue, "driver_info/deploy_ramdisk"),
    ({"force_persistent_boot_device": "Sometimes"},
     exception.InvalidParameterValue, "force_persistent_boot_device"),
])
def test_bad_driver_info_is_named(roots, driver_info, error, text):
    with pytest.raises(error) as err:
        pxe.PXEBoot().validate(_task(roots, driver_info=driver_info))
    assert text in str(err.value)


def test_conductor_defaults_stand_in_for_driver_info(roots, config):
    config("conductor", deploy_kernel=roots.image("deploy.kernel"),
           deploy_ramdisk=roots.image("deploy.initrd"))
    task = _task(roots, driver_info={"deploy_kernel": None,
                                     "deploy_ramdisk": None})
    boot = pxe.PXEBoot()
    boot.validate(task)
    boot.prepare_ramdisk(task, {})
    assert (roots.tftp / UUID / "deploy_kernel").exists()


def test_rescue_needs_rescue_images(roots):
    task = _task(roots, driver_info={"rescue_ramdisk": None})
    with pytest.raises(exception.MissingParameterValue) as err:
        pxe.PXEBoot().validate_rescue(task)
    assert "rescue_ramdisk" in str(err.value)


def test_node_without_boot_nic_is_refused(roots):
    task = _task(roots)
    for port in task.ports:
        port.pxe_enabled = False
    with pytest.raises(exception.MissingParameterValue) as err:
        pxe.PXEBoot().validate(task)
    assert "pxe_enabled" in str(err.value)


def test_bad_boot_mode_capability(roots):
    with pytest.raises(exception.InvalidParameterValue) as err:
        pxe.PXEBoot().validate(_task(roots, capabilities="boot_mode:efi"))
    assert "boot_mode" in str(err.value)


def test_ramdisk_deploy_needs_instance_kernel_and_ramdisk(roots):
    task = _task(roots, deploy="ramdisk",
                 instance_info={"kernel": roots.image("instance.kernel")})
    with pytest.raises(exception.MissingParameterValue) as err:
        pxe.PXEBoot().validate(task)
    assert "instance_info/ramdisk" in str(err.value)


def test_image_source_with_boot_iso_is_refused(roots):
    task = _task(roots, instance_info={"image_source": "http://i/img",
                                       "boot_iso": "http://i/b.iso"})
    with pytest.raises(exception.InvalidParameterValue):
        pxe.PXEBoot().validate(task)


def test_ipxe_needs_the_http_server(roots, config):
    config("deploy", http_url=None)
    with pytest.raises(exception.MissingParameterValue) as err:
        ipxe.iPXEBoot().validate(_task(roots))
    assert "[deploy]http_url" in str(err.value)


def test_unavailable_dhcp_provider_fails_validation(roots, config):
    config("dhcp", dhcp_provider="neutron")
    with pytest.raises(exception.InvalidParameterValue) as err:
        pxe.PXEBoot().validate(_task(roots))
    assert "dhcp_provider" in str(err.value)


def test_properties_document_the_images():
    props = pxe.PXEBoot().get_properties()
    assert {"deploy_kernel", "deploy_ramdisk", "rescue_kernel",
            "rescue_ramdisk", "kernel_append_params",
            "force_persistent_boot_device"} == set(props)
