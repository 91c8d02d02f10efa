"""Finding the node inspection data belongs to (MACs, BMC, node UUID)."""

from __future__ import annotations

import pytest

from ironic.common import exception, states
from ironic.conductor import inspection_lookup
from ironic.db import api as db_api
from ironic.objects.node import Node
from ironic.objects.port import Port


@pytest.mark.parametrize("driver_info,expected", [
    ({"ipmi_address": "192.0.2.1"}, ["192.0.2.1"]),
    ({"redfish_address": "https://192.0.2.2:8000/redfish/v1"},
     ["192.0.2.2"]),
    ({"redfish_address": "https://[2001:db8::1]:443"}, ["2001:db8::1"]),
    ({"ipmi_address": "192.0.2.3:623"}, ["192.0.2.3"]),
    ({"ipmi_address": "localhost"}, ["127.0.0.1"]),
    ({"ipmi_username": "admin", "ipmi_port": 623}, []),
    ({}, []),
])
def test_bmc_addresses(driver_info, expected):
    found = inspection_lookup.bmc_addresses(driver_info)
    assert found[:len(expected)] == expected
    if not expected:
        assert found == []


def test_unresolvable_bmc_is_skipped():
    assert inspection_lookup.bmc_addresses(
        {"ipmi_address": "no-such-host.invalid"}) == []


def _node(state=states.INSPECTWAIT, bmc=(), macs=()):
    node = Node(driver="fake-hardware", provision_state=state,
                driver_internal_info={inspection_lookup.BMC_KEY: list(bmc)})
    node.create()
    for mac in macs:
        Port(address=mac, node_id=node.id).create()
    return node


def test_lookup_by_mac_bmc_and_uuid(database):
    a = _node(macs=["52:54:00:00:00:01"], bmc=["192.0.2.10"])
    b = _node(macs=["52:54:00:00:00:02"])
    lookup = inspection_lookup.lookup_node
    assert lookup(["52:54:00:00:00:01"], []).uuid == a.uuid
    assert lookup(["52:54:00:00:00:09"], ["192.0.2.10"]).uuid == a.uuid
    assert lookup([], [], node_uuid=b.uuid).uuid == b.uuid
    assert lookup(["52:54:00:00:00:02"], [], node_uuid=b.uuid).uuid == \
        b.uuid
    for macs, bmc, uuid in (
            (["52:54:00:00:00:01", "52:54:00:00:00:02"], [], None),  # two
            (["52:54:00:00:00:09"], [], None),                        # none
            (["52:54:00:00:00:01"], [], b.uuid),                  # disagree
            (["52:54:00:00:00:02"], ["192.0.2.10"], None),        # disagree
            ([], [], "4a4d3b47-8d72-4d9f-97c1-2b4ba05f8d70")):    # missing
        with pytest.raises(exception.NotFound):
            lookup(macs, bmc, uuid)


def test_node_not_in_inspect_wait_is_not_found(database):
    node = _node(state=states.MANAGEABLE, macs=["52:54:00:00:00:03"])
    with pytest.raises(inspection_lookup.LookupFailed):
        inspection_lookup.lookup_node(["52:54:00:00:00:03"], [])
    db_api.get_instance().update_node(
        node.id, {"provision_state": states.INSPECTWAIT})
    assert inspection_lookup.lookup_node(["52:54:00:00:00:03"],
                                         []).id == node.id
