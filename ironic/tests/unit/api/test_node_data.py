"""BIOS settings, node history, shards and events."""

from ironic.db import api as db_api
from ironic.tests.fixtures import error_message

UUID = "11111111-2222-3333-4444-555555555555"
MAC = "52:54:00:12:34:56"


def _node(api, **fields):
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", **fields})
    assert resp.status_int == 201, resp.body
    return resp.json


def _node_id(uuid):
    return db_api.get_instance().get_node_by_uuid(uuid).id


def test_bios_settings(api_newest):
    api = api_newest
    node = _node(api, name="b1")
    db_api.get_instance().set_bios_settings(_node_id(node["uuid"]), [
        {"name": "ProcVirtualization", "value": "Enabled",
         "attribute_type": "Enumeration",
         "allowable_values": ["Enabled", "Disabled"], "read_only": False},
        {"name": "BootMode", "value": "Uefi"}])
    doc = api.get("/v1/nodes/b1/bios").json
    assert [s["name"] for s in doc["bios"]] == ["BootMode",
                                                "ProcVirtualization"]
    # As Ironic 39: timestamps and links come with every setting.
    assert set(doc["bios"][0]) == {"name", "value", "created_at",
                                   "updated_at", "links"}
    detail = api.get("/v1/nodes/b1/bios?detail=true").json["bios"][1]
    assert detail["allowable_values"] == ["Enabled", "Disabled"]
    valued = api.get("/v1/nodes/b1/bios?fields=value").json["bios"]
    assert [s["value"] for s in valued] == ["Uefi", "Enabled"]
    assert set(valued[0]) == {"value", "created_at", "updated_at", "links"}
    one = api.get("/v1/nodes/b1/bios/ProcVirtualization").json
    assert one["ProcVirtualization"]["attribute_type"] == "Enumeration"
    old = api.get("/v1/nodes/b1/bios/ProcVirtualization",
                  version="1.73").json["ProcVirtualization"]
    assert "attribute_type" not in old and old["value"] == "Enabled"
    # Before 1.74 detail and fields are parameters the list does not take
    # (400, as Ironic 39 answers), not too new ones.
    for query in ("detail=true", "detail=false", "fields=name"):
        resp = api.get(f"/v1/nodes/b1/bios?{query}", version="1.73")
        assert resp.status_int == 400, query
        assert "Unexpected arguments" in error_message(resp)
    assert api.get("/v1/nodes/b1/bios/Nope").status_int == 404
    assert api.get("/v1/nodes/b1/bios", version="1.39").status_int == 404


def test_history(api_newest):
    api = api_newest
    node = _node(api, name="h1")
    dbapi = db_api.get_instance()
    for i in range(3):
        dbapi.add_node_history(_node_id(node["uuid"]), {
            "event": f"failure {i}", "severity": "ERROR",
            "event_type": "deploy", "conductor": "c1", "user": "u"})
    doc = api.get("/v1/nodes/h1/history?limit=2").json
    assert [e["event"] for e in doc["history"]] == ["failure 0",
                                                    "failure 1"]
    assert set(doc["history"][0]) == {"uuid", "created_at", "severity",
                                      "event", "links"}
    assert "marker=" in doc["next"]
    # As Ironic 39: an event links to itself, with no bookmark.
    assert [link["rel"] for link in doc["history"][0]["links"]] == ["self"]
    one = api.get(f"/v1/nodes/h1/history/{doc['history'][0]['uuid']}").json
    assert one["conductor"] == "c1" and one["event_type"] == "deploy"
    assert api.get(f"/v1/nodes/h1/history/{UUID}").status_int == 404
    # As Ironic 39: an identifier that is no UUID names no event either.
    resp = api.get("/v1/nodes/h1/history/x")
    assert resp.status_int == 404
    assert error_message(resp) == "Node history record x could not be found."
    resp = api.get(f"/v1/nodes/{UUID}/history/x")
    assert resp.status_int == 404
    assert error_message(resp) == f"Node {UUID} could not be found."
    assert api.get("/v1/nodes/h1/history",
                   version="1.77").status_int == 404


def test_history_sorts_as_ironic_39(api_newest):
    api = api_newest
    node = _node(api, name="h2")
    dbapi = db_api.get_instance()
    for i, severity in enumerate(("WARNING", "ERROR", "INFO")):
        dbapi.add_node_history(_node_id(node["uuid"]), {
            "event": f"event {i}", "severity": severity,
            "event_type": "deploy", "conductor": "c1", "user": "u"})

    def events(query):
        resp = api.get(f"/v1/nodes/h2/history?{query}")
        assert resp.status_int == 200, resp.body
        return [e["event"] for e in resp.json["history"]]

    assert events("sort_dir=desc") == ["event 2", "event 1", "event 0"]
    assert events("sort_key=severity") == ["event 1", "event 2", "event 0"]
    first = api.get("/v1/nodes/h2/history?sort_key=severity&limit=1").json
    assert "sort_key=severity" in first["next"]
    second = api.get("/v1" + first["next"].split("/v1", 1)[1]).json[
        "history"]
    assert [e["event"] for e in second] == ["event 2"]
    for query in ("sort_key=no_such_field", "sort_dir=sideways",
                  "sort_key=links"):
        resp = api.get(f"/v1/nodes/h2/history?{query}")
        assert resp.status_int == 400, (query, resp.body)


def test_shards(api_newest):
    api = api_newest
    for shard in ("a", "a", "b", None):
        _node(api, **({"shard": shard} if shard else {}))
    doc = api.get("/v1/shards").json
    assert doc["shards"][0] == {"name": "a", "count": 2}
    assert {"name": "b", "count": 1} in doc["shards"]
    assert api.get("/v1/shards", version="1.81").status_int == 404
    assert "shards" in api.get("/v1").json


def test_events(api_newest):
    api = api_newest
    event = {"event": "network.bind_port", "port_id": UUID,
             "mac_address": MAC, "status": "ACTIVE", "device_id": UUID,
             "binding:vnic_type": "baremetal"}
    assert api.post("/v1/events", {"events": [event]}).status_int == 204
    bad = dict(event, event="network.explode")
    assert api.post("/v1/events", {"events": [bad]}).status_int == 400
    assert api.post("/v1/events", {"events": []}).status_int == 400
    no_port = {k: v for k, v in event.items() if k != "port_id"}
    assert api.post("/v1/events", {"events": [no_port]}).status_int == 400
    assert api.post("/v1/events", {"events": [event]},
                    version="1.53").status_int == 404


def test_firmware_components(api_newest):
    api = api_newest
    node = _node(api, name="f1")
    db_api.get_instance().set_firmware_components(_node_id(node["uuid"]), [
        {"component": "bmc", "initial_version": "1.0",
         "current_version": "1.2", "last_version_flashed": "1.2"},
        {"component": "bios", "initial_version": "2.0"}])
    doc = api.get("/v1/nodes/f1/firmware").json
    assert [c["component"] for c in doc["firmware"]] == ["bios", "bmc"]
    assert doc["firmware"][1]["current_version"] == "1.2"
    assert doc["firmware"][0]["last_version_flashed"] is None
    assert api.get("/v1/nodes/f1/firmware", version="1.85").status_int == \
        404


def test_inventory(api_newest):
    from ironic.tests import data
    api = api_newest
    node = _node(api, name="inv1")
    assert api.get("/v1/nodes/inv1/inventory").status_int == 404
    sample = data.ipa_inspection_data()
    inventory = sample.pop("inventory")
    db_api.get_instance().set_node_inventory(_node_id(node["uuid"]),
                                             inventory, sample)
    doc = api.get("/v1/nodes/inv1/inventory").json
    assert doc == {"inventory": inventory, "plugin_data": sample}
    assert api.get(f"/v1/nodes/{node['uuid']}/inventory").json == doc
    # Older versions do not know the resource at all.
    assert api.get("/v1/nodes/inv1/inventory",
                   version="1.80").status_int == 404
    assert api.get("/v1/nodes/inv1/inventory?x=1").status_int == 400
    assert api.get("/v1/nodes/nope/inventory").status_int == 404


def test_inventory_missing_has_error_body(api_newest):
    import json
    api = api_newest
    _node(api, name="inv2")
    resp = api.get("/v1/nodes/inv2/inventory")
    assert resp.status_int == 404
    fault = json.loads(resp.json["error_message"])
    assert "inventory" in fault["faultstring"]
