"""redfish_client reaches the Redfish emulator with reused sessions."""

from __future__ import annotations

import types

import pytest
import sushy

from ironic.common import exception, states
from ironic.drivers.modules import (
    redfish_client,
    redfish_management,
    redfish_power,
)
from ironic.tests.emulators.launch import RedfishEmulator


@pytest.fixture(scope="module")
def emulator():
    with RedfishEmulator(count=2, user="admin", password="pw") as emu:
        yield emu


def _info(emu, index=0, **extra):
    return {"redfish_address": emu.url, "redfish_username": "admin",
            "redfish_password": "pw",
            "redfish_system_id": f"/redfish/v1/Systems/{emu.systems()[index]}",
            **extra}


def test_system_is_reached_and_client_reused(emulator, config):
    config("redfish", connection_retry_interval=0)
    target = redfish_client.parse_driver_info(_info(emulator, 1))
    system = redfish_client.get_system(target)
    assert system.identity == emulator.systems()[1]
    assert system.power_state == sushy.POWER_STATE_OFF
    before = len(redfish_client.SESSIONS)
    redfish_client.get_system(target)
    assert len(redfish_client.SESSIONS) == before


def test_systems_of_one_bmc_share_one_client(emulator, config):
    """One session per BMC and credentials, whatever system a node is."""
    config("redfish", connection_retry_interval=0)
    first = redfish_client.parse_driver_info(_info(emulator, 0))
    second = redfish_client.parse_driver_info(_info(emulator, 1))
    assert redfish_client.get_system(first).identity != \
        redfish_client.get_system(second).identity
    assert redfish_client.SESSIONS.get(first) is \
        redfish_client.SESSIONS.get(second)
    other_user = redfish_client.parse_driver_info(
        _info(emulator, 0, redfish_username="operator"))
    assert redfish_client.SESSIONS.get(other_user) is not \
        redfish_client.SESSIONS.get(first)


def test_wrong_password_is_a_clear_error(emulator, config):
    config("redfish", connection_retry_interval=0)
    target = redfish_client.parse_driver_info(
        _info(emulator, redfish_password="nope"))
    with pytest.raises(redfish_client.RedfishConnectionError) as err:
        redfish_client.get_system(target)
    assert "access denied" in str(err.value)


def test_unknown_system_names_the_field(emulator, config):
    config("redfish", connection_retry_interval=0)
    target = redfish_client.parse_driver_info(_info(
        emulator, redfish_system_id="/redfish/v1/Systems/missing"))
    with pytest.raises(exception.InvalidParameterValue) as err:
        redfish_client.get_system(target)
    assert "redfish_system_id" in str(err.value)


def test_stopped_bmc_fails_after_the_configured_attempts(config):
    config("redfish", connection_retry_interval=0, connection_attempts=2)
    with RedfishEmulator(count=1) as emu:
        info = _info(emu)
    target = redfish_client.parse_driver_info(
        dict(info, redfish_username=None, redfish_password=None))
    with pytest.raises(redfish_client.RedfishConnectionError):
        redfish_client.get_system(target)


def _task(emu, index=0):
    return types.SimpleNamespace(node=types.SimpleNamespace(
        driver_info=_info(emu, index)))


def test_one_login_per_bmc_reused_across_calls(config):
    """Many calls to the systems of one BMC log in once (the emulator's
    own journal of logins says so); another BMC gets its own session; a
    BMC that forgot its sessions (restarted) is logged into again."""
    config("redfish", connection_retry_interval=0, auth_type="auto")
    power = redfish_power.RedfishPower()
    mgmt = redfish_management.RedfishManagement()
    with RedfishEmulator(count=2, user="admin", password="pw") as first, \
            RedfishEmulator(count=1, user="admin", password="pw") as second:
        for _ in range(5):
            for index in (0, 1):
                task = _task(first, index)
                assert power.get_power_state(task) == states.POWER_OFF
                mgmt.get_boot_device(task)
        assert first.sessions_journal() == {
            "created": ["admin"], "refused": [], "deleted": 0}
        assert second.sessions_journal()["created"] == []

        assert power.get_power_state(_task(second)) == states.POWER_OFF
        assert second.sessions_journal()["created"] == ["admin"]
        assert first.sessions_journal()["created"] == ["admin"]

        first.stop()
        first.start()
        assert power.get_power_state(_task(first)) == states.POWER_OFF
        assert power.get_power_state(_task(first, 1)) == states.POWER_OFF
        assert first.sessions_journal()["created"] == ["admin"]


def test_basic_auth_type_never_logs_in(config):
    config("redfish", connection_retry_interval=0)
    power = redfish_power.RedfishPower()
    with RedfishEmulator(count=1, user="admin", password="pw") as emu:
        task = _task(emu)
        task.node.driver_info["redfish_auth_type"] = "basic"
        for _ in range(3):
            assert power.get_power_state(task) == states.POWER_OFF
        assert emu.sessions_journal()["created"] == []
