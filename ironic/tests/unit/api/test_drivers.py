"""/v1/drivers and vendor passthru method lists."""

import pytest

from ironic import hash_ring
from ironic.db import api as db_api
from ironic.tests import fixtures as ifx
from ironic.tests.fixtures import error_message


@pytest.fixture
def api_all(api_newest):
    return api_newest


def test_list_shows_served_hardware_types(api):
    doc = api.get("/v1/drivers", version="1.30").json
    assert [d["name"] for d in doc["drivers"]] == ["fake-hardware"]
    drv = doc["drivers"][0]
    assert drv["hosts"] == ["test-conductor"]
    assert drv["type"] == "dynamic"
    assert drv["properties"][0]["href"].endswith(
        "/v1/drivers/fake-hardware/properties")
    assert "default_power_interface" not in drv


def test_list_before_1_30_has_no_type(api):
    drv = api.get("/v1/drivers", version="1.29").json["drivers"][0]
    assert set(drv) == {"name", "hosts", "links", "properties"}
    assert api.get("/v1/drivers?type=dynamic",
                   version="1.29").status_int == 406


def test_type_filter(api):
    assert api.get("/v1/drivers?type=classic",
                   version="1.30").json == {"drivers": []}
    assert len(api.get("/v1/drivers?type=dynamic",
                       version="1.30").json["drivers"]) == 1
    resp = api.get("/v1/drivers?type=both", version="1.30")
    assert resp.status_int == 400
    assert "classic" in error_message(resp)


def test_detail_and_show_give_interfaces_by_version(api_all):
    shown = api_all.get("/v1/drivers/fake-hardware").json
    assert shown["default_power_interface"] == "fake"
    assert shown["enabled_bios_interfaces"] == ["fake", "no-bios"]
    assert shown["default_firmware_interface"] == "fake"
    listed = api_all.get("/v1/drivers?detail=true").json["drivers"][0]
    assert listed == shown
    old = api_all.get("/v1/drivers/fake-hardware", version="1.32").json
    assert "default_storage_interface" not in old
    # The hardware type's first enabled network interface, as Ironic 39.
    assert old["default_network_interface"] == "flat"
    assert "default_bios_interface" not in api_all.get(
        "/v1/drivers/fake-hardware", version="1.39").json


def test_fields(api_all):
    doc = api_all.get("/v1/drivers/fake-hardware?fields=name,hosts").json
    # Ironic 39 links the driver whatever fields names.
    assert doc.pop("links")[0]["href"].endswith("/v1/drivers/fake-hardware")
    assert doc == {"name": "fake-hardware", "hosts": ["test-conductor"]}
    listed = api_all.get("/v1/drivers?fields=").json["drivers"]
    assert [set(d) for d in listed] == [{"links"}]
    assert api_all.get("/v1/drivers?fields=name",
                       version="1.76").status_int == 406
    assert api_all.get("/v1/drivers?fields=bogus").status_int == 400
    assert api_all.get("/v1/drivers?fields=name&detail=true"
                       ).status_int == 400


def test_unknown_driver_is_404(api):
    resp = api.get("/v1/drivers/ipmi")
    assert resp.status_int == 404
    assert "ipmi" in error_message(resp)


def test_dead_conductor_stops_serving(api):
    db_api.get_instance().unregister_conductor("test-conductor")
    assert api.get("/v1/drivers").json == {"drivers": []}
    assert api.get("/v1/drivers/fake-hardware").status_int == 404


def test_two_conductors_are_both_hosts(api):
    ifx.register_test_conductor("second")
    drv = api.get("/v1/drivers/fake-hardware").json
    assert drv["hosts"] == ["second", "test-conductor"]


def test_properties(database, config):
    ifx.configure_test_drivers(config, ["fake-hardware", "example-hw"],
                               power=["fake", "example"])
    from ironic.api import app as api_app
    ifx.register_test_conductor()
    api = ifx.ApiClient(api_app.setup_app())
    # The fake vendor interface describes two made-up keys, as the
    # reference's does.
    assert api.get("/v1/drivers/fake-hardware/properties").json == {
        "B1": "B1 description. Required.", "B2": "B2 description. Required."}
    props = api.get("/v1/drivers/example-hw/properties").json
    assert set(props) == {"example_address", "example_outlet", "B1", "B2"}
    assert "Required" in props["example_address"]
    resp = api.get("/v1/drivers/nope/properties")
    assert resp.status_int == 404
    assert error_message(resp) == "The driver 'nope' is unknown."


def test_raid_logical_disk_properties(api, config):
    doc = api.get("/v1/drivers/fake-hardware/raid/logical_disk_properties",
                  version="1.12").json
    assert "size_gb" in doc
    resp = api.get("/v1/drivers/fake-hardware/raid/logical_disk_properties",
                   version="1.11")
    assert resp.status_int == 406
    assert error_message(resp) == "Request not acceptable."
    # Every driver answers, no-raid ones included (the generic schema), as
    # Ironic 39 does; a sub-resource of an unknown driver is worded apart.
    config(enabled_raid_interfaces=["no-raid"])
    hash_ring.reset()
    doc = api.get("/v1/drivers/fake-hardware/raid/logical_disk_properties",
                  version="1.12").json
    assert {"raid_level", "size_gb"} <= set(doc)
    resp = api.get("/v1/drivers/nope/raid/logical_disk_properties",
                   version="1.12")
    assert resp.status_int == 404
    assert error_message(resp) == "The driver 'nope' is unknown."


def test_driver_vendor_methods(api):
    doc = api.get("/v1/drivers/fake-hardware/vendor_passthru/methods").json
    assert doc == {"driver_echo": {
        "http_methods": ["POST", "GET"], "async": False, "attach": False,
        "description": "Echo the arguments back."}}


def test_node_vendor_methods(api):
    node = api.post("/v1/nodes", {"driver": "fake-hardware"}).json
    doc = api.get(f"/v1/nodes/{node['uuid']}/vendor_passthru/methods").json
    assert set(doc) == {"first_method", "second_method",
                        "shared_lock_method"}
    assert doc["first_method"]["async"] is True
    assert doc["shared_lock_method"]["require_exclusive_lock"] is False
    assert api.get("/v1/nodes/nope/vendor_passthru/methods"
                   ).status_int == 404


def test_drivers_in_the_v1_document(api):
    assert "drivers" in api.get("/v1").json


@pytest.fixture
def api_conductor(api_without_conductor):
    """The API with a real in-process conductor (rpc_transport none)."""
    from ironic import hash_ring
    from ironic.conductor import base_manager
    from ironic.conf import CONF
    CONF.set_override("rpc_transport", "none")
    service = base_manager.ConductorService()
    service.start()
    hash_ring.manager().reset()
    yield api_without_conductor
    service.stop()
    CONF.clear_override("rpc_transport")


def test_node_passthru_calls(api_conductor):
    api = api_conductor
    node = api.post("/v1/nodes", {"driver": "fake-hardware"}).json
    url = f"/v1/nodes/{node['uuid']}/vendor_passthru"
    resp = api.get(f"{url}?method=second_method", body={"bar": 7})
    assert resp.status_int == 200, resp.body
    assert resp.json == {"bar": 7, "http_method": "GET"}
    resp = api.post(f"{url}?method=first_method", {"bar": 1})
    assert resp.status_int == 202 and not resp.body
    resp = api.post(f"{url}?method=first_method", {})
    assert resp.status_int == 400
    assert "bar" in error_message(resp)
    resp = api.delete(f"{url}?method=first_method")
    assert resp.status_int == 400
    assert "POST" in error_message(resp)
    resp = api.post(url, {})
    assert resp.status_int == 400
    assert "method" in error_message(resp)
    resp = api.post(f"{url}?method=shared_lock_method", {})
    assert resp.json == {"power_state": None}


def test_driver_passthru_calls(api_conductor):
    api = api_conductor
    url = "/v1/drivers/fake-hardware/vendor_passthru?method=driver_echo"
    resp = api.post(url, {"x": 1})
    assert resp.status_int == 200, resp.body
    assert resp.json == {"http_method": "POST", "args": {"x": 1}}
    assert api.put(url, {}).status_int == 400
    assert api.post("/v1/drivers/nope/vendor_passthru?method=x",
                    {}).status_int == 404


def test_passthru_method_in_the_path(api_conductor):
    """python-ironicclient names the method as the last path segment."""
    api = api_conductor
    node = api.post("/v1/nodes", {"driver": "fake-hardware"}).json
    url = f"/v1/nodes/{node['uuid']}/vendor_passthru"
    resp = api.get(f"{url}/second_method", body={"bar": "x"})
    assert resp.json == {"bar": "x", "http_method": "GET"}
    assert api.post(f"{url}/first_method", {"bar": 1}).status_int == 202
    assert set(api.get(f"{url}/methods").json) == {
        "first_method", "second_method", "shared_lock_method"}
    resp = api.post("/v1/drivers/fake-hardware/vendor_passthru/driver_echo",
                    {"y": 2})
    assert resp.json == {"http_method": "POST", "args": {"y": 2}}
