"""redfish_client.parse_driver_info validation."""

import pytest

from ironic.common import exception
from ironic.drivers.modules import redfish_client


def test_defaults_and_scheme():
    target = redfish_client.parse_driver_info({"redfish_address": "bmc1"})
    assert target.address == "https://bmc1"
    assert target.verify_ca is True
    assert target.auth_type == "auto"


@pytest.mark.parametrize("info,field", [
    ({}, "redfish_address"),
    ({"redfish_address": "ftp://x"}, "redfish_address"),
    ({"redfish_address": "h", "redfish_verify_ca": "maybe"},
     "redfish_verify_ca"),
    ({"redfish_address": "h", "redfish_auth_type": "magic"},
     "redfish_auth_type"),
    ({"redfish_address": "h", "redfish_system_id": 5}, "redfish_system_id"),
])
def test_bad_fields_are_named(info, field):
    with pytest.raises(exception.Invalid) as err:
        redfish_client.parse_driver_info(info)
    assert field in str(err.value)


def test_verify_ca_accepts_strings_and_paths():
    assert redfish_client.parse_driver_info(
        {"redfish_address": "h", "redfish_verify_ca": "false"}).verify_ca \
        is False
    assert redfish_client.parse_driver_info(
        {"redfish_address": "h", "redfish_verify_ca": "/etc/ca.pem"}
    ).verify_ca == "/etc/ca.pem"
