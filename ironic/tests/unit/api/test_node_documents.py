"""Node documents are rendered once and answered again only while the
node's stored values and everything else they show are unchanged."""

import sqlite3

import pytest

from ironic import hash_ring
from ironic.api.controllers.v1 import node_documents, node_view
from ironic.db import api as db_api
from ironic.tests import fixtures as ifx


@pytest.fixture
def renders(monkeypatch):
    """How many node documents were rendered (not answered from store)."""
    count = []
    show = node_view.show_node

    def counting(*args, **kwargs):
        count.append(1)
        return show(*args, **kwargs)
    monkeypatch.setattr(node_view, "show_node", counting)
    return count


@pytest.fixture
def node(api):
    doc = api.post("/v1/nodes", {"driver": "fake-hardware", "name": "doc-1",
                                 "driver_info": {"ipmi_password": "x"},
                                 "extra": {"a": 1}}).json
    return doc


def _fresh(api, path, **kw):
    """What rendering from scratch answers."""
    node_documents.reset_documents()
    return api.get(path, **kw).json


def test_an_unchanged_node_is_answered_without_rendering(api, node,
                                                         renders):
    first = api.get(f"/v1/nodes/{node['uuid']}")
    again = api.get("/v1/nodes/doc-1")
    assert first.status_int == again.status_int == 200
    assert again.body == first.body
    assert len(renders) == 0  # the create stored it
    assert again.json["driver_info"]["ipmi_password"] == "******"


def test_the_create_answer_is_what_a_get_answers(api, renders):
    created = api.post("/v1/nodes", {"driver": "fake-hardware"})
    assert len(renders) == 1
    got = api.get(f"/v1/nodes/{created.json['uuid']}")
    assert len(renders) == 1
    assert got.body == created.body
    assert got.json == _fresh(api, f"/v1/nodes/{created.json['uuid']}")


def test_a_patch_answers_the_saved_node_and_stores_it(api, node, renders):
    resp = api.patch(f"/v1/nodes/{node['uuid']}",
                     [{"op": "add", "path": "/extra/b", "value": 2}])
    assert resp.json["extra"] == {"a": 1, "b": 2}
    renders.clear()
    got = api.get(f"/v1/nodes/{node['uuid']}")
    assert not renders
    assert got.json == resp.json == _fresh(api, f"/v1/nodes/{node['uuid']}")


def test_a_write_elsewhere_is_seen_at_once(api, node, database, renders):
    path = f"/v1/nodes/{node['uuid']}"
    api.get(path)
    # Another process (a conductor, an operator's SQL) changes the row;
    # nothing tells this API process.
    with sqlite3.connect(database) as conn:
        conn.execute("UPDATE nodes SET extra = ? WHERE uuid = ?",
                     ('{"a": 2}', node["uuid"]))
    assert api.get(path).json["extra"] == {"a": 2}
    assert len(renders) == 1
    db_api.get_instance().update_node(_node_id(node["uuid"]),
                                      {"maintenance": True})
    assert api.get(path).json["maintenance"] is True


def _node_id(uuid: str) -> int:
    return db_api.get_instance().get_node_by_uuid(uuid).id


def test_traits_are_part_of_what_is_compared(api, node):
    path = f"/v1/nodes/{node['uuid']}"
    assert api.get(path).json["traits"] == []
    assert api.put(f"{path}/traits/CUSTOM_GPU").status_int == 204
    assert api.get(path).json["traits"] == ["CUSTOM_GPU"]
    assert api.delete(f"{path}/traits/CUSTOM_GPU").status_int == 204
    assert api.get(path).json["traits"] == []


def test_version_fields_and_url_each_get_their_own_document(api, node):
    path = f"/v1/nodes/{node['uuid']}"
    answers = {
        "latest": api.get(path).json,
        "1.1": api.get(path, version="1.1").json,
        "fields": api.get(path + "?fields=uuid,extra").json,
        "host": api.get(path, headers={"Host": "bmaas.example:6385"}).json,
    }
    assert "conductor" in answers["latest"]
    assert "conductor" not in answers["1.1"]
    assert set(answers["fields"]) == {"uuid", "extra", "links"}
    assert answers["host"]["links"][0]["href"].startswith(
        "http://bmaas.example:6385/")
    assert answers["latest"]["links"][0]["href"].startswith(
        "http://localhost/")
    assert answers["latest"] == _fresh(api, path)
    assert answers["1.1"] == _fresh(api, path, version="1.1")


def test_the_conductor_shown_follows_the_hash_ring(api, node):
    path = f"/v1/nodes/{node['uuid']}"
    assert api.get(path).json["conductor"] == "test-conductor"
    # The row is unchanged; only the conductors serving it are not.
    ifx.register_test_conductor("other-conductor")
    db_api.get_instance().unregister_conductor("test-conductor")
    hash_ring.reset()
    assert api.get(path).json["conductor"] == "other-conductor"


def test_a_node_in_a_chassis_is_shown_right_and_not_stored(api):
    chassis = api.post("/v1/chassis", {"description": "rack"}).json
    stored = len(node_documents._DOCUMENTS)
    created = api.post("/v1/nodes", {"driver": "fake-hardware",
                                     "chassis_uuid": chassis["uuid"]}).json
    got = api.get(f"/v1/nodes/{created['uuid']}").json
    assert got["chassis_uuid"] == chassis["uuid"]
    assert len(node_documents._DOCUMENTS) == stored


def test_the_store_is_bounded_and_can_be_turned_off(api, config, renders):
    config("api", node_document_cache_size=2)
    node_documents.reset_documents()
    uuids = [api.post("/v1/nodes", {"driver": "fake-hardware"}).json["uuid"]
             for _ in range(3)]
    assert len(node_documents._DOCUMENTS) == 2
    renders.clear()
    api.get(f"/v1/nodes/{uuids[2]}")
    assert not renders
    api.get(f"/v1/nodes/{uuids[0]}")  # the oldest went first
    assert len(renders) == 1

    config("api", node_document_cache_size=0)
    node_documents.reset_documents()
    api.get(f"/v1/nodes/{uuids[2]}")
    api.get(f"/v1/nodes/{uuids[2]}")
    assert len(renders) == 3
    assert len(node_documents._DOCUMENTS) == 0


def test_errors_are_not_stored(api, node):
    assert api.get("/v1/nodes/no-such-node").status_int == 404
    assert api.get(f"/v1/nodes/{node['uuid']}?fields=nope").status_int == 400
    assert api.get(f"/v1/nodes/{node['uuid']}").status_int == 200


@pytest.fixture
def keystone_api(database, config, monkeypatch):
    """The API under keystone, callers described by the X-* headers
    keystonemiddleware sets once it validated a token."""
    from keystonemiddleware import auth_token

    from ironic.api import app as api_app
    from ironic.common import policy
    from ironic.conf import CONF
    for group, opts in auth_token.list_opts():
        CONF.register_opts(opts, group=group)
    config(auth_strategy="keystone")
    policy.reset()
    monkeypatch.setattr(auth_token, "AuthProtocol", lambda app, _conf: app)
    ifx.register_test_conductor()
    node_documents.reset_documents()
    yield ifx.ApiClient(api_app.setup_app(), "latest")
    policy.reset()


def test_a_document_is_never_served_to_a_caller_allowed_less(keystone_api,
                                                              renders):
    system = {"X-Roles": "admin,member,reader",
              "OpenStack-System-Scope": "all"}
    owner = {"X-Roles": "reader", "X-Project-Id": "p1"}
    lessee = {"X-Roles": "reader", "X-Project-Id": "p2"}
    created = keystone_api.post(
        "/v1/nodes", {"driver": "fake-hardware", "owner": "p1",
                      "lessee": "p2", "driver_info": {"bmc": "10.0.0.1"}},
        headers=system).json
    url = f"/v1/nodes/{created['uuid']}"
    for _ in range(2):
        assert keystone_api.get(url, headers=owner).json[
            "driver_info"] == {"bmc": "10.0.0.1"}
        seen = keystone_api.get(url, headers=lessee).json
        assert seen["driver_info"] == {"content": (
            "** Redacted - requires baremetal:node:get:driver_info "
            "permission. **")}
        assert seen["reservation"].startswith("** Redacted")
    # The system's reader and the owner are allowed the same fields: one
    # document serves both; the lessee's is its own.
    assert len(renders) == 2
    assert keystone_api.get(url, headers={
        "X-Roles": "reader", "X-Project-Id": "p3"}).status_int == 404
