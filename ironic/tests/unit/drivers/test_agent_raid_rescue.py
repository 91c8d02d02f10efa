"""The agent RAID and rescue interfaces, one module at a time (the whole
flows with an emulated agent are in the functional tests)."""

from __future__ import annotations

import types

import pytest

from ironic.common import exception, password_hash, states
from ironic.conductor import driver_api, task_manager
from ironic.drivers.modules import agent_client, agent_raid, agent_rescue

TARGET = {"logical_disks": [
    {"size_gb": 50, "raid_level": "1", "is_root_volume": True},
    {"size_gb": "MAX", "raid_level": "5"}]}


def _node(**fields):
    values = {"uuid": "n-1", "target_raid_config": TARGET,
              "raid_config": {}, "properties": {}, "instance_info": {},
              "driver_internal_info": {}, "power_state": None,
              "provision_state": states.CLEANING, "disable_power_off": False,
              "save": lambda: None}
    values.update(fields)
    return types.SimpleNamespace(**values)


@pytest.mark.parametrize("root,nonroot,levels", [
    (True, True, ["1", "5"]), (True, False, ["1"]), (False, True, ["5"])])
def test_filter_target(root, nonroot, levels):
    found = agent_raid.filter_target(_node(), root, nonroot)
    assert [d["raid_level"] for d in found["logical_disks"]] == levels


def test_filter_target_with_nothing_left():
    node = _node(target_raid_config={"logical_disks": [
        TARGET["logical_disks"][1]]})
    with pytest.raises(exception.MissingParameterValue) as err:
        agent_raid.filter_target(node, True, False)
    assert "target_raid_config" in str(err.value)


def test_record_built_sets_local_gb_and_raid_level():
    node = _node(properties={"local_gb": 10,
                             "capabilities": "boot_mode:uefi"})
    agent_raid.record_built(node, TARGET)
    assert node.raid_config == TARGET
    assert node.properties["local_gb"] == 50
    assert node.properties["capabilities"] == "boot_mode:uefi,raid_level:1"


def test_record_built_without_root_keeps_properties():
    node = _node(properties={"local_gb": 10})
    built = {"logical_disks": [TARGET["logical_disks"][1]]}
    agent_raid.record_built(node, built)
    assert node.raid_config == built
    assert node.properties == {"local_gb": 10}


def _task(node, **driver):
    task = types.SimpleNamespace(node=node, ports=[],
                                 driver=types.SimpleNamespace(**driver))
    # The conductor's API on the stand-in, as the task manager hands it out.
    task.conductor = driver_api.TaskConductor(task, task_manager.acquire)
    return task


def test_finished_step_without_configuration_is_an_error():
    task = _task(_node())
    with pytest.raises(exception.IronicException) as err:
        agent_raid.AgentRAID().agent_step_finished(
            task, "clean", {"step": "create_configuration"},
            {"command_result": {"clean_result": None}})
    assert "no RAID configuration" in str(err.value)


def test_finished_delete_empties_raid_config():
    task = _task(_node(raid_config=TARGET))
    agent_raid.AgentRAID().agent_step_finished(
        task, "clean", {"step": "delete_configuration"}, {})
    assert task.node.raid_config == {}


def test_finished_apply_records_the_deploy_result():
    task = _task(_node())
    agent_raid.AgentRAID().agent_step_finished(
        task, "deploy", {"step": "apply_configuration"},
        {"command_result": {"deploy_result": TARGET}})
    assert task.node.raid_config == TARGET


def test_clean_step_priorities_follow_the_options(config):
    config("deploy", create_configuration_priority=40)
    raid = agent_raid.AgentRAID()
    task = _task(_node(driver_internal_info={}))
    steps = {s["step"]: s["priority"] for s in raid.get_clean_steps(task)}
    assert steps == {"create_configuration": 40, "delete_configuration": 0}
    deploy = {s["step"] for s in raid.get_deploy_steps(task)}
    assert deploy == {"apply_configuration", "delete_configuration"}


def test_validate_checks_the_target():
    raid = agent_raid.AgentRAID()
    raid.validate(_task(_node()))
    with pytest.raises(exception.InvalidParameterValue):
        raid.validate(_task(_node(target_raid_config={
            "logical_disks": [{"size_gb": 1}]})))


# --- rescue -------------------------------------------------------------------

class _Recorder:
    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        return lambda *args, **kwargs: self.calls.append(name)


class _Power:
    def __init__(self):
        self.state = states.POWER_ON

    def set_power_state(self, task, state, timeout=None):
        self.state = state

    def get_power_state(self, task):
        return self.state


def test_rescue_hashes_the_password_and_boots_the_ramdisk(config):
    config("conductor", rescue_password_hash_algorithm="sha512")
    node = _node(provision_state=states.RESCUING,
                 instance_info={"rescue_password": "pw"})
    boot, network = _Recorder(), _Recorder()
    task = _task(node, boot=boot, network=network, power=_Power())
    assert agent_rescue.AgentRescue().rescue(task) == states.RESCUEWAIT
    hashed = node.instance_info["hashed_rescue_password"]
    assert hashed.startswith("$6$")
    assert password_hash.sha_crypt("pw", "sha512",
                                   hashed.split("$")[2]) == hashed
    assert boot.calls == ["clean_up_instance", "prepare_ramdisk"]
    assert network.calls == ["unconfigure_tenant_networks",
                             "add_rescuing_network"]
    assert task.driver.power.state == states.POWER_ON


def test_rescue_without_password_is_refused():
    task = _task(_node(provision_state=states.RESCUING))
    with pytest.raises(exception.MissingParameterValue):
        agent_rescue.AgentRescue().rescue(task)


def test_failed_finalize_fails_the_rescue(monkeypatch):
    failed = []

    class Client:
        def __init__(self, node):
            pass

        def finalize_rescue(self, password, hashed=True):
            return {"command_status": "FAILED",
                    "command_error": {"message": "no rescue user"}}

    monkeypatch.setattr(agent_client, "AgentClient", Client)
    node = _node(provision_state=states.RESCUEWAIT,
                 instance_info={"hashed_rescue_password": "$5$x$y"})
    task = _task(node)
    monkeypatch.setattr(task.conductor, "fail_node",
                        lambda event, msg: failed.append((event, msg)))
    agent_rescue.AgentRescue()._finalize(task)
    [(event, message)] = failed
    assert event == "fail" and "no rescue user" in message


def test_validate_needs_a_boot_interface_that_can_rescue():
    class NoRescueBoot:
        def validate_rescue(self, task):
            raise exception.UnsupportedDriverExtension(
                driver="x", extension="validate_rescue")

    with pytest.raises(exception.InvalidParameterValue) as err:
        agent_rescue.AgentRescue().validate(_task(_node(),
                                                  boot=NoRescueBoot()))
    assert "rescue ramdisk" in str(err.value)
