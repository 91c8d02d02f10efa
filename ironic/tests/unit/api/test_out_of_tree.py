"""An out-of-tree hardware type, installed as its own distribution."""

import importlib.metadata
import os
import types

import pytest

from ironic import driver_registry
from ironic.common import exception
from ironic.tests import fixtures as ifx
from ironic.tests.fixtures import error_message

DIST = "ironic-example-hw"


@pytest.fixture
def oot_api(database, config):
    ifx.configure_test_drivers(config, ["fake-hardware", "example-hw"],
                               power=["fake", "example"])
    from ironic.api import app as api_app
    ifx.register_test_conductor()
    return ifx.ApiClient(api_app.setup_app())


def test_it_is_a_separate_distribution_with_its_own_entry_points():
    dist = importlib.metadata.distribution(DIST)
    eps = {(ep.group, ep.name) for ep in dist.entry_points}
    assert eps == {("ironic.hardware.types", "example-hw"),
                   ("ironic.hardware.interfaces.power", "example")}
    if os.environ.get("TOX_ENV_NAME"):
        # Under tox it must really be installed, not published by the
        # test helper for a bare checkout.
        assert "site-packages" in str(dist.locate_file(""))


def test_loaded_when_enabled(database, config):
    ifx.configure_test_drivers(config, ["fake-hardware", "example-hw"],
                               power=["fake", "example"])
    hw = driver_registry.load().hardware_type("example-hw")
    assert hw.enabled["power"] == ["example"]
    assert hw.defaults["bios"] == "fake"


def test_listed_by_the_drivers_api(oot_api):
    names = [d["name"] for d in oot_api.get("/v1/drivers").json["drivers"]]
    assert names == ["example-hw", "fake-hardware"]
    shown = oot_api.get("/v1/drivers/example-hw", version="1.31").json
    assert shown["default_power_interface"] == "example"
    assert shown["enabled_power_interfaces"] == ["example"]


def test_usable_on_a_node(oot_api):
    resp = oot_api.post("/v1/nodes", {
        "driver": "example-hw", "driver_info": {"example_address": "a"}})
    assert resp.status_int == 201, resp.body
    assert resp.json["power_interface"] == "example"
    from ironic.objects.node import Node
    node = Node.get(resp.json["uuid"])
    task = types.SimpleNamespace(node=node)
    driver_registry.build_driver_for_task(task)
    report = driver_registry.validate_driver_interfaces(task)
    assert report["power"] == {"result": True}
    task.driver.power.set_power_state(task, "power on")
    assert task.driver.power.get_power_state(task) == "power on"
    node.driver_info = {}
    report = driver_registry.validate_driver_interfaces(task)
    assert report["power"]["result"] is False
    assert "example_address" in report["power"]["reason"]


def test_refused_when_not_enabled(api):
    resp = api.post("/v1/nodes", {"driver": "example-hw"})
    assert resp.status_int == 400
    assert "example-hw" in error_message(resp)
    assert api.get("/v1/drivers/example-hw").status_int == 404
    resp = api.post("/v1/nodes", {"driver": "fake-hardware",
                                  "power_interface": "example"})
    assert resp.status_int == 400
    assert "fake" in error_message(resp)


def test_enabled_type_without_its_interface_refuses_start(database,
                                                          config):
    ifx.configure_test_drivers(config, ["fake-hardware", "example-hw"])
    with pytest.raises(exception.DriverLoadError) as e:
        driver_registry.load()
    assert "example-hw" in str(e.value) and "power" in str(e.value)
