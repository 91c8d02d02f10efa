"""Auto-discovery: inspection data of an unknown machine enrolls one node,
processed by the hooks and the inspection rules."""

from __future__ import annotations

import concurrent.futures
import copy

from ironic.common import states
from ironic.db import api as db_api
from ironic.objects.node import Node
from ironic.tests import data
from ironic.tests.unit.conductor import test_inband_inspection as inband

env = inband.env
_get, _post_data = inband._get, inband._post_data


def _discovering(config):
    config("auto_discovery", enabled=True, driver="fake-hardware")
    config("inspector", hooks="ramdisk-error,validate-interfaces,ports,"
                              "architecture,memory,cpus")


def _nodes(env, query=""):
    resp = env[0].get(f"/v1/nodes{query}")
    assert resp.status_int == 200, resp.body
    return resp.json["nodes"]


def test_unknown_machine_is_enrolled_and_processed(env, config):
    _discovering(config)
    env[0].post("/v1/inspection_rules", {
        "description": "BMC credentials for discovered machines",
        "conditions": [{"op": "is-true",
                        "args": {"value": "{plugin_data[auto_discovered]}"}}],
        "actions": [{"op": "set-attribute", "args": {
            "path": "/driver_info/ipmi_address",
            "value": "{inventory[hostname]}.bmc.example.com"}}]},
        version="1.96")
    sample = data.ipa_inspection_data()
    resp = _post_data(env, sample)
    assert resp.status_int == 202, resp.body
    uuid = resp.json["uuid"]
    node = _get(env, uuid)
    assert node["provision_state"] == states.ENROLL
    assert node["driver"] == "fake-hardware"
    assert node["auto_discovered"] is True
    assert node["last_error"] is None
    assert node["properties"]["cpu_arch"] == "x86_64"
    assert node["properties"]["memory_mb"] > 0
    assert node["properties"]["cpus"] == sample["inventory"]["cpu"]["count"]
    assert node["driver_info"]["ipmi_address"] == \
        f"{sample['inventory']['hostname']}.bmc.example.com"
    ports = env[0].get(f"/v1/nodes/{uuid}/ports?detail=true").json["ports"]
    assert [p["address"] for p in ports] == [inband.MAC]
    stored = db_api.get_instance().get_node_inventory(Node.get(uuid).id)
    assert stored.plugin_data["auto_discovered"] is True
    # Listed with the filter, only from the version showing the field.
    assert [n["uuid"] for n in _nodes(env, "?auto_discovered=true")] == \
        [uuid]
    assert _nodes(env, "?auto_discovered=false") == []
    old = env[0].get("/v1/nodes?auto_discovered=true", version="1.83")
    assert old.status_int == 406
    assert "auto_discovered" not in _get(env, uuid, version="1.83")


def test_the_field_is_read_only(env, config):
    _discovering(config)
    uuid = _post_data(env, data.ipa_inspection_data()).json["uuid"]
    resp = env[0].patch(f"/v1/nodes/{uuid}", [
        {"op": "replace", "path": "/auto_discovered", "value": False}])
    assert resp.status_int == 400, resp.body
    resp = env[0].post("/v1/nodes", {"driver": "fake-hardware",
                                     "auto_discovered": True})
    assert resp.status_int == 400, resp.body


def test_ten_concurrent_posts_enroll_one_node(env, config):
    _discovering(config)
    sample = data.ipa_inspection_data()

    def post(_):
        return _post_data(env, copy.deepcopy(sample), version="1.84")

    with concurrent.futures.ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(post, range(10)))
    codes = sorted(a.status_int for a in answers)
    assert codes.count(202) == 1, codes
    assert set(codes) <= {202, 404}, codes
    [winner] = [a for a in answers if a.status_int == 202]
    # The one answered gets the agent token, as on a normal lookup.
    assert winner.json["config"]["agent_token"]
    discovered = _nodes(env, "?auto_discovered=true")
    assert [n["uuid"] for n in discovered] == [winner.json["node"]["uuid"]]


def test_without_auto_discovery_unknown_machines_get_404(env):
    resp = _post_data(env, data.ipa_inspection_data())
    assert resp.status_int == 404
    assert _nodes(env) == []


def test_a_known_machine_in_the_wrong_state_is_not_rediscovered(env,
                                                                config):
    _discovering(config)
    first = _post_data(env, data.ipa_inspection_data())
    assert first.status_int == 202
    again = _post_data(env, data.ipa_inspection_data())
    assert again.status_int == 404
    assert len(_nodes(env)) == 1
