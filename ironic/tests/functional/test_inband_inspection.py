"""In-band inspection over real HTTP with the real CLI and openstacksdk.

The ramdisk's part is played by posting the data the real
ironic-python-agent sent (``ironic/tests/data/ipa_inspection_data.json``)
to ``/v1/continue_inspection``: with the agent's own inspection client
(``ipa_client.py inspect``) against the all-in-one process, and as a plain
JSON POST (without a version header, or with 1.84 and ``node_uuid`` as
virtual media deployments do) elsewhere.

``test_all_in_one_*`` run against the all-in-one ``ironic`` process. The
other tests need microversions above what the service advertises today
(1.39 inspect wait, 1.41 abort, 1.81 inventory, 1.84), so they serve the
API and a conductor from this process on a real port (the built-in
server, as the service does) with the advertised maximum lifted for the
test.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest

from ironic import driver_registry, hash_ring
from ironic.api import app as api_app
from ironic.common import rpc
from ironic.conductor import base_manager, rpcapi
from ironic.serving.server import ServerThread
from ironic.tests import data
from ironic.tests import fixtures as ifx
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.functional.test_ipa_client import ipa

MAC = "02:fc:00:00:00:01"
WAIT = 30.0
HOOKS = "$default_hooks,memory,root-device,cpu-capabilities"


def _post_inspection(endpoint: str, body: dict, query: str = "",
                     version: str | None = None) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json"}
    if version:
        headers["X-OpenStack-Ironic-API-Version"] = version
    req = urllib.request.Request(
        f"{endpoint}/v1/continue_inspection{query}", method="POST",
        data=json.dumps(body).encode(), headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def _until_state(conn, uuid: str, wanted: str):
    deadline = time.monotonic() + WAIT
    while True:
        node = conn.baremetal.get_node(uuid)
        if node.provision_state == wanted:
            return node
        if time.monotonic() > deadline:
            pytest.fail(f"node {uuid} stayed {node.provision_state} "
                        f"({node.last_error}), expected {wanted}")
        time.sleep(0.2)


# ---------------------------------------------------------------------------
# the all-in-one process (advertised versions only)

@pytest.fixture(scope="module")
def aio(tmp_path_factory):
    drivers = dict(svc.TEST_DRIVERS,
                   enabled_inspect_interfaces="fake,no-inspect,agent")
    yield from fconf.run_service(tmp_path_factory, "aio-inspection",
                                 drivers=drivers,
                                 sections={"inspector": {"hooks": HOOKS}})


def _sample_file(tmp_path) -> str:
    path = tmp_path / "inspection.json"
    path.write_text(json.dumps(data.ipa_inspection_data()))
    return str(path)


def _aio_node(aio, cli, name):
    node = cli.json("node", "create", "--driver", "fake-hardware",
                    "--inspect-interface", "agent", "--name", name)
    # The operator knows the NIC; inspection finds out the rest.
    cli.run("port", "create", MAC, "--node", node["uuid"],
            "--pxe-enabled", "false")
    cli.run("node", "manage", name, "--wait", "30")
    cli.run("node", "inspect", name)
    waiting = "inspect wait" if svc.max_minor_version(aio.endpoint) >= 39 \
        else "inspecting"
    shown = cli.json("node", "show", name)
    assert shown["provision_state"] == waiting, shown["last_error"]
    assert shown["power_state"] == "power on"
    return node["uuid"]


def test_all_in_one_inspection_by_the_agent_client(aio, unique, tmp_path):
    cli = svc.Cli(aio.endpoint)
    conn = fconf.sdk_connection(aio.endpoint)
    uuid = _aio_node(aio, cli, f"insp-{unique}")
    sample = _sample_file(tmp_path)
    answer = ipa(aio.endpoint, "inspect", sample)
    assert answer["error"] is None
    assert answer["result"] == {"uuid": uuid}
    done = _until_state(conn, uuid, "manageable")
    assert done.last_error is None
    assert done.power_state == "power off"
    props = done.properties
    assert props["cpu_arch"] == "x86_64" and props["memory_mb"] == 24576
    assert props["local_gb"] == 255
    assert "cpu_aes:true" in props["capabilities"]
    ports = list(conn.baremetal.ports(node=uuid, details=True))
    assert [(p.address, p.is_pxe_enabled) for p in ports] == [(MAC, True)]
    # The same data again finds nothing waiting for it.
    again = ipa(aio.endpoint, "inspect", sample)
    assert again["result"] is None and "error 404" in again["error"]
    status, body = _post_inspection(aio.endpoint, data.ipa_inspection_data())
    assert status == 404 and "error_message" in body
    # Tests of this module share the service and the sample's MAC.
    cli.run("node", "delete", uuid)
    conn.close()


def test_all_in_one_ramdisk_error_fails_inspection(aio, unique, tmp_path):
    cli = svc.Cli(aio.endpoint)
    conn = fconf.sdk_connection(aio.endpoint)
    uuid = _aio_node(aio, cli, f"broken-{unique}")
    answer = ipa(aio.endpoint, "inspect", _sample_file(tmp_path),
                 "--error", "no root disk found")
    assert answer["result"] == {"uuid": uuid}
    failed = _until_state(conn, uuid, "inspect failed")
    assert "no root disk found" in failed.last_error
    assert failed.power_state == "power off"
    cli.run("node", "delete", uuid)
    conn.close()


# ---------------------------------------------------------------------------
# in-process API on a real port, every microversion enabled

@pytest.fixture
def live(api_without_conductor, config, monkeypatch):
    ifx.configure_test_drivers(config, inspect=["fake", "no-inspect",
                                                "agent"])
    config(rpc_transport="none", host="test-conductor")
    config("inspector", hooks=HOOKS.replace("$default_hooks",
                                            "${inspector.default_hooks}"))
    rpc.reset()
    hash_ring.reset()
    monkeypatch.setattr(rpcapi, "_API", None)
    conductor = base_manager.ConductorService()
    conductor.start()
    server = ServerThread(api_app.setup_app()).start()
    endpoint = server.endpoint
    conn = fconf.sdk_connection(endpoint)
    yield endpoint, svc.Cli(endpoint), conn
    conn.close()
    server.stop()
    conductor.stop(timeout=5)
    rpc.reset()
    driver_registry.reset()


def _enroll_and_inspect(cli, conn, name):
    node = cli.json("node", "create", "--driver", "fake-hardware",
                    "--inspect-interface", "agent", "--name", name)
    cli.run("node", "manage", name, "--wait", "30")
    cli.run("node", "inspect", name)
    waiting = _until_state(conn, node["uuid"], "inspect wait")
    assert waiting.power_state == "power on"
    return node["uuid"]


def test_cli_inspection_with_real_agent_data(live, tmp_path):
    endpoint, cli, conn = live
    uuid = _enroll_and_inspect(cli, conn, "inspected")
    status, body = _post_inspection(endpoint, data.ipa_inspection_data(),
                                    f"?node_uuid={uuid}", version="1.84")
    assert status == 202, body
    assert body["node"]["uuid"] == uuid
    assert body["config"]["agent_token"] not in ("", "******")
    node = _until_state(conn, uuid, "manageable")
    assert node.last_error is None and node.power_state == "power off"
    assert node.properties["cpu_arch"] == "x86_64"
    assert node.properties["local_gb"] == 255
    # The port came from the inventory ([inspector]add_ports).
    ports = list(conn.baremetal.ports(node=uuid, details=True))
    assert [(p.address, p.is_pxe_enabled) for p in ports] == [(MAC, True)]

    saved = tmp_path / "inventory.json"
    cli.run("node", "inventory", "save", "inspected", "--file", str(saved))
    doc = json.loads(saved.read_text())
    sample = data.ipa_inspection_data()
    assert doc["inventory"] == sample.pop("inventory")
    assert doc["plugin_data"]["root_disk"] == sample["root_disk"]
    assert doc["plugin_data"]["macs"] == [MAC]
    assert conn.baremetal.get_node_inventory(uuid)["inventory"] == \
        doc["inventory"]


def test_cli_abort_from_inspect_wait(live):
    endpoint, cli, conn = live
    uuid = _enroll_and_inspect(cli, conn, "aborted")
    cli.run("node", "abort", "aborted")
    node = _until_state(conn, uuid, "inspect failed")
    assert node.power_state == "power off"
    assert "Aborted" in node.last_error
    status, _body = _post_inspection(endpoint, data.ipa_inspection_data(),
                                     f"?node_uuid={uuid}", version="1.84")
    assert status == 404
    # Never inspected successfully: no inventory.
    result = cli.run("node", "inventory", "save", "aborted", check=False)
    assert result.returncode != 0
