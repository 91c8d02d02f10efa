"""Drivers and node interfaces through ``openstack baremetal``.

A service of its own runs fake-hardware next to the out-of-tree
``example-hw`` (a separate distribution with its own entry points), so the
CLI sees two hardware types with different power interfaces.
"""

from __future__ import annotations

import pytest

from ironic.tests.functional import service as svc

DRIVERS = dict(svc.TEST_DRIVERS,
               enabled_hardware_types="fake-hardware,example-hw",
               enabled_power_interfaces="fake,example",
               enabled_boot_interfaces="fake,ipxe")


@pytest.fixture(scope="module")
def drivers_service(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("aio-drivers")
    # iPXE needs an HTTP root; nothing here boots, so no server serves it.
    sections = {"deploy": {"http_root": str(workdir / "httpboot"),
                           "http_url": "http://127.0.0.1:9/"}}
    server = svc.Service(workdir, drivers=DRIVERS,
                         sections=sections).start()
    try:
        yield server
    finally:
        assert server.stop() == 0, server.logs()


@pytest.fixture(scope="module")
def dcli(drivers_service):
    return svc.Cli(drivers_service.endpoint, api_version="1.38")


def test_driver_list_show_and_properties(dcli):
    listed = dcli.json("driver", "list")
    assert sorted(d["name"] for d in listed) == ["example-hw",
                                                  "fake-hardware"]
    assert all(d["hosts"] for d in listed)
    shown = dcli.json("driver", "show", "example-hw")
    assert shown["default_power_interface"] == "example"
    # The CLI prints lists joined with commas.
    assert shown["enabled_power_interfaces"] == "example"
    assert shown["default_deploy_interface"] == "fake"
    props = dcli.json("driver", "property", "list", "example-hw")
    # With the fake vendor interface's two made-up keys.
    assert {p["property"] for p in props} >= {"example_address",
                                              "example_outlet"}
    bad = dcli.run("driver", "show", "ipmi", check=False)
    assert bad.returncode != 0 and "ipmi" in bad.stderr


def test_node_interfaces_set_and_validate(dcli):
    node = dcli.json("node", "create", "--driver", "example-hw",
                     "--power-interface", "example",
                     "--driver-info", "example_address=192.0.2.9")
    assert node["power_interface"] == "example"
    assert node["rescue_interface"] == "fake"
    uuid = node["uuid"]
    dcli.run("node", "set", uuid, "--rescue-interface", "no-rescue")
    assert dcli.json("node", "show", uuid)["rescue_interface"] == "no-rescue"
    bad = dcli.run("node", "set", uuid, "--power-interface", "fake",
                   check=False)
    assert bad.returncode != 0
    assert "not supported by hardware type example-hw" in bad.stderr
    report = {r["Interface"]: r for r in dcli.json("node", "validate", uuid)}
    assert report["power"]["Result"] is True
    assert report["rescue"]["Result"] is False
    assert "does not support rescue" in report["rescue"]["Reason"]
    dcli.run("node", "unset", uuid, "--driver-info", "example_address")
    report = {r["Interface"]: r for r in dcli.json("node", "validate", uuid)}
    assert report["power"]["Result"] is False
    assert "example_address" in report["power"]["Reason"]


def _boot_report(dcli, uuid):
    report = {r["Interface"]: r for r in dcli.json("node", "validate", uuid)}
    return report["boot"]


def test_node_set_boot_interface(dcli):
    uuid = dcli.json("node", "create", "--driver", "fake-hardware")["uuid"]
    assert dcli.json("node", "show", uuid)["boot_interface"] == "fake"
    dcli.run("node", "set", uuid, "--boot-interface", "ipxe")
    assert dcli.json("node", "show", uuid)["boot_interface"] == "ipxe"
    # Validation walks through what network boot still lacks.
    boot = _boot_report(dcli, uuid)
    assert boot["Result"] is False and "pxe_enabled" in boot["Reason"]
    dcli.run("port", "create", "52:54:00:12:34:56", "--node", uuid)
    boot = _boot_report(dcli, uuid)
    assert boot["Result"] is False and "deploy_kernel" in boot["Reason"]
    dcli.run("node", "set", uuid,
             "--driver-info", "deploy_kernel=http://127.0.0.1:9/k",
             "--driver-info", "deploy_ramdisk=http://127.0.0.1:9/r")
    assert _boot_report(dcli, uuid)["Result"] is True
    # pxe exists but is not enabled here: refused, naming what is.
    bad = dcli.run("node", "set", uuid, "--boot-interface", "pxe",
                   check=False)
    assert bad.returncode != 0
    assert "pxe" in bad.stderr and "ipxe" in bad.stderr
    dcli.run("node", "set", uuid, "--boot-interface", "fake")
    assert dcli.json("node", "show", uuid)["boot_interface"] == "fake"


def test_boot_interface_outside_the_hardware_type_is_refused(dcli):
    uuid = dcli.json("node", "create", "--driver", "example-hw",
                     "--driver-info", "example_address=192.0.2.9")["uuid"]
    bad = dcli.run("node", "set", uuid, "--boot-interface", "ipxe",
                   check=False)
    assert bad.returncode != 0
    assert "not supported by hardware type example-hw" in bad.stderr
    assert dcli.json("node", "show", uuid)["boot_interface"] == "fake"


def test_create_with_an_unknown_interface_names_the_allowed(dcli):
    bad = dcli.run("node", "create", "--driver", "fake-hardware",
                   "--boot-interface", "pxe", check=False)
    assert bad.returncode != 0
    assert "pxe" in bad.stderr and "fake" in bad.stderr


def test_vendor_passthru_list_and_call(dcli):
    node = dcli.json("node", "create", "--driver", "fake-hardware")
    uuid = node["uuid"]
    methods = {m["Name"] for m in dcli.json("node", "passthru", "list",
                                             uuid)}
    assert methods == {"first_method", "second_method", "shared_lock_method"}
    # The client sends --arg values as the body (it drops them on GET).
    out = dcli.run("node", "passthru", "call", "--arg", "bar=5",
                   uuid, "second_method").stdout
    assert "bar" in out and "5" in out and "POST" in out
    bad = dcli.run("node", "passthru", "call", uuid, "first_method",
                   check=False)
    assert bad.returncode != 0 and "bar" in bad.stderr
