"""Fast track decisions, agent log collection and the ramdisk's API URL."""

from __future__ import annotations

import base64
import datetime
import types

import pytest

from ironic.common import agent_token, exception, states, utils
from ironic.conductor import fast_track, task_manager
from ironic.drivers.modules import agent_client, agent_logs
from ironic.objects.node import Node
from ironic.tests import builders


def _ago(seconds):
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    return (now - datetime.timedelta(seconds=seconds)).isoformat()


def _node(**values):
    return types.SimpleNamespace(
        uuid="2b9c7d4e-1f0a-4c3b-8d6e-5a4b3c2d1e0f", name="n1",
        instance_uuid=None, driver_info=values.pop("driver_info", {}),
        last_error=values.pop("last_error", None),
        driver_internal_info=values)


def test_enabled_by_option_or_driver_info(config):
    assert not fast_track.enabled(_node())
    config("deploy", fast_track=True)
    assert fast_track.enabled(_node())
    assert not fast_track.enabled(_node(driver_info={"fast_track": "no"}))
    with pytest.raises(exception.InvalidParameterValue, match="fast_track"):
        fast_track.enabled(_node(driver_info={"fast_track": "maybe"}))
    assert not fast_track.keeps_agent(_node(last_error="it broke"))


def test_agent_alive_needs_a_recent_heartbeat(config):
    config("deploy", fast_track_timeout=60)
    alive = {agent_token.KEY: "sha256:x", "agent_url": "https://a:9999"}
    assert fast_track.agent_alive(_node(**alive,
                                        agent_last_heartbeat=_ago(5)))
    assert not fast_track.agent_alive(_node(**alive,
                                            agent_last_heartbeat=_ago(90)))
    assert not fast_track.agent_alive(_node(agent_url="https://a:9999",
                                            agent_last_heartbeat=_ago(5)))
    assert not fast_track.agent_alive(_node(**alive))


@pytest.mark.parametrize("fast,error,kept", [
    (True, None, True), (False, None, False), (True, "failed", False)])
def test_stable_state_keeps_the_agent_only_for_fast_track(
        database, config, fast, error, kept):
    config("deploy", fast_track=fast)
    node = builders.make_node(provision_state=states.CLEANING,
                              target_provision_state=states.MANAGEABLE,
                              power_state=states.POWER_ON)
    agent_token.issue(node)
    node.save()
    with task_manager.acquire(None, node.uuid, host="me") as task:
        task.process_event("done", last_error=error)
    assert agent_token.has_token(Node.get(node.uuid)) is kept


def test_ramdisk_api_url_prefers_the_endpoint_override(config):
    config("api", public_endpoint="https://public.example:6385")
    assert utils.ramdisk_api_url() == "https://public.example:6385"
    config("service_catalog", endpoint_override="http://192.0.2.7:6385/")
    assert utils.ramdisk_api_url() == "http://192.0.2.7:6385"


def test_swift_log_storage_refused_at_start(config):
    agent_logs.check_config()
    config("agent", deploy_logs_storage_backend="swift")
    with pytest.raises(exception.InvalidParameterValue,
                       match="deploy_logs_storage_backend"):
        agent_logs.check_config()


def test_logs_are_stored_once_per_agent_and_label(tmp_path, config,
                                                  monkeypatch):
    config("agent", deploy_logs_local_path=str(tmp_path),
           deploy_logs_collect="on_failure")
    calls = []

    def collect(self):
        calls.append(self.node.uuid)
        return {"command_status": "SUCCEEDED",
                "command_result": {"system_logs":
                                   base64.b64encode(b"tarball").decode()}}

    monkeypatch.setattr(agent_client.AgentClient, "collect_system_logs",
                        collect)
    node = _node(**{agent_token.KEY: "sha256:one",
                    "agent_url": "https://a:9999"})
    task = types.SimpleNamespace(node=node)
    assert agent_logs.on_success(task, "cleaning") is None  # on_failure
    path = agent_logs.on_failure(task, "cleaning")
    assert path.startswith(str(tmp_path / f"{node.uuid}_n1_cleaning_"))
    assert open(path, "rb").read() == b"tarball"
    config("agent", deploy_logs_collect="always")
    assert agent_logs.on_success(task, "cleaning") is None  # done already
    assert agent_logs.on_success(task) is not None
    assert len(calls) == 2
    config("agent", deploy_logs_collect="never")
    assert agent_logs.on_failure(task, "other") is None
    # No agent: nothing asked.
    assert agent_logs.collect(types.SimpleNamespace(node=_node())) is None
    assert len(calls) == 2
