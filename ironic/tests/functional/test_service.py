"""The all-in-one process itself: start, persistent state, clean stop."""

from __future__ import annotations

import socket

from ironic.tests.functional import conftest
from ironic.tests.functional import service as svc


def _port_closed(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def test_state_survives_a_restart_and_sigterm_stops_cleanly(tmp_path):
    first = svc.Service(tmp_path).start()
    try:
        conn = conftest.sdk_connection(first.endpoint)
        node = conn.baremetal.create_node(driver="fake-hardware", name="kept",
                                          driver_info={"ipmi_password": "p"})
        conn.close()
    finally:
        assert first.stop() == 0, first.logs()
    assert _port_closed(first.port)
    assert (tmp_path / "state" / "ironic.sqlite").exists()

    # Same configuration, same state_path: the node is still there.
    second = svc.Service(tmp_path, port=first.port).start()
    try:
        conn = conftest.sdk_connection(second.endpoint)
        kept = conn.baremetal.get_node("kept")
        assert kept.id == node.id
        assert kept.driver == "fake-hardware"
        assert kept.driver_info == {"ipmi_password": "******"}
        conn.close()
    finally:
        assert second.stop() == 0, second.logs()
    assert "Signal 15 received" in second.logs()


def test_starts_with_the_operator_configuration(tmp_path):
    server = svc.Service(tmp_path, drivers=svc.OPERATOR_DRIVERS)
    try:
        server.start()
        doc = svc.get_json(server.endpoint + "/v1/drivers")
        names = {d["name"] for d in doc["drivers"]}
        assert names == {"fake-hardware", "manual-management", "ipmi",
                         "redfish"}
        # The defaults new nodes get, as the public service computes them.
        version = {"X-OpenStack-Ironic-API-Version": "1.31"}
        shown = {name: svc.get_json(f"{server.endpoint}/v1/drivers/{name}",
                                    version) for name in names}
        assert {n: (d["default_boot_interface"],
                    d["default_deploy_interface"],
                    d["default_management_interface"],
                    d["default_power_interface"])
                for n, d in shown.items()} == {
            "ipmi": ("ipxe", "direct", "ipmitool", "ipmitool"),
            "redfish": ("ipxe", "direct", "redfish", "redfish"),
            "manual-management": ("ipxe", "direct", "noop", "fake"),
            "fake-hardware": ("ipxe", "direct", "fake", "fake"),
        }
        assert shown["redfish"]["default_raid_interface"] == "redfish"
        assert shown["ipmi"]["default_raid_interface"] == "no-raid"
        assert "agent" in shown["ipmi"]["enabled_raid_interfaces"]
    finally:
        assert server.stop() == 0, server.logs()
