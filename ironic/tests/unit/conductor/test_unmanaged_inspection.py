"""Unmanaged inspection: a node whose boot interface cannot boot the
ramdisk is set to boot from the network once and powered on, for a
separate PXE environment to serve ([inspector]require_managed_boot)."""

from __future__ import annotations

import pytest

from ironic.common import states
from ironic.objects.node import Node
from ironic.tests import data
from ironic.tests.unit.conductor import test_inband_inspection as inband


@pytest.fixture
def env(api, config, monkeypatch):
    yield from inband.conductor_env(api, config, monkeypatch,
                                    inspect=["fake", "agent"],
                                    boot=["fake", "pxe"])


def _portless_pxe_node(env):
    # No ports and no deploy images: pxe cannot boot the ramdisk.
    return inband._node(env, boot_interface="pxe")


def test_managed_boot_is_required_by_default(env):
    uuid = _portless_pxe_node(env)
    resp = inband._provision(env, uuid, "inspect", status=400)
    assert "deploy_kernel" in resp.json["error_message"] or \
        "port" in resp.json["error_message"], resp.json
    assert inband._get(env, uuid)["provision_state"] == states.MANAGEABLE


def test_unmanaged_inspection_boots_from_the_network(env, config):
    config("inspector", require_managed_boot=False)
    uuid = _portless_pxe_node(env)
    inband._provision(env, uuid, "inspect")
    node = Node.get(uuid)
    assert node.provision_state == states.INSPECTWAIT, node.last_error
    assert node.power_state == states.POWER_ON
    info = node.driver_internal_info
    assert info["fake_boot_device"] == {"boot_device": "pxe",
                                        "persistent": False}
    assert info["inspector_manage_boot"] is False
    # The ramdisk the separate environment booted posts its data.
    resp = inband._post_data(env, data.ipa_inspection_data(),
                             f"?node_uuid={uuid}", version="1.84")
    assert resp.status_int == 202, resp.body
    node = Node.get(uuid)
    assert node.provision_state == states.MANAGEABLE, node.last_error
    assert node.power_state == states.POWER_OFF
    assert "inspector_manage_boot" not in node.driver_internal_info


def test_managed_inspection_stays_when_the_boot_interface_can(env, config):
    config("inspector", require_managed_boot=False)
    uuid = inband._node(env)  # fake boot can boot the ramdisk
    inband._provision(env, uuid, "inspect")
    node = Node.get(uuid)
    assert node.provision_state == states.INSPECTWAIT
    assert node.driver_internal_info["inspector_manage_boot"] is True
