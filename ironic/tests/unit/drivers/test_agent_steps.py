"""Which steps an agent deploy runs, and in which order.

A fake-hardware node with the ``direct`` deploy interface on a real
(sqlite) database; the agent's in-band steps are what it would have
reported, cached on the node as the heartbeat handler caches them.
"""

from __future__ import annotations

import pytest

from ironic.common import exception, states
from ironic.conductor import deployments, steps, task_manager
from ironic.drivers.modules import agent_state
from ironic.tests import builders
from ironic.tests import fixtures as ifx

DECOMPOSED = [("deploy", "deploy", 100), ("deploy", "write_image", 80),
              ("deploy", "prepare_instance_boot", 60),
              ("deploy", "tear_down_agent", 40),
              ("deploy", "switch_to_tenant_network", 30),
              ("deploy", "boot_instance", 20)]


def _inband(name, priority=0, **extra):
    return {"interface": "deploy", "step": name, "priority": priority,
            "reboot_requested": False, "abortable": True, **extra}


@pytest.fixture
def node(database, config):
    ifx.configure_test_drivers(config, deploy=["fake", "direct", "ramdisk"])
    return builders.make_node(
        provision_state=states.DEPLOYING, deploy_interface="direct",
        boot_interface="fake", power_interface="fake",
        management_interface="fake", network_interface="noop",
        storage_interface="noop", raid_interface="fake",
        bios_interface="fake", instance_info={})


def _task(node):
    return task_manager.acquire(None, node.uuid, purpose="test",
                                host="test-conductor")


def _cache(task, kind, inband):
    agent_state.AgentInfo(task.node).set_cached_steps(
        kind, {"deploy": inband}, {"generic_hardware_manager": "1.2"})


def _order(planned):
    return [(s["interface"], s["step"], s["priority"]) for s in planned]


def test_decomposed_steps_and_priorities(node):
    with _task(node) as task:
        assert _order(deployments.plan(task)) == DECOMPOSED
        # Until the agent reported, in-band steps of the deploy interface
        # are pending (checked later).
        assert steps.pending(task, steps.DEPLOY) == {"deploy"}


def test_inband_deploy_steps_only_from_41_to_99(node):
    with _task(node) as task:
        _cache(task, "deploy", [_inband("at_99", 99), _inband("at_41", 41),
                                _inband("at_40", 40), _inband("at_100", 100),
                                _inband("at_150", 150),
                                _inband("disabled", 0),
                                # Shadowed by the out-of-band step.
                                _inband("write_image", 0)])
        assert steps.pending(task, steps.DEPLOY) == frozenset()
        offered = {s["step"]: s["priority"] for s in
                   task.driver.deploy.get_deploy_steps(task)}
        assert {"at_40", "at_100", "at_150"}.isdisjoint(offered)
        assert offered["disabled"] == 0 and offered["write_image"] == 80
        assert _order(deployments.plan(task)) == [
            DECOMPOSED[0], ("deploy", "at_99", 99), DECOMPOSED[1],
            DECOMPOSED[2], ("deploy", "at_41", 41), *DECOMPOSED[3:]]


def test_user_steps_enable_inband_steps_in_the_window(node):
    with _task(node) as task:
        _cache(task, "deploy", [_inband("erase_devices_metadata"),
                                _inband("inject_files", argsinfo={
                                    "files": {"description": "f",
                                              "required": False}})])
        user = [{"interface": "deploy", "step": "erase_devices_metadata",
                 "args": {}, "priority": 85},
                {"interface": "deploy", "step": "inject_files",
                 "args": {"files": []}, "priority": 65},
                {"interface": "bios", "step": "factory_reset", "args": {},
                 "priority": 110}]
        planned = task.driver.deploy.screen_deploy_steps(
            task, steps.automated(task, steps.DEPLOY, user))
        assert _order(planned) == [
            ("bios", "factory_reset", 110), DECOMPOSED[0],
            ("deploy", "erase_devices_metadata", 85), DECOMPOSED[1],
            ("deploy", "inject_files", 65), *DECOMPOSED[2:]]
        # Outside the agent's window: dropped, not run.
        late = [dict(user[1], priority=30)]
        planned = task.driver.deploy.screen_deploy_steps(
            task, steps.automated(task, steps.DEPLOY, late))
        assert "inject_files" not in [s["step"] for s in planned]


def test_inband_step_arguments_are_checked_with_the_agents_argsinfo(node):
    with _task(node) as task:
        _cache(task, "deploy", [_inband("inject_files", argsinfo={
            "files": {"description": "f", "required": True}})])
        with pytest.raises(exception.InvalidParameterValue,
                           match="missing required arguments: files"):
            steps.automated(task, steps.DEPLOY, [
                {"interface": "deploy", "step": "inject_files",
                 "args": {}, "priority": 70}])


def test_unknown_step_waits_for_the_agent_then_fails(node):
    unknown = [{"interface": "deploy", "step": "from_the_agent",
                "args": {"x": 1}, "priority": 70}]
    with _task(node) as task:
        planned = steps.automated(task, steps.DEPLOY, unknown)
        assert ("deploy", "from_the_agent", 70) in _order(planned)
        # Unknown steps of other interfaces are refused at once.
        with pytest.raises(exception.InvalidParameterValue):
            steps.automated(task, steps.DEPLOY, [dict(unknown[0],
                                                      interface="bios")])
        _cache(task, "deploy", [])
        with pytest.raises(exception.InvalidParameterValue,
                           match="from_the_agent"):
            steps.automated(task, steps.DEPLOY, unknown)


def test_replan_keeps_the_running_step(node):
    with _task(node) as task:
        steps.StepState(task.node, steps.DEPLOY).store(
            deployments.plan(task))
        steps.StepState(task.node, steps.DEPLOY).at(0)
        _cache(task, "deploy", [_inband("early", 95)])
        steps.replan(task, "deploy")
        state = steps.StepState(task.node, steps.DEPLOY)
        assert state.index == 0
        assert [s["step"] for s in state.steps][:3] == [
            "deploy", "early", "write_image"]
        assert state.resume_index() == 1


def test_clean_steps_with_erase_priorities(node, config):
    with _task(node) as task:
        _cache(task, "clean", [_inband("erase_devices", 10),
                               _inband("erase_devices_metadata", 99),
                               _inband("burnin_cpu", 0)])
        planned = steps.automated(task, steps.CLEAN)
        assert [s["step"] for s in planned] == ["erase_devices_metadata",
                                                "erase_devices"]
        config("deploy", erase_devices_priority=0,
               erase_devices_metadata_priority=50)
        planned = steps.automated(task, steps.CLEAN)
        assert _order(planned) == [("deploy", "erase_devices_metadata", 50)]


def test_manual_clean_in_band_steps_wait_unless_no_ramdisk(node):
    with _task(node) as task:
        user = [{"interface": "deploy", "step": "burnin_cpu"}]
        assert steps.manual(task, steps.CLEAN, user) == user
        with pytest.raises(exception.InvalidParameterValue):
            steps.manual(task, steps.CLEAN, user, disable_ramdisk=True)


def test_ramdisk_deploy_has_the_deploy_step_only(node):
    node.deploy_interface = "ramdisk"
    node.save()
    with _task(node) as task:
        assert _order(deployments.plan(task)) == [DECOMPOSED[0]]
        assert steps.pending(task, steps.DEPLOY) == frozenset()
        assert steps.pending(task, steps.CLEAN) == {"deploy"}


# ---------------------------------------------------------------------------
# what a finished agent command does to the steps

def _waiting_clean(node, step):
    node.provision_state = states.CLEANWAIT
    node.target_provision_state = states.MANAGEABLE
    node.save()
    with _task(node) as task:
        _cache(task, "clean", [step])
        state = steps.StepState(task.node, steps.CLEAN)
        state.store([step])
        state.at(0)
        agent_state.AgentInfo(task.node).await_command(
            "clean", "execute_clean_step")
        task.node.save()


def _result(status, step=None, error=None):
    return {"command_name": "execute_clean_step", "command_status": status,
            "command_error": error,
            "command_result": {"clean_step": step} if step else None}


def _check(node, kind, result):
    with _task(node) as task:
        task.driver.deploy._check_result(task, kind, f"execute_{kind}_step",
                                         result)
        return task.node


def test_running_command_keeps_waiting(node):
    step = _inband("burnin_cpu")
    _waiting_clean(node, step)
    after = _check(node, "clean", _result("RUNNING"))
    assert after.provision_state == states.CLEANWAIT
    assert agent_state.AgentInfo(after).pending_command


def test_succeeded_command_resumes_and_finishes(node):
    step = _inband("burnin_cpu")
    _waiting_clean(node, step)
    after = _check(node, "clean", _result("SUCCEEDED", step))
    assert after.provision_state == states.MANAGEABLE
    assert after.last_error is None
    assert agent_state.AgentInfo(after).pending_command is None


def test_failed_command_fails_with_the_agents_error(node):
    step = _inband("burnin_cpu")
    _waiting_clean(node, step)
    after = _check(node, "clean", _result(
        "FAILED", error={"type": "CommandExecutionError",
                         "details": "CPU too hot"}))
    assert after.provision_state == states.CLEANFAIL
    assert "deploy.burnin_cpu" in after.last_error
    assert "CPU too hot" in after.last_error


def test_deploy_version_mismatch_fails_the_deployment(node):
    node.provision_state = states.DEPLOYWAIT
    node.target_provision_state = states.ACTIVE
    node.deploy_step = _inband("early", 90)
    node.save()
    with _task(node) as task:
        task.driver.deploy._check_result(
            task, "deploy", "execute_deploy_step",
            {"command_name": "execute_deploy_step",
             "command_status": "CLEAN_VERSION_MISMATCH",
             "command_error": {"details": "versions differ"},
             "command_result": None})
        assert task.node.provision_state == states.DEPLOYFAIL
        assert "version mismatch" in task.node.last_error


def test_busy_agent_runs_the_step_again_on_the_next_heartbeat(node):
    from ironic.drivers.modules import agent_client

    def busy(client):
        raise agent_client.AgentInProgress(node=node.uuid, command="x",
                                           error="busy")
    with _task(node) as task:
        state = steps.StepState(task.node, steps.DEPLOY)
        state.store(deployments.plan(task))
        state.at(1)
        outcome = task.driver.deploy.run_agent_command(
            task, "deploy", "execute_deploy_step", busy)
        assert outcome == states.DEPLOYWAIT
        assert agent_state.AgentInfo(task.node).pending_command is None
        # The step that could not start is not skipped.
        assert state.resume_index() == 1
