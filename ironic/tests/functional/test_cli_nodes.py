"""Nodes through ``openstack baremetal`` (python-ironicclient's plugin).

Every CLI call is a process start of a second or more, so each test walks a
whole scenario and checks the ``-f json`` output at every step; setup that
is not under test goes through the SDK, which is much faster.
"""

from __future__ import annotations

import pytest

from ironic.tests.functional import service as svc

MASK = "******"


@pytest.fixture(scope="module")
def cli_latest(service):
    return svc.Cli(service.endpoint, api_version="latest")


def test_node_create_show_list_set_unset_delete(cli, unique):
    name = f"cli-{unique}"
    rc = f"rc-{unique}"
    created = cli.json(
        "node", "create", "--driver", "fake-hardware", "--name", name,
        "--driver-info", "ipmi_address=192.0.2.5",
        "--driver-info", "ipmi_password=hunter2",
        "--property", "cpus=4", "--property", "cpu_arch=x86_64",
        "--extra", "rack=r2", "--resource-class", rc)
    assert created["name"] == name
    assert created["driver"] == "fake-hardware"
    assert created["driver_info"] == {"ipmi_address": "192.0.2.5",
                                      "ipmi_password": MASK}
    # The CLI turns numeric strings into numbers; the API keeps the types.
    assert created["properties"] == {"cpus": 4, "cpu_arch": "x86_64"}
    assert created["extra"] == {"rack": "r2"}
    assert created["resource_class"] == rc
    assert created["provision_state"] == "enroll"
    uuid = created["uuid"]

    shown = cli.json("node", "show", name)
    assert shown["uuid"] == uuid
    assert shown["driver_info"] == created["driver_info"]
    assert shown["created_at"] == created["created_at"]

    listed = cli.json("node", "list", "--resource-class", rc)
    assert listed == [{"uuid": uuid, "name": name, "instance_uuid": None,
                       "power_state": None, "provision_state": "enroll",
                       "maintenance": False}]

    cli.run("node", "set", name, "--name", f"{name}-b",
            "--extra", "row=7", "--property", "memory_mb=2048",
            "--instance-info", "image_source=http://192.0.2.9/i.img",
            "--driver-info", "ipmi_username=admin")
    shown = cli.json("node", "show", uuid)
    assert shown["name"] == f"{name}-b"
    assert shown["extra"] == {"rack": "r2", "row": 7}
    assert shown["properties"] == {"cpus": 4, "cpu_arch": "x86_64",
                                   "memory_mb": 2048}
    assert shown["instance_info"] == {
        "image_source": "http://192.0.2.9/i.img"}
    assert shown["driver_info"] == {"ipmi_address": "192.0.2.5",
                                    "ipmi_password": MASK,
                                    "ipmi_username": "admin"}
    assert shown["updated_at"] is not None

    cli.run("node", "unset", uuid, "--extra", "rack",
            "--property", "cpus", "--instance-info", "image_source")
    shown = cli.json("node", "show", f"{name}-b")
    assert shown["extra"] == {"row": 7}
    assert shown["properties"] == {"cpu_arch": "x86_64", "memory_mb": 2048}
    assert shown["instance_info"] == {}

    deleted = cli.run("node", "delete", f"{name}-b")
    assert f"Deleted node {name}-b" in deleted.stdout + deleted.stderr
    gone = cli.run("node", "show", uuid, check=False)
    assert gone.returncode != 0
    assert "could not be found" in gone.stderr
    assert "HTTP 404" in gone.stderr


def test_node_list_long_shows_masked_details(cli, conn, unique):
    rc = f"rc-{unique}"
    node = conn.baremetal.create_node(
        driver="fake-hardware", name=f"cli-{unique}", resource_class=rc,
        driver_info={"redfish_password": "x", "redfish_address": "a"})
    listed = cli.json("node", "list", "--long", "--resource-class", rc)
    assert len(listed) == 1
    row = listed[0]
    assert row["uuid"] == node.id
    assert row["driver_info"] == {"redfish_password": MASK,
                                  "redfish_address": "a"}
    assert row["resource_class"] == rc
    assert row["driver"] == "fake-hardware"


def test_node_traits_add_list_remove(cli_latest, conn, unique):
    node = conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"cli-{unique}")
    added = cli_latest.run("node", "add", "trait", node.id, "CUSTOM_RAID",
                           "HW_CPU_X86_VMX")
    assert "Added trait CUSTOM_RAID" in added.stdout
    listed = cli_latest.json("node", "trait", "list", node.id)
    assert sorted(t["traits"] for t in listed) == ["CUSTOM_RAID",
                                                    "HW_CPU_X86_VMX"]
    cli_latest.run("node", "remove", "trait", node.id, "CUSTOM_RAID")
    assert cli_latest.json("node", "show", node.id)["traits"] == [
        "HW_CPU_X86_VMX"]
    missing = cli_latest.run("node", "remove", "trait", node.id,
                             "CUSTOM_RAID", check=False)
    assert missing.returncode != 0
    assert "CUSTOM_RAID" in missing.stderr
    cli_latest.run("node", "remove", "trait", node.id, "--all")
    assert conn.baremetal.get_node(node.id).traits == []


def test_invalid_input_is_reported_by_the_cli(cli, unique):
    bad = cli.run("node", "create", "--driver", "no-such-hardware",
                  "--name", f"cli-{unique}", check=False)
    assert bad.returncode != 0
    assert "no-such-hardware" in bad.stderr
    assert "HTTP 400" in bad.stderr
    trait = cli.run("node", "create", "--driver", "fake-hardware",
                    "--name", f"bad name {unique}", check=False)
    assert trait.returncode != 0
    assert "HTTP 400" in trait.stderr


def test_pinned_old_version_hides_newer_fields(service, conn, unique):
    node = conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"cli-{unique}")
    old = svc.Cli(service.endpoint, api_version="1.31")
    shown = old.json("node", "show", node.id)
    assert shown["uuid"] == node.id
    assert "boot_interface" in shown  # 1.31
    assert "storage_interface" not in shown  # 1.33
    assert "traits" not in shown  # 1.37


def test_version_above_the_maximum_is_refused(service):
    advertised = svc.max_minor_version(service.endpoint)
    pinned = svc.Cli(service.endpoint, api_version=f"1.{advertised + 1}")
    refused = pinned.run("node", "list", check=False)
    assert refused.returncode != 0
    assert f"1.{advertised}" in refused.stderr
