"""The agent's logs are collected and stored ([agent]deploy_logs_collect).

The all-in-one service with ``deploy_logs_collect = always`` and the
emulated agent, which answers ``log.collect_system_logs`` like the real one
(a base64 gzipped tarball). A failing in-band clean step stores the logs
labelled ``cleaning`` (once, although the tear down follows); a deployment
stores them at its end. The service also starts with
``[service_catalog]endpoint_override`` set (its meaning is unit-tested).
"""

from __future__ import annotations

import tarfile

import pytest

from ironic.tests.emulators import agent as agent_emu
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.functional.test_agent_deploy import (
    _instance_info,
    _mac,
    _until,
    image_server,  # noqa: F401 - fixture
)

DRIVERS = dict(svc.TEST_DRIVERS, enabled_deploy_interfaces="fake,direct")


@pytest.fixture(scope="module")
def logs_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("deploy-logs")


@pytest.fixture(scope="module")
def aio(tmp_path_factory, logs_dir):
    sections = {
        "agent": {"post_deploy_get_power_state_retries": "0",
                  "command_wait_interval": "1",
                  "deploy_logs_collect": "always",
                  "deploy_logs_local_path": str(logs_dir)},
        "conductor": {"check_provision_state_interval": "1"},
        "service_catalog": {
            "endpoint_override": "http://192.0.2.7:6385/"},
    }
    yield from fconf.run_service(tmp_path_factory, "aio-agent-logs",
                                 drivers=DRIVERS, sections=sections)


def _journal(path):
    with tarfile.open(path, "r:gz") as tar:
        return tar.extractfile("journal").read().decode()


def test_logs_on_failure_and_after_a_deployment(aio, logs_dir,
                                                image_server):  # noqa: F811
    conn = fconf.sdk_connection(aio.endpoint, baremetal_api_version="1.72")
    mac = _mac()
    node = conn.baremetal.create_node(
        driver="fake-hardware", name="with-logs", deploy_interface="direct",
        boot_interface="fake", power_interface="fake",
        management_interface="fake", network_interface="noop",
        automated_clean=False, instance_info=_instance_info(image_server))
    conn.baremetal.create_port(node_id=node.id, address=mac)
    conn.baremetal.set_node_provision_state(node.id, "manage")
    _until(conn, node.id, "manageable")

    with agent_emu.AgentEmulator(
            aio.endpoint, [mac],
            failing_steps={"erase_devices_metadata": "disk on fire"}):
        conn.baremetal.set_node_provision_state(
            node.id, "clean", clean_steps=[
                {"interface": "deploy", "step": "erase_devices_metadata"}])
        failed = _until(conn, node.id, "clean failed", "manageable")
        assert "disk on fire" in failed.last_error
    stored = sorted(logs_dir.iterdir())
    assert [p.name.split("_")[:3] for p in stored] == \
        [[node.id, "with-logs", "cleaning"]]
    assert stored[0].name.endswith(".tar.gz")
    assert "clean.execute_clean_step" in _journal(stored[0])

    conn.baremetal.set_node_provision_state(node.id, "manage")
    _until(conn, node.id, "manageable")
    conn.baremetal.set_node_provision_state(node.id, "provide")
    _until(conn, node.id, "available")
    with agent_emu.AgentEmulator(aio.endpoint, [mac]):
        conn.baremetal.set_node_provision_state(node.id, "active")
        done = _until(conn, node.id, "active", "deploy failed")
        assert done.provision_state == "active", done.last_error
    after = sorted(set(logs_dir.iterdir()) - set(stored))
    assert len(after) == 1
    assert after[0].name.split("_")[:2] == [node.id, "with-logs"]
    assert "cleaning" not in after[0].name
    assert "deploy.execute_deploy_step" in _journal(after[0])
