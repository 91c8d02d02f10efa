"""driver_info is parsed by the node's interfaces on create and update.

Malformed values are a 400 naming the field; missing required fields are
accepted at enrollment, as the public service does (validation reports
them later). The K_g key is masked like the passwords.
"""

import pytest

from ironic.tests import fixtures as ifx
from ironic.tests.fixtures import error_message

IPMI = {"ipmi_address": "127.0.0.1", "ipmi_port": 623,
        "ipmi_username": "admin", "ipmi_password": "pw"}
REDFISH = {"redfish_address": "http://127.0.0.1:8000",
           "redfish_username": "admin", "redfish_password": "pw"}


@pytest.fixture
def bmc_api(api_without_conductor, config):
    ifx.configure_test_drivers(
        config, ["fake-hardware", "ipmi", "redfish"],
        power=["fake", "ipmitool", "redfish"],
        management=["fake", "ipmitool", "redfish"],
        vendor=["fake", "ipmitool", "no-vendor"])
    ifx.register_test_conductor()
    return api_without_conductor


def _post(api, driver, info):
    return api.post("/v1/nodes", {"driver": driver, "driver_info": info})


@pytest.mark.parametrize("driver,info,field", [
    ("ipmi", {"ipmi_port": "x"}, "ipmi_port"),
    ("ipmi", dict(IPMI, ipmi_port=70000), "ipmi_port"),
    ("ipmi", dict(IPMI, ipmi_priv_level="ROOT"), "ipmi_priv_level"),
    ("ipmi", dict(IPMI, ipmi_protocol_version="3"), "ipmi_protocol_version"),
    ("ipmi", dict(IPMI, ipmi_cipher_suite="x"), "ipmi_cipher_suite"),
    ("ipmi", dict(IPMI, ipmi_bridging="triple"), "ipmi_bridging"),
    ("ipmi", dict(IPMI, ipmi_target_address="zz"), "ipmi_target_address"),
    ("ipmi", dict(IPMI, ipmi_hex_kg_key="xyz"), "ipmi_hex_kg_key"),
    ("ipmi", dict(IPMI, ipmi_address="two words"), "ipmi_address"),
    ("ipmi", dict(IPMI, ipmi_disable_boot_timeout="maybe"),
     "ipmi_disable_boot_timeout"),
    ("redfish", {"redfish_address": "ftp://x"}, "redfish_address"),
    ("redfish", dict(REDFISH, redfish_address="http://"), "redfish_address"),
    ("redfish", dict(REDFISH, redfish_verify_ca="perhaps"),
     "redfish_verify_ca"),
    ("redfish", dict(REDFISH, redfish_auth_type="kerberos"),
     "redfish_auth_type"),
    ("redfish", dict(REDFISH, redfish_system_id=5), "redfish_system_id"),
])
def test_malformed_value_on_create_is_400_naming_it(bmc_api, driver, info,
                                                    field):
    resp = _post(bmc_api, driver, info)
    assert resp.status_int == 400, resp.body
    assert field in error_message(resp)
    assert bmc_api.get("/v1/nodes").json["nodes"] == []


@pytest.mark.parametrize("driver,info", [
    ("ipmi", {}), ("ipmi", {"ipmi_username": "admin"}),
    ("ipmi", {"ipmi_address": "h", "ipmi_bridging": "single"}),
    ("redfish", {}), ("redfish", {"redfish_username": "admin"}),
])
def test_missing_required_fields_are_accepted_on_create(bmc_api, driver,
                                                        info):
    resp = _post(bmc_api, driver, info)
    assert resp.status_int == 201, resp.body
    assert resp.json["provision_state"] == "enroll"


def test_password_in_error_is_not_echoed(bmc_api):
    resp = _post(bmc_api, "ipmi", dict(IPMI, ipmi_password=["s3cret"]))
    assert resp.status_int == 400
    assert "ipmi_password" in error_message(resp)
    assert "s3cret" not in resp.text


def test_fake_hardware_does_not_parse_bmc_fields(bmc_api):
    resp = _post(bmc_api, "fake-hardware", {"ipmi_port": "x"})
    assert resp.status_int == 201, resp.body


def test_malformed_value_on_update_is_400(bmc_api):
    node = _post(bmc_api, "ipmi", IPMI).json
    resp = bmc_api.patch(f"/v1/nodes/{node['uuid']}", [
        {"op": "replace", "path": "/driver_info/ipmi_port", "value": "x"}])
    assert resp.status_int == 400
    assert "ipmi_port" in error_message(resp)
    got = bmc_api.get(f"/v1/nodes/{node['uuid']}").json
    assert got["driver_info"]["ipmi_port"] == 623


def test_changing_the_driver_parses_the_existing_driver_info(bmc_api):
    node = _post(bmc_api, "fake-hardware",
                 {"redfish_address": "ftp://x"}).json
    resp = bmc_api.patch(
        f"/v1/nodes/{node['uuid']}?reset_interfaces=true",
        [{"op": "replace", "path": "/driver", "value": "redfish"}])
    assert resp.status_int == 400, resp.body
    assert "redfish_address" in error_message(resp)


def test_update_of_other_fields_is_not_blocked(bmc_api):
    node = _post(bmc_api, "ipmi", {}).json
    resp = bmc_api.patch(f"/v1/nodes/{node['uuid']}", [
        {"op": "add", "path": "/driver_info/ipmi_address",
         "value": "127.0.0.1"},
        {"op": "add", "path": "/description", "value": "rack 4"}])
    assert resp.status_int == 200, resp.body


def test_kg_key_is_masked(bmc_api):
    node = _post(bmc_api, "ipmi", dict(IPMI, ipmi_hex_kg_key="0a0b")).json
    assert node["driver_info"]["ipmi_hex_kg_key"] == "******"
    got = bmc_api.get(f"/v1/nodes/{node['uuid']}").json
    assert got["driver_info"]["ipmi_hex_kg_key"] == "******"
    assert got["driver_info"]["ipmi_password"] == "******"
