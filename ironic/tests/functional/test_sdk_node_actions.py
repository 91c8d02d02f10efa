"""Node actions through openstacksdk: maintenance, power, provisioning.

fake-hardware answers at once, so these prove the path client -> API ->
in-process conductor -> driver -> database, not any hardware.
"""

from __future__ import annotations

import pytest
from openstack import exceptions as sdk_exc

WAIT = 60  # a bound for the SDK's own polling, not a tuned delay


@pytest.fixture
def node(conn, unique):
    return conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"act-{unique}")


def test_maintenance_set_filter_unset(conn, node):
    conn.baremetal.set_node_maintenance(node, reason="fan failure")
    fetched = conn.baremetal.get_node(node.id)
    assert fetched.is_maintenance is True
    assert fetched.maintenance_reason == "fan failure"
    in_maintenance = {n.id for n in conn.baremetal.nodes(is_maintenance=True)}
    assert node.id in in_maintenance
    conn.baremetal.unset_node_maintenance(node)
    fetched = conn.baremetal.get_node(node.id)
    assert fetched.is_maintenance is False
    assert fetched.maintenance_reason is None
    assert node.id not in {
        n.id for n in conn.baremetal.nodes(is_maintenance=True)}


def test_power_on_and_off(conn, node):
    conn.baremetal.set_node_power_state(node, "power on", wait=True,
                                        timeout=WAIT)
    assert conn.baremetal.get_node(node.id).power_state == "power on"
    conn.baremetal.set_node_power_state(node, "power off", wait=True,
                                        timeout=WAIT)
    assert conn.baremetal.get_node(node.id).power_state == "power off"


def test_manage_then_provide(conn, node):
    managed = conn.baremetal.set_node_provision_state(
        node, "manage", wait=True, timeout=WAIT)
    assert managed.provision_state == "manageable"
    provided = conn.baremetal.set_node_provision_state(
        node, "provide", wait=True, timeout=WAIT)
    assert provided.provision_state == "available"
    assert conn.baremetal.get_node(node.id).last_error is None


def test_validate_reports_each_interface(conn, node):
    results = conn.baremetal.validate_node(node, required=("power",
                                                           "management"))
    assert results["power"].result is True
    assert results["management"].result is True


def test_verb_not_allowed_in_state_is_rejected(conn, node):
    with pytest.raises(sdk_exc.BadRequestException) as err:
        conn.baremetal.set_node_provision_state(node, "provide")
    assert '"enroll"' in str(err.value)
    assert conn.baremetal.get_node(node.id).provision_state == "enroll"
