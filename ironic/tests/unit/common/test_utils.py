"""The API address given to ramdisks on nodes."""

import pytest

from ironic.common import utils


@pytest.mark.parametrize("public,host,ssl,expected", [
    ("https://bm.example.test:443/", "0.0.0.0", False,
     "https://bm.example.test:443"),
    (None, "192.0.2.5", False, "http://192.0.2.5:6385"),
    (None, "0.0.0.0", False, "http://198.51.100.7:6385"),
    (None, "::", True, "https://198.51.100.7:6385"),
    (None, "2001:db8::5", False, "http://[2001:db8::5]:6385"),
])
def test_ramdisk_api_url(config, public, host, ssl, expected):
    config(my_ip="198.51.100.7")
    config("api", public_endpoint=public, host_ip=host, port=6385,
           enable_ssl_api=ssl)
    assert utils.ramdisk_api_url() == expected


def test_freeze_startup_objects_takes_live_objects_out_of_collections():
    import gc

    from ironic import service
    kept = [[] for _ in range(100)]
    assert any(o is kept[0] for o in gc.get_objects())
    try:
        service.freeze_startup_objects()
        # Frozen objects sit in the permanent generation, which no
        # collection walks (and get_objects does not list).
        tracked = {id(o) for o in gc.get_objects()}
        assert not any(id(o) in tracked for o in kept)
    finally:
        gc.unfreeze()


U = "0b1d5c7e-2a44-4b0e-9a55-1c3d2e4f6a7b"


@pytest.mark.parametrize("check, value", [
    (utils.is_uuid_like, U + "\n"),
    (utils.is_valid_logical_name, "node-1\n"),
    (utils.is_valid_mac, "52:54:00:12:34:56\n"),
])
def test_a_trailing_newline_is_not_part_of_a_valid_value(check, value):
    assert check(value.rstrip("\n"))
    assert not check(value)


@pytest.mark.parametrize("value", [
    U, U.upper(), U.replace("-", ""), "{" + U + "}", "urn:uuid:" + U])
def test_normalize_uuid_gives_the_canonical_form(value):
    assert utils.normalize_uuid(value) == U


@pytest.mark.parametrize("value, expected", [
    ("192.0.2.7", "192.0.2.7"),
    ("192.0.2.7/24", "192.0.2.7"),
    ("fe80::1%eth0", "fe80::1"),
    ("2001:db8::5/64", "2001:db8::5"),
])
def test_parse_ip_drops_the_prefix_length_and_the_zone(value, expected):
    assert str(utils.parse_ip(value)) == expected


@pytest.mark.parametrize("value", ["", "bmc.example.test", "999.0.0.1"])
def test_parse_ip_is_none_for_what_is_no_address(value):
    assert utils.parse_ip(value) is None
