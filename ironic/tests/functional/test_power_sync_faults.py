"""Power state sync against misbehaving BMCs (the project's emulators).

An in-process conductor syncs ipmi and redfish nodes while their emulated
BMCs stop, refuse the password or answer late. Timings are asserted
against the configured timeouts only: a cycle with slow BMCs must end
within about one ``[conductor]sync_power_state_timeout``, where asking the
BMCs one after the other would take one timeout per slow BMC.
"""

from __future__ import annotations

import threading
import time

import pytest

from ironic import driver_registry, hash_ring
from ironic.common import faults, rpc, states
from ironic.conductor import base_manager, periodics, power, task_manager
from ironic.drivers.modules import ipmi_client, redfish_client, redfish_power
from ironic.objects.node import Node
from ironic.tests import builders
from ironic.tests import fixtures as ifx
from ironic.tests.emulators.launch import (
    IpmiEmulator,
    RedfishEmulator,
    require_ipmitool,
)

SYNC_TIMEOUT = 3
SLOW = 4 * SYNC_TIMEOUT  # a slow BMC answers long after the deadline

needs_ipmitool = pytest.mark.usefixtures("ipmitool_present")


@pytest.fixture
def ipmitool_present():
    require_ipmitool()


@pytest.fixture
def svc(database, config):
    ifx.configure_test_drivers(
        config, hardware_types=["ipmi", "redfish"],
        power=["ipmitool", "redfish"], management=["ipmitool", "redfish"],
        inspect=["no-inspect"], vendor=["no-vendor"])
    config(rpc_transport="none", host="test-conductor")
    config("conductor", node_locked_retry_attempts=0,
           power_state_sync_max_retries=1, sync_power_state_workers=4,
           sync_power_state_timeout=SYNC_TIMEOUT,
           force_power_state_during_sync=False,
           power_state_change_timeout=4)
    config("ipmi", min_command_interval=0, command_retry_timeout=4)
    config("redfish", connection_retry_interval=0, connection_attempts=1)
    rpc.reset()
    hash_ring.reset()
    redfish_client.SESSIONS._clients.clear()
    service = base_manager.ConductorService()
    service.start()
    yield service
    service.stop(timeout=5)
    rpc.reset()
    driver_registry.reset()


def _redfish_node(emu, index=0, password="pw", **values):
    return builders.make_node(
        driver="redfish", power_interface="redfish",
        management_interface="redfish", inspect_interface="no-inspect",
        vendor_interface="no-vendor", provision_state=states.MANAGEABLE,
        power_state=None, driver_info={
            "redfish_address": emu.url, "redfish_username": "admin",
            "redfish_password": password,
            "redfish_system_id":
                f"/redfish/v1/Systems/{emu.systems()[index]}"}, **values)


def _ipmi_node(emu, index=0, password=None, **values):
    return builders.make_node(
        driver="ipmi", power_interface="ipmitool",
        management_interface="ipmitool", inspect_interface="no-inspect",
        vendor_interface="no-vendor", provision_state=states.MANAGEABLE,
        power_state=None, driver_info={
            "ipmi_address": emu.address,
            "ipmi_port": emu.base_port + index,
            "ipmi_username": emu.user,
            "ipmi_password": password or emu.password}, **values)


def _fix_password(api, node, field: str, value: str) -> None:
    """What an operator does: PATCH the right password in (200)."""
    resp = api.patch(f"/v1/nodes/{node.uuid}", [
        {"op": "replace", "path": f"/driver_info/{field}", "value": value}])
    assert resp.status_int == 200, resp.body
    assert resp.json["driver_info"][field] == "******"


def _assert_recovered(node, power_state=states.POWER_OFF) -> None:
    fresh = Node.get(node.id)
    assert not fresh.maintenance and fresh.fault is None
    assert fresh.maintenance_reason is None and fresh.last_error is None
    assert fresh.power_state == power_state


def _power_on_in_a_worker(svc, node) -> threading.Thread:
    def power_on():
        with task_manager.acquire(None, node.id, purpose="test",
                                  host=svc.host) as task:
            power.change_power_state(task, states.POWER_ON)
    worker = threading.Thread(target=power_on)
    worker.start()
    return worker


def _timed_sync(svc) -> float:
    started = time.monotonic()
    periodics.sync_power_states(svc)
    return time.monotonic() - started


def _wait_answers_drained(svc, limit: float) -> None:
    """Late answers of abandoned queries come back on their own; wait
    (bounded) until the BMCs' stale threads are gone."""
    deadline = time.monotonic() + limit
    while svc.power_queries_open and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not svc.power_queries_open


# ---------------------------------------------------------------------------
# Redfish

@pytest.fixture(scope="module")
def redfish():
    with RedfishEmulator(count=4, user="admin", password="pw") as emu:
        yield emu


@pytest.fixture(scope="module")
def slow_redfish():
    with RedfishEmulator(count=4, user="admin", password="pw") as emu:
        emu.set_faults(reply_delay=SLOW)
        yield emu


def test_slow_redfish_bmcs_do_not_delay_the_others(svc, redfish,
                                                   slow_redfish):
    slow = [_redfish_node(slow_redfish, i) for i in range(4)]
    fast = [_redfish_node(redfish, i) for i in range(4)]
    elapsed = _timed_sync(svc)
    # 4 slow BMCs on 4 workers: one deadline for all, not four.
    assert elapsed < 2 * SYNC_TIMEOUT, elapsed
    for node in fast:
        fresh = Node.get(node.id)
        assert fresh.power_state == states.POWER_OFF
        assert fresh.last_error is None and fresh.health == "OK"
    for node in slow:
        fresh = Node.get(node.id)
        assert fresh.power_state is None and not fresh.maintenance
        assert f"did not answer the power state query within " \
               f"{SYNC_TIMEOUT} s" in fresh.last_error

    # The late queries are still open: the next cycle does not pile new
    # ones on the same BMCs, counts a failure, and gives up on the nodes.
    elapsed = _timed_sync(svc)
    assert elapsed < SYNC_TIMEOUT, elapsed
    for node in slow:
        fresh = Node.get(node.id)
        assert fresh.maintenance and fresh.fault == faults.POWER_FAILURE
        assert "still not answered" in fresh.maintenance_reason

    # The BMC is fast again: the recovery check lifts the maintenance.
    slow_redfish.set_faults(reply_delay=0)
    slow_redfish.stop()
    slow_redfish.start()
    _wait_answers_drained(svc, 2 * SLOW)
    assert periodics.recover_power_failures(svc) == len(slow)
    for node in slow:
        fresh = Node.get(node.id)
        assert not fresh.maintenance and fresh.fault is None
        assert fresh.maintenance_reason is None and fresh.last_error is None
        assert fresh.power_state == states.POWER_OFF


def test_redfish_bmc_stopped_then_back(svc, redfish):
    node = _redfish_node(redfish, 1)
    assert _timed_sync(svc) < SYNC_TIMEOUT
    redfish.stop()
    try:
        elapsed = _timed_sync(svc)
        assert elapsed < SYNC_TIMEOUT, elapsed
        fresh = Node.get(node.id)
        assert "Unable to reach the Redfish BMC" in fresh.last_error
        assert fresh.power_state == states.POWER_OFF  # last known
    finally:
        redfish.start()
    periodics.sync_power_states(svc)
    assert Node.get(node.id).last_error is None


def test_redfish_wrong_password(svc, redfish):
    node = _redfish_node(redfish, 2, password="wrong")
    assert _timed_sync(svc) < SYNC_TIMEOUT
    assert "access denied" in Node.get(node.id).last_error
    periodics.sync_power_states(svc)
    fresh = Node.get(node.id)
    assert fresh.maintenance and fresh.fault == faults.POWER_FAILURE
    assert "access denied" in fresh.maintenance_reason


def test_redfish_wrong_password_fixed_through_the_api(
        svc, api_without_conductor, redfish):
    node = _redfish_node(redfish, 3, password="wrong")
    periodics.sync_power_states(svc)
    periodics.sync_power_states(svc)
    fresh = Node.get(node.id)
    assert fresh.maintenance and fresh.fault == faults.POWER_FAILURE
    # The BMC itself saw the refused logins.
    assert "admin" in redfish.sessions_journal()["refused"]
    # Still wrong: the recovery check leaves it in maintenance.
    assert periodics.recover_power_failures(svc) == 0
    assert Node.get(node.id).maintenance

    _fix_password(api_without_conductor, node, "redfish_password", "pw")
    assert periodics.recover_power_failures(svc) == 1
    _assert_recovered(node)
    periodics.sync_power_states(svc)
    _assert_recovered(node)


def test_redfish_bmc_stopped_mid_operation_then_back(svc, monkeypatch):
    emu = RedfishEmulator(count=1, user="admin", password="pw",
                          power_delay=30).start()
    try:
        node = _redfish_node(emu, 0)
        # Stop the BMC right after it accepted the reset, while the
        # conductor waits for the system to come up.
        accepted = threading.Event()
        original = redfish_power._reset

        def spy(system, action):
            original(system, action)
            accepted.set()
        monkeypatch.setattr(redfish_power, "_reset", spy)
        started = time.monotonic()
        worker = _power_on_in_a_worker(svc, node)
        assert accepted.wait(30)
        assert emu.resets(0) == {"On": 1}
        emu.stop()
        worker.join(60)
        elapsed = time.monotonic() - started
        assert not worker.is_alive()
        # Bounded by the power wait ([conductor]power_state_change_timeout).
        assert elapsed < 4 + 3, elapsed
        fresh = Node.get(node.id)
        assert "Failed to change power state to 'power on'" in \
            fresh.last_error
        assert "Unable to reach the Redfish BMC" in fresh.last_error
        assert fresh.target_power_state is None

        # The BMC stays down: the sync fails, then gives up.
        periodics.sync_power_states(svc)
        periodics.sync_power_states(svc)
        fresh = Node.get(node.id)
        assert fresh.maintenance and fresh.fault == faults.POWER_FAILURE

        emu.power_delay = 0
        emu.start()
        assert periodics.recover_power_failures(svc) == 1
        # The power-on it accepted before going down has not landed.
        _assert_recovered(node)
    finally:
        emu.stop()


def test_redfish_health_reaches_the_node(svc, redfish):
    ok, sick = _redfish_node(redfish, 0), _redfish_node(redfish, 3)
    redfish.set_faults(health={redfish.systems()[3]: "Critical"})
    try:
        periodics.sync_power_states(svc)
        assert Node.get(ok.id).health == "OK"
        assert Node.get(sick.id).health == "Critical"
        redfish.set_faults(health={redfish.systems()[3]: "Warning"})
        periodics.sync_power_states(svc)
        assert Node.get(sick.id).health == "Warning"
    finally:
        redfish.set_faults()


# ---------------------------------------------------------------------------
# IPMI

@pytest.fixture(scope="module")
def ipmi():
    with IpmiEmulator(count=3) as emu:
        yield emu


@needs_ipmitool
def test_slow_ipmi_bmc_does_not_delay_the_others(svc, config, ipmi):
    # One emulator process answers its BMCs one at a time, so the slow BMCs
    # get a process of their own. ipmitool's own retries would stretch past
    # the sync deadline: command_retry_timeout is the per-command budget.
    config("ipmi", command_retry_timeout=3 * SYNC_TIMEOUT)
    with IpmiEmulator(count=2, reply_delay=SLOW) as slow_emu:
        slow = [_ipmi_node(slow_emu, i) for i in range(2)]
        fast = [_ipmi_node(ipmi, i) for i in range(3)]
        elapsed = _timed_sync(svc)
        assert elapsed < 2 * SYNC_TIMEOUT, elapsed
        for node in fast:
            fresh = Node.get(node.id)
            assert fresh.power_state == states.POWER_OFF
            assert fresh.last_error is None and fresh.health is None
        for node in slow:
            assert "did not answer" in Node.get(node.id).last_error
    # The slow BMCs' process is gone: their queries end within the IPMI
    # command budget, never hanging on.
    _wait_answers_drained(svc, 3 * SYNC_TIMEOUT + 5)


@needs_ipmitool
def test_ipmi_wrong_password(svc, config, ipmi):
    # A refused session is retried like a busy BMC, within the IPMI
    # budget; under the sync deadline, ipmitool's own error is kept.
    config("ipmi", command_retry_timeout=1)
    node = _ipmi_node(ipmi, 2, password="wrong")
    elapsed = _timed_sync(svc)
    assert elapsed < SYNC_TIMEOUT, elapsed
    fresh = Node.get(node.id)
    assert fresh.last_error.startswith(periodics.SYNC_ERROR)
    assert "IPMI command 'power status' failed" in fresh.last_error
    assert "Unable to establish IPMI v2 / RMCP+ session" in \
        fresh.last_error


@needs_ipmitool
def test_ipmi_wrong_password_fixed_through_the_api(
        svc, config, api_without_conductor, ipmi):
    config("ipmi", command_retry_timeout=1)
    node = _ipmi_node(ipmi, 1, password="wrong")
    periodics.sync_power_states(svc)
    periodics.sync_power_states(svc)
    fresh = Node.get(node.id)
    assert fresh.maintenance and fresh.fault == faults.POWER_FAILURE
    assert "RMCP+" in fresh.maintenance_reason
    _wait_answers_drained(svc, 10)
    assert periodics.recover_power_failures(svc) == 0

    _fix_password(api_without_conductor, node, "ipmi_password",
                  ipmi.password)
    _wait_answers_drained(svc, 10)
    assert periodics.recover_power_failures(svc) == 1
    _assert_recovered(node)
    assert ipmi.state(1)["power_changes"] == 0
    periodics.sync_power_states(svc)
    _assert_recovered(node)


@needs_ipmitool
def test_ipmi_bmc_stopped_mid_operation_then_back(svc, config,
                                                  monkeypatch):
    emu = IpmiEmulator(count=1, power_delay=30).start()
    try:
        node = _ipmi_node(emu, 0)
        # Stop the BMC right after it accepted "power on", while the
        # conductor waits for the machine to come up.
        accepted = threading.Event()
        original = ipmi_client._run_once

        def spy(target, command, timeout):
            result = original(target, command, timeout)
            if command == ["power", "on"] and result.returncode == 0:
                accepted.set()
            return result
        monkeypatch.setattr(ipmi_client, "_run_once", spy)
        started = time.monotonic()
        worker = _power_on_in_a_worker(svc, node)
        assert accepted.wait(30)
        emu.stop()
        worker.join(60)
        elapsed = time.monotonic() - started
        assert not worker.is_alive()
        # Bounded by the power wait plus one IPMI command budget.
        assert elapsed < 4 + 4 + 3, elapsed
        fresh = Node.get(node.id)
        assert "Failed to change power state to 'power on'" in \
            fresh.last_error
        assert fresh.target_power_state is None

        # The BMC stays down: the sync fails, then gives up.
        periodics.sync_power_states(svc)
        periodics.sync_power_states(svc)
        fresh = Node.get(node.id)
        assert fresh.maintenance and fresh.fault == faults.POWER_FAILURE

        emu.power_delay = 0
        emu.start()
        # The queries sent while it was down end within the IPMI budget.
        _wait_answers_drained(svc, 4 + 5)
        assert periodics.recover_power_failures(svc) == 1
        fresh = Node.get(node.id)
        assert not fresh.maintenance and fresh.fault is None
        assert fresh.power_state == states.POWER_OFF
    finally:
        emu.stop()
