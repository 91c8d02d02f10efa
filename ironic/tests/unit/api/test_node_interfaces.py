"""Node <type>_interface fields: defaults, validation, atomic PATCH."""

import pytest

from ironic.api.controllers.v1 import versions
from ironic.tests import fixtures as ifx
from ironic.tests.fixtures import error_message


@pytest.fixture
def api2(database, config, monkeypatch):
    """fake-hardware and the out-of-tree example-hw, both served; every
    known API version accepted."""
    ifx.configure_test_drivers(config, ["fake-hardware", "example-hw"],
                               power=["fake", "example"])
    from ironic.api import app as api_app
    ifx.register_test_conductor()
    return ifx.ApiClient(api_app.setup_app(), f"1.{versions.NEWEST_KNOWN}")


def _create(api, **fields):
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", **fields})
    assert resp.status_int == 201, resp.body
    return resp.json


def test_defaults_are_computed_and_stored(api):
    node = _create(api)
    assert node["power_interface"] == "fake"
    assert node["console_interface"] == "fake"
    assert node["network_interface"] == "flat"
    assert node["storage_interface"] == "noop"


def test_configured_default_is_used(database, config):
    ifx.configure_test_drivers(config)
    config(default_console_interface="no-console")
    from ironic.api import app as api_app
    ifx.register_test_conductor()
    api = ifx.ApiClient(api_app.setup_app())
    assert _create(api)["console_interface"] == "no-console"


def test_explicit_interface_on_create(api):
    assert _create(api, rescue_interface="no-rescue")[
        "rescue_interface"] == "no-rescue"


def test_unknown_interface_names_the_allowed_values(api):
    resp = api.post("/v1/nodes", {"driver": "fake-hardware",
                                  "power_interface": "ipmitool"})
    assert resp.status_int == 400
    msg = error_message(resp)
    assert "ipmitool" in msg and "fake" in msg
    assert api.get("/v1/nodes").json["nodes"] == []


def test_unsupported_by_hardware_type_is_400(api2):
    resp = api2.post("/v1/nodes", {"driver": "example-hw",
                                   "power_interface": "fake"})
    assert resp.status_int == 400
    msg = error_message(resp)
    assert "not supported by hardware type example-hw" in msg
    assert "example" in msg


@pytest.mark.parametrize("group", [None, "Rack1"])
def test_unknown_driver_is_400_naming_driver_and_group(api, group):
    # The group as given (Ironic 39 lowers it only on PATCH).
    body = {"driver": "ipmi"}
    if group is not None:
        body["conductor_group"] = group
    resp = api.post("/v1/nodes", body)
    assert resp.status_int == 400
    assert error_message(resp) == (
        'No valid host was found. Reason: No conductor service registered '
        f'which supports driver ipmi for conductor group "{group or ""}". '
        'Ensure the driver is valid and enabled.')


def test_interface_field_needs_its_version(api):
    resp = api.post("/v1/nodes", {"driver": "fake-hardware",
                                  "console_interface": "fake"}, version="1.30")
    assert resp.status_int == 406


def test_patch_interface(api):
    node = _create(api)
    resp = api.patch(f"/v1/nodes/{node['uuid']}", [
        {"op": "replace", "path": "/console_interface", "value": "no-console"}])
    assert resp.status_int == 200, resp.body
    assert resp.json["console_interface"] == "no-console"
    resp = api.patch(f"/v1/nodes/{node['uuid']}", [
        {"op": "replace", "path": "/console_interface", "value": "bogus"}])
    assert resp.status_int == 400
    assert api.get(f"/v1/nodes/{node['uuid']}").json[
        "console_interface"] == "no-console"


def test_removing_an_interface_resets_it_to_the_default(api):
    node = _create(api, console_interface="no-console")
    resp = api.patch(f"/v1/nodes/{node['uuid']}", [
        {"op": "remove", "path": "/console_interface"}])
    assert resp.status_int == 200, resp.body
    assert resp.json["console_interface"] == "fake"


def test_driver_and_interface_change_together(api2):
    """The seed's atomic example passes, its counter-example fails."""
    node = _create(api2)
    url = f"/v1/nodes/{node['uuid']}"
    resp = api2.patch(url, [{"op": "replace", "path": "/driver",
                             "value": "example-hw"}])
    assert resp.status_int == 400
    assert "fake" in error_message(resp)
    assert api2.get(url).json["driver"] == "fake-hardware"
    resp = api2.patch(url, [
        {"op": "replace", "path": "/power_interface", "value": "example"},
        {"op": "replace", "path": "/driver", "value": "example-hw"}])
    assert resp.status_int == 200, resp.body
    assert resp.json["driver"] == "example-hw"
    assert resp.json["power_interface"] == "example"


def test_reset_interfaces(api2):
    node = _create(api2, bios_interface="no-bios")
    url = f"/v1/nodes/{node['uuid']}"
    resp = api2.patch(url + "?reset_interfaces=true", [
        {"op": "replace", "path": "/driver", "value": "example-hw"}])
    assert resp.status_int == 200, resp.body
    assert resp.json["power_interface"] == "example"
    assert resp.json["bios_interface"] == "fake"


def test_reset_interfaces_needs_a_driver_change(api2):
    api = api2
    node = _create(api)
    url = f"/v1/nodes/{node['uuid']}?reset_interfaces=true"
    patch = [{"op": "add", "path": "/extra/a", "value": 1}]
    resp = api.patch(url, patch)
    assert resp.status_int == 400
    assert "reset_interfaces" in error_message(resp)


def test_reset_interfaces_needs_its_version(api):
    node = _create(api)
    resp = api.patch(f"/v1/nodes/{node['uuid']}?reset_interfaces=true",
                     [{"op": "add", "path": "/extra/a", "value": 1}],
                     version="1.44")
    assert resp.status_int == 406


def test_disabled_interface_does_not_block_other_updates(api, config):
    node = _create(api, rescue_interface="no-rescue")
    # The operator disables no-rescue; conductors re-register.
    from ironic.db.sqlalchemy import api as sqla_api
    with sqla_api._writer() as session:
        session.execute(
            __import__("sqlalchemy").text(
                "DELETE FROM conductor_hardware_interfaces WHERE "
                "interface_name = 'no-rescue'"))
    # What the API knows of conductors is cached with the hash ring; a
    # conductor registering in this process resets it.
    from ironic import hash_ring
    hash_ring.manager().reset()
    url = f"/v1/nodes/{node['uuid']}"
    resp = api.patch(url, [{"op": "add", "path": "/extra/x", "value": 1}])
    assert resp.status_int == 200, resp.body
    resp = api.patch(url, [{"op": "replace", "path": "/console_interface",
                            "value": "no-console"}])
    assert resp.status_int == 400
    assert "no-rescue" in error_message(resp)


def test_interfaces_are_not_list_filters(api):
    # As in Ironic 39: the node list has no filter per interface field.
    _create(api, name="a", console_interface="no-console")
    resp = api.get("/v1/nodes?console_interface=no-console&fields=name")
    assert resp.status_int == 400
    assert "console_interface" in error_message(resp)
