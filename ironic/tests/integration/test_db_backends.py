"""Migrations, ironic-dbsync and the DB API on MariaDB and PostgreSQL.

Each test gets its own randomly named database, dropped afterwards.
"""

import datetime
import uuid

import pytest
import sqlalchemy as sa

from ironic.command import dbsync
from ironic.common import exception
from ironic.conf import CONF
from ironic.db import api as db_api
from ironic.db import migration
from ironic.db.sqlalchemy import api as sqla_api
from ironic.db.sqlalchemy import engine, prepared
from ironic.db.sqlalchemy import nodes as sqla_nodes
from ironic.tests import dbutils

pytestmark = pytest.mark.integration


def test_empty_to_head_and_models_match(empty_db):
    assert migration.version() is None
    migration.upgrade("head")
    assert migration.version() == dbutils.head_revision()
    assert dbutils.schema_differences(sqla_api.get_engine()) == []


@pytest.mark.parametrize("db_server", ["mysql"], indirect=True)
def test_mysql_tables_are_innodb_utf8mb4(backend_db):
    engine = sqla_api.get_engine()
    with engine.connect() as conn:
        rows = conn.execute(sa.text(
            "SELECT table_name, engine, table_collation FROM "
            "information_schema.tables WHERE table_schema = DATABASE()"))
        options = {r[0]: (r[1], r[2].split("_")[0]) for r in rows}
    assert options and set(options.values()) == {("InnoDB", "utf8mb4")}


# --- ironic-dbsync ---------------------------------------------------------

def _dbsync(tmp_path, url, capsys, *args):
    conf = tmp_path / "ironic.conf"
    conf.write_text(f"[DEFAULT]\nstate_path = {tmp_path}\n"
                    f"[database]\nconnection = {url}\n")
    rc = dbsync.main(["--config-file", str(conf), *args])
    out = capsys.readouterr()
    return rc, (out.out.splitlines() or [""])[-1], out.err


def test_dbsync_commands(empty_db, tmp_path, capsys):
    head = dbutils.head_revision()
    try:
        assert _dbsync(tmp_path, empty_db, capsys, "version")[:2] == (
            0, "None")
        assert _dbsync(tmp_path, empty_db, capsys, "create_schema")[0] == 0
        assert _dbsync(tmp_path, empty_db, capsys, "version")[1] == head
        rc, _, err = _dbsync(tmp_path, empty_db, capsys, "create_schema")
        assert rc == 1 and "not empty" in err
        assert _dbsync(tmp_path, empty_db, capsys, "upgrade")[0] == 0
        assert _dbsync(tmp_path, empty_db, capsys,
                       "online_data_migrations")[0] == 0
    finally:
        CONF([], project="ironic", default_config_files=[])
    engine = sa.create_engine(empty_db)
    try:
        assert dbutils.schema_differences(engine) == []
    finally:
        engine.dispose()


# --- the DB API ------------------------------------------------------------

@pytest.fixture
def db(backend_db):
    return db_api.get_instance()


def test_node_json_fields_round_trip(db):
    info = {"address": "10.0.0.1", "ünïcode": "✓", "deep": {"l": [1, None]}}
    node = db.create_node({"driver": "fake-hardware", "driver_info": info})
    back = db.get_node_by_uuid(node.uuid)
    assert back.driver_info == info and back.properties == {}
    db.update_node(node.id, {"properties": {"cpus": 4}, "extra": None})
    back = db.get_node_by_id(node.id)
    assert back.properties == {"cpus": 4} and back.extra == {}


@pytest.mark.parametrize("direction", ["asc", "desc"])
def test_paging_with_null_sort_values(db, direction):
    rows = []
    for name, rc in [(None, "b"), ("n2", None), ("n1", "a"), (None, None),
                     ("n3", "a"), (None, "b")]:
        node = db.create_node({"driver": "fake-hardware", "name": name,
                               "resource_class": rc})
        rows.append({"id": node.id, "name": name, "resource_class": rc})
    for key in ("name", "resource_class"):
        expected = dbutils.expected_order(rows, key, direction)
        full = db.get_node_list(columns=["id"], sort_key=key,
                                sort_dir=direction)
        assert [r["id"] for r in full] == expected
        for limit in (1, 2, 4):
            assert dbutils.walk_pages(db.get_node_list, key, direction,
                                      limit) == expected


def test_duplicates_become_conflicts(db):
    inst = str(uuid.uuid4())
    first = db.create_node({"driver": "f", "name": "n", "instance_uuid": inst})
    with pytest.raises(exception.DuplicateName,
                       match="A node with name n already exists"):
        db.create_node({"driver": "f", "name": "n"})
    with pytest.raises(exception.NodeAlreadyExists, match=first.uuid):
        db.create_node({"driver": "f", "uuid": first.uuid})
    with pytest.raises(exception.InstanceAssociated, match=inst):
        db.create_node({"driver": "f", "instance_uuid": inst})
    second = db.create_node({"driver": "f"})
    with pytest.raises(exception.DuplicateName):
        db.update_node(second.id, {"name": "n"})
    db.create_port({"node_id": first.id, "address": "52:54:00:00:00:01",
                    "name": "eth0address"})
    with pytest.raises(exception.MACAlreadyExists,
                       match="52:54:00:00:00:01 already exists"):
        db.create_port({"node_id": second.id,
                        "address": "52:54:00:00:00:01"})
    with pytest.raises(exception.Conflict, match="name eth0address"):
        db.create_port({"node_id": second.id, "name": "eth0address",
                        "address": "52:54:00:00:00:02"})
    # Nothing half-written: one node named n, one port.
    assert len(db.get_node_list()) == 2 and len(db.get_port_list()) == 1


def test_traits_and_destroy_cascade(db):
    node = db.create_node({"driver": "f"}, traits=["CUSTOM_B", "CUSTOM_A"])
    db.add_node_trait(node.id, "CUSTOM_A")
    pg = db.create_portgroup({"node_id": node.id})
    db.create_port({"node_id": node.id, "address": "52:54:00:00:00:09",
                    "portgroup_id": pg.id})
    assert db.get_node_traits(node.id) == ["CUSTOM_A", "CUSTOM_B"]
    db.destroy_node(node.id)
    assert db.get_port_list() == [] and db.get_portgroup_list() == []
    assert db.get_node_traits(node.id) == []


def test_allocation_candidates_and_conflicts(db):
    def node(name, traits=(), **values):
        return db.create_node({"driver": "f", "name": name,
                               "resource_class": "gold",
                               "provision_state": "available", **values},
                              traits=list(traits))
    both = node("both", ["CUSTOM_A", "CUSTOM_B"], owner="p1")
    node("one", ["CUSTOM_A"])
    node("busy", ["CUSTOM_A", "CUSTOM_B"], reservation="c1")
    node("kept", ["CUSTOM_A", "CUSTOM_B"], maintenance=True)
    leased = node("leased", [], lessee="p1")
    found = db.allocation_candidates(resource_class="gold",
                                     traits=["CUSTOM_A", "CUSTOM_B"])
    assert [c["uuid"] for c in found] == [both.uuid]
    found = db.allocation_candidates(resource_class="gold", owner="p1")
    assert {c["uuid"] for c in found} == {both.uuid, leased.uuid}
    assert db.node_uuids_for(["both", leased.uuid, "nope"]) == {
        "both": both.uuid, leased.uuid: leased.uuid}
    alloc = db.create_allocation({"name": "a", "state": "allocating",
                                  "resource_class": "gold",
                                  "traits": ["CUSTOM_A"]})
    assert db.get_allocation("a", "name").traits == ["CUSTOM_A"]
    with pytest.raises(exception.AllocationDuplicateName):
        db.create_allocation({"name": "a", "state": "error"})
    with pytest.raises(exception.AllocationAlreadyExists):
        db.create_allocation({"uuid": alloc.uuid, "state": "error"})
    cond = db.register_conductor({"hostname": "c1", "drivers": [],
                                  "conductor_group": ""})
    assert db.claim_allocation(alloc.id, None, cond.id) is True
    assert db.claim_allocation(alloc.id, None, cond.id) is False
    db.update_allocation(alloc.id, {"node_id": both.id, "state": "active"})
    db.update_node(both.id, {"allocation_id": alloc.id})
    db.destroy_node(both.id)
    with pytest.raises(exception.AllocationNotFound):
        db.get_allocation(alloc.uuid)


def test_update_under_lock_maps_duplicates_to_conflicts(db):
    # The conductor writes a PATCH with update_node_locked; the backend's
    # unique violation must be the same 409 as on create.
    inst = str(uuid.uuid4())
    db.create_node({"driver": "f", "name": "taken", "instance_uuid": inst})
    node = db.create_node({"driver": "f", "name": "mine"})
    db.reserve_node("c1", node.id)
    with pytest.raises(exception.DuplicateName, match="taken"):
        db.update_node_locked(node.id, "c1", {"name": "taken"})
    with pytest.raises(exception.InstanceAssociated, match=inst):
        db.update_node_locked(node.id, "c1", {"instance_uuid": inst})
    back = db.get_node_by_id(node.id)
    assert (back.name, back.instance_uuid, back.reservation) == (
        "mine", None, "c1")


def test_node_and_allocation_written_together_or_not_at_all(db):
    inst = str(uuid.uuid4())
    db.create_node({"driver": "f", "instance_uuid": inst})
    node = db.create_node({"driver": "f"})
    alloc = db.create_allocation({"state": "allocating",
                                  "resource_class": "gold"})
    db.reserve_node("c1", node.id)
    with pytest.raises(exception.InstanceAssociated, match=inst):
        db.update_node_locked_and_allocation(
            node.id, "c1", {"instance_uuid": inst}, alloc.id,
            {"state": "active", "node_id": node.id})
    assert db.get_allocation(alloc.uuid).state == "allocating"
    with pytest.raises(exception.NodeLocked):
        db.update_node_locked_and_allocation(
            node.id, "c2", {"instance_uuid": alloc.uuid}, alloc.id,
            {"state": "active", "node_id": node.id})
    assert db.get_allocation(alloc.uuid).state == "allocating"
    row = db.update_node_locked_and_allocation(
        node.id, "c1", {"instance_uuid": alloc.uuid,
                        "allocation_id": alloc.id},
        alloc.id, {"state": "active", "node_id": node.id})
    assert (row.instance_uuid, row.reservation) == (alloc.uuid, "c1")
    got = db.get_allocation(alloc.uuid)
    assert (got.state, got.node_id) == ("active", node.id)


# --- JSON documents through the API ---------------------------------------

@pytest.fixture
def api(backend_db, config, tmp_path):
    from ironic import driver_registry
    from ironic.api import app as api_app
    from ironic.common import policy
    from ironic.tests import fixtures as ifx
    config(state_path=str(tmp_path), auth_strategy="noauth",
           rpc_transport="none")
    ifx.configure_test_drivers(config)
    policy.reset()
    ifx.register_test_conductor()
    yield ifx.ApiClient(api_app.setup_app())
    ifx.stop_local_rpc()
    driver_registry.reset()


def test_json_columns_hold_a_full_size_body(api):
    # A body may be [api]max_json_body_size (1 MiB by default); MySQL's TEXT stops at
    # 64 KiB and a strict server refuses longer values, so every JSON
    # column must be LONGTEXT there.
    big = {f"k{i}": "x" * 1000 for i in range(300)}  # ~300 KiB each
    resp = api.post("/v1/nodes", {"driver": "fake-hardware", "extra": big,
                                  "properties": big, "driver_info": big})
    assert resp.status_int == 201, resp.body[:300]
    uuid_ = resp.json["uuid"]
    resp = api.patch(f"/v1/nodes/{uuid_}", [
        {"op": "add", "path": "/network_data", "value": big}])
    assert resp.status_int == 200, resp.body[:300]
    back = api.get(f"/v1/nodes/{uuid_}").json
    assert back["extra"] == back["properties"] == back["network_data"] == \
        big
    port = api.post("/v1/ports", {"node_uuid": uuid_,
                                  "address": "52:54:00:00:00:01",
                                  "extra": big})
    assert port.status_int == 201, port.body[:300]
    assert api.get(f"/v1/ports/{port.json['uuid']}").json["extra"] == big


@pytest.mark.parametrize("db_server", ["mysql"], indirect=True)
def test_every_json_column_is_longtext_on_mysql(backend_db):
    from ironic.db.sqlalchemy import models
    from ironic.db.sqlalchemy import types as db_types
    expected = {(t.name, c.name) for t in models.Base.metadata.sorted_tables
                for c in t.columns if isinstance(c.type, db_types.JSONText)}
    with sqla_api.get_engine().connect() as conn:
        rows = conn.execute(sa.text(
            "SELECT table_name, column_name, data_type FROM "
            "information_schema.columns WHERE table_schema = DATABASE()"))
        kinds = {(r[0], r[1]): r[2].lower() for r in rows}
    assert expected and {k: kinds[k] for k in expected} == {
        k: "longtext" for k in expected}


def test_nul_is_refused_before_the_database(api):
    # PostgreSQL cannot store NUL in text (psycopg2 raises ValueError):
    # it must be a 400 from the API on every backend.
    for body in ({"driver": "fake-hardware", "extra": {"a": "x\u0000"}},
                 {"driver": "fake-hardware", "name": "a\u0000b"},
                 {"driver": "fake-hardware", "properties": {"\u0000": 1}}):
        resp = api.post("/v1/nodes", body)
        assert resp.status_int == 400, resp.body
    node = api.post("/v1/nodes", {"driver": "fake-hardware"}).json
    resp = api.patch(f"/v1/nodes/{node['uuid']}", [
        {"op": "add", "path": "/extra/a", "value": "\u0000"}])
    assert resp.status_int == 400, resp.body
    for path in ("/v1/nodes?driver=%00", "/v1/nodes/a%00b",
                 "/v1/ports?address=%00"):
        assert api.get(path).status_int == 400, path
    assert [n["uuid"] for n in api.get("/v1/nodes").json["nodes"]] == [
        node["uuid"]]
    assert api.get(f"/v1/nodes/{node['uuid']}").json["extra"] == {}


def test_prepared_node_reads_match_sqlalchemy(db):
    # The driver's own placeholders and types (pymysql: %s, tinyint
    # booleans, JSON as text; psycopg2: %(value)s, native JSON and
    # timestamps) come back as SQLAlchemy would give them.
    when = datetime.datetime(2026, 1, 2, 3, 4, 5)
    node = db.create_node({"driver": "f", "maintenance": True,
                           "driver_info": {"a": [1, None], "ü": "✓"},
                           "provision_updated_at": when},
                          traits=["CUSTOM_B", "CUSTOM_A"])
    statement = sqla_nodes._node_with_traits_query("uuid").statement
    rows = prepared.PreparedSelect(statement).all(value=node.uuid)
    with engine.get_engine().connect() as conn:
        expected = [tuple(r) for r in conn.execute(statement,
                                                   {"value": node.uuid})]
    assert [tuple(r) for r in rows] == expected
    assert rows[0].maintenance is True
    assert rows[0].driver_info == {"a": [1, None], "ü": "✓"}
    assert rows[0].provision_updated_at == when
    row, traits = db.get_node_with_traits("uuid", node.uuid)
    assert (row.uuid, traits) == (node.uuid, ["CUSTOM_A", "CUSTOM_B"])
    assert db.get_node_by_id(node.id).driver_info == {"a": [1, None],
                                                      "ü": "✓"}


def test_power_sync_batch_writes_only_idle_nodes(db):
    # The power sync's failure records and recoveries: one transaction,
    # no lock taken, nodes locked or in the wrong maintenance left alone.
    free, locked, kept, down = (
        db.create_node({"driver": "f", "maintenance": m, "fault": f})
        for m, f in ((False, None), (False, None), (True, None),
                     (True, "power failure")))
    db.reserve_node("someone", locked.id)
    history = {n.id: {"event": "x", "event_type": "maintenance"}
               for n in (free, locked, kept, down)}
    written = db.write_idle_nodes(
        [(n.id, {"last_error": "boom"}) for n in (free, locked, kept, down)],
        history)
    assert written == [free.id]
    assert db.get_node_by_id(free.id).last_error == "boom"
    assert db.get_node_by_id(locked.id).last_error is None
    assert len(db.get_node_history_list(free.id)) == 1
    assert db.get_node_history_list(kept.id) == []
    back = db.write_idle_nodes(
        [(n.id, {"maintenance": False, "fault": None})
         for n in (kept, down)], in_maintenance_for="power failure")
    assert back == [down.id]
    assert not db.get_node_by_id(down.id).maintenance
    assert db.get_node_by_id(kept.id).maintenance


def test_lookup_by_port_addresses(db):
    one = db.create_node({"driver": "f"})
    two = db.create_node({"driver": "f"})
    db.create_port({"address": "52:54:00:00:00:01", "node_id": one.id})
    db.create_port({"address": "52:54:00:00:00:02", "node_id": one.id})
    db.create_port({"address": "52:54:00:00:00:03", "node_id": two.id})
    found = db.get_node_by_port_addresses(["52:54:00:00:00:01",
                                           "52:54:00:00:00:02"])
    assert found.uuid == one.uuid
    with pytest.raises(exception.NodeNotFound, match="Multiple"):
        db.get_node_by_port_addresses(["52:54:00:00:00:01",
                                       "52:54:00:00:00:03"])
    with pytest.raises(exception.NodeNotFound, match="No node"):
        db.get_node_by_port_addresses(["52:54:00:00:00:09"])


def test_idle_heartbeat_record_is_a_compare_and_swap(db):
    # A heartbeat nothing waits for is recorded without the node's lock:
    # one UPDATE that applies only while nobody holds the lock and the
    # columns read are unchanged - compared byte for byte (MariaDB's
    # default collation would take "Value" and "value" for the same).
    from ironic.objects.node import Node

    node = db.create_node({
        "driver": "f", "provision_state": "manageable",
        "driver_internal_info": {"agent_secret_token": "sha256:ab",
                                 "k": "Value", "ü": "✓"}})
    guard = ("driver_internal_info", "provision_state", "maintenance",
             "driver", "deploy_interface", "rescue_interface")

    def record(read, url):
        info = dict(read.driver_internal_info, agent_url=url)
        return read.update_if_unreserved({"driver_internal_info": info},
                                         guard)

    read = Node.get(node.id)
    assert read.deploy_interface is None  # NULL compares as unchanged
    assert record(read, "https://a")
    back = db.get_node_by_id(node.id)
    assert back.driver_internal_info["agent_url"] == "https://a"
    assert back.driver_internal_info["ü"] == "✓"
    assert back.reservation is None
    assert read.driver_internal_info == back.driver_internal_info

    # Locked: nothing is written.
    read = Node.get(node.id)
    db.reserve_node("c1", node.id)
    assert not record(read, "https://b")
    db.release_node("c1", node.id)
    assert db.get_node_by_id(node.id).driver_internal_info[
        "agent_url"] == "https://a"

    # A lock holder came and went, changing only a letter's case.
    read = Node.get(node.id)
    db.reserve_node("c1", node.id)
    db.update_node_locked(node.id, "c1", {"driver_internal_info": dict(
        read.driver_internal_info, k="value")})
    db.release_node("c1", node.id)
    assert not record(read, "https://b")
    assert db.get_node_by_id(node.id).driver_internal_info["k"] == "value"

    # Another column of the guard changed.
    read = Node.get(node.id)
    db.update_node(node.id, {"provision_state": "clean wait"})
    assert not record(read, "https://b")
    read = Node.get(node.id)
    assert record(read, "https://c")
    back = db.get_node_by_id(node.id)
    assert (back.provision_state, back.driver_internal_info["agent_url"],
            back.driver_internal_info["k"]) == (
        "clean wait", "https://c", "value")


def test_infiniband_port_address_is_stored_whole(api):
    # The API takes a 20-octet InfiniBand address (59 characters) as a
    # port's address; every backend must store it as it was given.
    node = api.post("/v1/nodes", {"driver": "fake-hardware"}).json
    guid = ":".join(f"{i:02x}" for i in range(20))
    port = api.post("/v1/ports", {"node_uuid": node["uuid"],
                                  "address": guid})
    assert port.status_int == 201, port.body[:300]
    assert api.get(f"/v1/ports/{port.json['uuid']}").json[
        "address"] == guid
    group = api.post("/v1/portgroups", {"node_uuid": node["uuid"],
                                        "address": guid[::-1]})
    assert group.status_int == 201, group.body[:300]
