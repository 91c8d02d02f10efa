"""Virtual media ISOs built by the service from deploy_kernel/deploy_ramdisk.

The node asks for inspection with the agent; the conductor builds an ISO
holding the kernel, ramdisk, kernel parameters and a fresh agent token,
publishes it under [deploy]http_root (served over HTTP here), and tells
sushy-tools' emulator to insert it. The emulator downloads it for real;
the test opens the emulator's copy with pycdlib, finds everything in it,
checks that ironic-python-agent's own parameter reading gets the API URL
and token from that command line, then plays the agent: lookup finds the
node without revealing the token, and a heartbeat proving the token from
the ISO is accepted (one with another token is not). Abort ejects the CD and unpublishes the ISO.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
import sushy

from ironic.common import boot_iso, states
from ironic.drivers.modules import redfish_boot
from ironic.tests import fixtures as ifx
from ironic.tests.emulators.launch import RedfishEmulator, system_macs
from ironic.tests.functional.redfish_helpers import (
    ImageServer,
    emulator_cd,
    emulator_system,
    make_task,
)

V = "1.87"
# The agent's own reading of its command line (what it would find in
# /proc/cmdline after booting the ISO) and of its options; run apart
# because the agent's options live on oslo.config's global CONF.
AGENT_READS = """
import json, sys
from ironic_python_agent import utils
params = utils._read_params_from_file(sys.argv[1])
utils._set_cached_params(params)
from ironic_python_agent import config  # noqa: F401 - its options
from oslo_config import cfg
cfg.CONF([], project="ironic-python-agent")
print(json.dumps({"api_url": cfg.CONF.api_url,
                  "agent_token": cfg.CONF.agent_token}))
"""
KERNEL = os.urandom(150_000)
RAMDISK = os.urandom(900_000)
ESP = b"\xeb\x3c\x90mkfs.fat" + bytes(2048)


@pytest.fixture(scope="module")
def bmc():
    with RedfishEmulator(count=1, user="admin", password="pw") as emu:
        yield emu


@pytest.fixture(scope="module")
def http():
    """The conductor host's HTTP server: serves [deploy]http_root, which
    also holds the agent's kernel and ramdisk here."""
    with ImageServer(()) as server:
        for name, data in (("ipa.kernel", KERNEL), ("ipa.initramfs", RAMDISK),
                           ("esp.img", ESP)):
            with open(os.path.join(server.root, name), "wb") as f:
                f.write(data)
        yield server


@pytest.fixture
def env(api_without_conductor, config, monkeypatch, http):
    api = api_without_conductor
    ifx.configure_test_drivers(
        config, hardware_types=["redfish"], power=["redfish"],
        management=["redfish"],
        boot=["redfish-virtual-media", "redfish-https", "fake"],
        inspect=["agent", "no-inspect"])
    config(rpc_transport="none", host="test-conductor")
    config("redfish", connection_retry_interval=0, connection_attempts=2,
           use_swift=False, kernel_append_params="console=ttyS0")
    config("deploy", http_root=http.root, http_url=http.url("")[:-1])
    config("api", public_endpoint="http://127.0.0.1:6385")
    with ifx.conductor_in_process(monkeypatch) as svc:
        api.version = V
        yield api, svc


def _wait(env, resp):
    assert resp.status_int == 202, resp.body
    assert env[1].pool.wait_idle(60)


def _node(api, bmc, http, boot="redfish-virtual-media", **extra):
    resp = api.post("/v1/nodes", {
        "driver": "redfish", "boot_interface": boot,
        "inspect_interface": "agent",
        "driver_info": {
            "redfish_address": bmc.url, "redfish_username": "admin",
            "redfish_password": "pw",
            "redfish_system_id": f"/redfish/v1/Systems/{bmc.systems()[0]}",
            "deploy_kernel": http.url("ipa.kernel"),
            "deploy_ramdisk": http.url("ipa.initramfs"),
            "bootloader": http.url("esp.img"), **extra}})
    assert resp.status_int == 201, resp.body
    uuid = resp.json["uuid"]
    resp = api.post("/v1/ports", {"node_uuid": uuid,
                                  "address": system_macs(0)[0]})
    assert resp.status_int == 201, resp.body
    return uuid


def test_the_bmc_boots_the_iso_the_service_built(env, bmc, http, tmp_path):
    api = env[0]
    uuid = _node(api, bmc, http)
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "manage"}))
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "inspect"}))
    node = api.get(f"/v1/nodes/{uuid}").json
    assert node["provision_state"] == states.INSPECTWAIT, node["last_error"]

    name = f"boot-{uuid}.iso"
    url = http.url(f"redfish/{name}")
    cd = emulator_cd(bmc)
    assert (cd.inserted, cd.image) == (True, url)
    system = emulator_system(bmc)
    assert system.boot.target == sushy.BOOT_SOURCE_TARGET_CD
    assert system.power_state == sushy.POWER_STATE_ON

    # What the BMC downloaded, byte for byte the published image.
    copies = bmc.downloaded_media(name)
    assert len(copies) == 1, copies
    with open(copies[0], "rb") as f, \
            open(os.path.join(http.root, "redfish", name), "rb") as g:
        assert f.read() == g.read()
    iso = copies[0]
    assert boot_iso.read_file(iso, "vmlinuz") == KERNEL
    assert boot_iso.read_file(iso, "initrd") == RAMDISK
    assert boot_iso.read_file(iso, "images/efiboot.img") == ESP
    grub = boot_iso.read_file(iso, "EFI/BOOT/grub.cfg").decode()
    cmdline = re.search(r"linux /vmlinuz (.*)\n", grub).group(1).split()
    assert cmdline[0] == "console=ttyS0"
    assert "ipa-api-url=http://127.0.0.1:6385" in cmdline
    assert "boot_method=vmedia" in cmdline
    token = next(p.split("=", 1)[1] for p in cmdline
                 if p.startswith("ipa-agent-token="))
    # The real agent, given that command line, calls this API with this
    # token.
    cmdline_file = str(tmp_path / "cmdline")
    with open(cmdline_file, "w", encoding="utf-8") as f:
        f.write(" ".join(cmdline))
    agent = json.loads(subprocess.run(
        [sys.executable, "-c", AGENT_READS, cmdline_file], check=True,
        capture_output=True, text=True, timeout=60).stdout)
    assert agent == {"api_url": "http://127.0.0.1:6385",
                     "agent_token": token}

    # The agent's first lookup finds the node and never shows the token.
    resp = api.get(f"/v1/lookup?addresses={system_macs(0)[0]}")
    assert resp.status_int == 200, resp.body
    assert resp.json["node"]["uuid"] == uuid
    assert resp.json["config"]["agent_token"] == "******"
    # Its heartbeat proves the token from the ISO; another one is refused.
    wrong = api.post(f"/v1/heartbeat/{uuid}",
                     {"callback_url": "https://127.0.0.1:9999",
                      "agent_token": token[::-1], "agent_version": "13.0.0"})
    assert wrong.status_int == 400, wrong.body
    assert "agent token" in wrong.json["error_message"]
    good = api.post(f"/v1/heartbeat/{uuid}",
                    {"callback_url": "https://127.0.0.1:9999",
                     "agent_token": token, "agent_version": "13.0.0"})
    assert good.status_int == 202, good.body

    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "abort"}))
    assert emulator_cd(bmc).inserted is False
    assert not os.path.exists(os.path.join(http.root, "redfish", name))


def test_a_missing_kernel_fails_inspection_with_a_clear_error(env, bmc,
                                                              http):
    api = env[0]
    uuid = _node(api, bmc, http, deploy_kernel=http.url("nope.kernel"))
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "manage"}))
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "inspect"}))
    node = api.get(f"/v1/nodes/{uuid}").json
    assert node["provision_state"] == states.INSPECTFAIL
    assert "nope.kernel" in node["last_error"]
    assert not os.listdir(os.path.join(http.root, "redfish"))
    assert emulator_cd(bmc).inserted is False


def test_redfish_https_hands_the_iso_to_uefi_http_boot(env, bmc, http):
    api = env[0]
    uuid = _node(api, bmc, http, boot="redfish-https")
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "manage"}))
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "inspect"}))
    node = api.get(f"/v1/nodes/{uuid}").json
    assert node["provision_state"] == states.INSPECTWAIT, node["last_error"]
    name = f"boot-{uuid}.iso"
    url = http.url(f"redfish/{name}")
    assert emulator_system(bmc).boot.http_boot_uri == url
    assert node["driver_internal_info"]["redfish_uefi_http_url"] == url
    # The BMC's HTTP boot client downloaded the image the service built.
    copies = bmc.downloaded_media(name)
    assert copies
    grub = boot_iso.read_file(copies[-1], "EFI/BOOT/grub.cfg").decode()
    assert "ipa-agent-token=" in grub
    assert boot_iso.read_file(copies[-1], "vmlinuz") == KERNEL
    _wait(env, api.put(f"/v1/nodes/{uuid}/states/provision",
                       {"target": "abort"}))
    assert not os.path.exists(os.path.join(http.root, "redfish", name))
    node = api.get(f"/v1/nodes/{uuid}").json
    assert "redfish_uefi_http_url" not in node["driver_internal_info"]


def test_ramdisk_instance_boots_an_iso_built_from_its_kernel(bmc, http,
                                                             config):
    """A ramdisk deployment from instance_info/kernel and ramdisk: the
    conductor builds the instance's ISO, which the BMC boots every time."""
    config("redfish", connection_retry_interval=0, connection_attempts=1,
           use_swift=False)
    config("deploy", http_root=http.root, http_url=http.url("")[:-1])
    task = make_task(bmc, bootloader=http.url("esp.img"),
                     deploy_kernel=http.url("ipa.kernel"),
                     deploy_ramdisk=http.url("ipa.initramfs"))
    task.node.uuid = "5d0c7f3e-8a2b-4c1d-9e6f-0a1b2c3d4e5f"
    task.node.deploy_interface = "ramdisk"
    task.node.properties = {}
    task.node.boot_mode = None
    task.node.instance_info = {"kernel": http.url("ipa.kernel"),
                               "ramdisk": http.url("ipa.initramfs"),
                               "ramdisk_kernel_arguments": "console=tty0"}
    boot = redfish_boot.RedfishVirtualMediaBoot()
    boot.validate(task)
    boot.prepare_instance(task)
    name = f"boot-{task.node.uuid}.iso"
    cd = emulator_cd(bmc)
    assert (cd.inserted, cd.image) == (True, http.url(f"redfish/{name}"))
    system = emulator_system(bmc)
    assert system.boot.target == sushy.BOOT_SOURCE_TARGET_CD
    assert system.boot.enabled == sushy.BOOT_SOURCE_ENABLED_CONTINUOUS
    iso = bmc.downloaded_media(name)[-1]
    assert boot_iso.read_file(iso, "initrd") == RAMDISK
    grub = boot_iso.read_file(iso, "EFI/BOOT/grub.cfg").decode()
    assert "linux /vmlinuz root=/dev/ram0 text console=tty0\n" in grub
    assert "token" not in grub
    boot.clean_up_instance(task)
    assert emulator_cd(bmc).inserted is False
    assert not os.path.exists(os.path.join(http.root, "redfish", name))
