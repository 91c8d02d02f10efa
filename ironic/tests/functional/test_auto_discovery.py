"""Auto-discovery against the all-in-one process: the real agent's data,
posted by the agent's own inspection client and by ten posts at once,
enrolls one node that the CLI and openstacksdk show."""

from __future__ import annotations

import concurrent.futures
import json
import time
import urllib.error
import urllib.request

import pytest

from ironic.tests import data
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.functional.test_inband_inspection import _post_inspection
from ironic.tests.functional.test_ipa_client import ipa

MAC = "02:fc:00:00:00:01"
HOOKS = "$default_hooks,memory,cpus,root-device"
RULE = {
    "description": "BMC of discovered machines",
    "conditions": [{"op": "is-true",
                    "args": {"value": "{plugin_data[auto_discovered]}"}}],
    "actions": [
        {"op": "set-attribute", "args": {
            "path": "/driver_info/ipmi_address",
            "value": "{inventory[hostname]}-bmc.example.com"}},
        {"op": "set-attribute", "args": {
            "path": "/driver_info/ipmi_username", "value": "admin"}}],
}


@pytest.fixture(scope="module")
def aio(tmp_path_factory):
    drivers = dict(svc.TEST_DRIVERS,
                   enabled_inspect_interfaces="fake,no-inspect,agent")
    sections = {"inspector": {"hooks": HOOKS},
                "auto_discovery": {"enabled": "true",
                                   "driver": "fake-hardware"}}
    yield from fconf.run_service(tmp_path_factory, "aio-discovery",
                                 drivers=drivers, sections=sections)


def _request(endpoint, method, path, body=None, version="1.96"):
    req = urllib.request.Request(
        endpoint + path, method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json",
                 "X-OpenStack-Ironic-API-Version": version})
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read() or b"{}")


def _processed(conn, uuid):
    deadline = time.monotonic() + 30
    while True:
        node = conn.baremetal.get_node(uuid)
        if node.properties.get("memory_mb"):
            return node
        if time.monotonic() > deadline:
            pytest.fail(f"node {uuid} was not processed: {node.last_error}")
        time.sleep(0.2)


def _discovered(endpoint) -> list[dict]:
    return _request(endpoint, "GET", "/v1/nodes?auto_discovered=true"
                    "&fields=uuid,auto_discovered,provision_state")["nodes"]


@pytest.fixture(autouse=True)
def forget_discovered(aio):
    """Tests of the module share the service and the sample's MAC."""
    yield
    conn = fconf.sdk_connection(aio.endpoint)
    for node in _discovered(aio.endpoint):
        conn.baremetal.delete_node(node["uuid"])
    conn.close()


def test_the_agents_data_enrolls_one_processed_node(aio, tmp_path):
    cli = svc.Cli(aio.endpoint)
    conn = fconf.sdk_connection(aio.endpoint)
    _request(aio.endpoint, "POST", "/v1/inspection_rules", RULE)
    sample = tmp_path / "inspection.json"
    sample.write_text(json.dumps(data.ipa_inspection_data()))
    answer = ipa(aio.endpoint, "inspect", str(sample))
    assert answer["error"] is None, answer
    uuid = answer["result"]["uuid"]
    node = _processed(conn, uuid)
    assert node.provision_state == "enroll"
    assert node.last_error is None
    assert node.driver == "fake-hardware"
    assert node.properties["cpu_arch"] == "x86_64"
    assert node.properties["cpus"] == 2
    assert node.properties["memory_mb"] == 24576
    assert node.driver_info["ipmi_username"] == "admin"
    assert node.driver_info["ipmi_address"].endswith("-bmc.example.com")
    ports = list(conn.baremetal.ports(node=uuid, details=True))
    assert [p.address for p in ports] == [MAC]
    # The CLI shows the field and lists the node among enrolled ones.
    shown = cli.json("node", "show", uuid)
    assert shown["auto_discovered"] is True
    listed = cli.json("node", "list", "--provision-state", "enroll")
    assert uuid in [n["uuid"] for n in listed]
    assert [n["uuid"] for n in _discovered(aio.endpoint)] == [uuid]
    inventory = json.loads(cli.run("node", "inventory", "save",
                                   uuid).stdout)
    assert inventory["plugin_data"]["auto_discovered"] is True
    # The machine is known now: posting again enrolls nothing.
    again = ipa(aio.endpoint, "inspect", str(sample))
    assert again["result"] is None and "404" in again["error"]
    assert len(_discovered(aio.endpoint)) == 1
    conn.close()


def test_ten_posts_at_once_enroll_one_node(aio):
    body = data.ipa_inspection_data()
    with concurrent.futures.ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(
            lambda _: _post_inspection(aio.endpoint, body), range(10)))
    codes = sorted(status for status, _ in answers)
    assert codes.count(202) == 1, answers
    assert set(codes) == {202, 404}, answers
    assert all("error_message" in doc for status, doc in answers
               if status == 404)
    assert len(_discovered(aio.endpoint)) == 1


def test_deeply_nested_data_gets_the_error_body(aio):
    # (The size limit of this endpoint belongs to the request limits work.)
    # 5,000 levels: more than json.dumps itself can write.
    text = json.dumps(data.ipa_inspection_data())[:-1] + \
        ', "deep": ' + '{"x": ' * 5000 + '{}' + '}' * 5000 + '}'
    req = urllib.request.Request(
        f"{aio.endpoint}/v1/continue_inspection", method="POST",
        data=text.encode(), headers={"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(req, timeout=30)
        status, doc = 202, {}
    except urllib.error.HTTPError as e:
        status, doc = e.code, json.loads(e.read())
    assert 400 <= status < 500, status
    assert "faultstring" in json.loads(doc["error_message"])
    assert _discovered(aio.endpoint) == []
