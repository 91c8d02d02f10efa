"""The database API on sqlite: JSON fields, paging, traits, cascades and
the translation of duplicate keys into the API's Conflict errors."""

import uuid

import pytest

from ironic.common import exception
from ironic.db import api as db_api
from ironic.tests import dbutils


@pytest.fixture
def db(database):
    return db_api.get_instance()


def _node(db, **values):
    values.setdefault("driver", "fake-hardware")
    return db.create_node(values)


def test_json_fields_round_trip(db):
    info = {"ipmi_address": "10.0.0.1", "nested": {"list": [1, "two", None]}}
    node = _node(db, driver_info=info, extra={"x": True})
    back = db.get_node_by_uuid(node.uuid)
    assert back.driver_info == info
    assert back.extra == {"x": True}
    assert back.properties == {} and back.instance_info == {}


def test_json_fields_default_to_empty_and_none_stores_empty(db):
    node = _node(db, extra=None)
    assert node.properties == {}
    db.update_node(node.id, {"driver_info": None})
    back = db.get_node_by_id(node.id)
    assert back.driver_info == {} and back.extra == {}


def test_create_assigns_uuid_and_timestamps(db):
    node = _node(db)
    assert uuid.UUID(node.uuid)
    assert node.created_at is not None and node.updated_at is None
    updated = db.update_node(node.id, {"description": "d"})
    assert updated.updated_at is not None


# --- duplicates -> Conflict with the API's messages -------------------------

def test_duplicate_node_name(db):
    _node(db, name="alpha")
    with pytest.raises(exception.DuplicateName,
                       match="A node with name alpha already exists."):
        _node(db, name="alpha")


def test_duplicate_node_uuid(db):
    node = _node(db)
    with pytest.raises(exception.NodeAlreadyExists,
                       match=f"A node with UUID {node.uuid} already exists."):
        _node(db, uuid=node.uuid)


def test_duplicate_instance_uuid_names_both(db):
    inst = str(uuid.uuid4())
    _node(db, instance_uuid=inst)
    other = str(uuid.uuid4())
    with pytest.raises(exception.InstanceAssociated) as e:
        _node(db, instance_uuid=inst, uuid=other)
    assert inst in str(e.value) and other in str(e.value)
    assert e.value.code == 409


def test_duplicate_on_update_names_the_updated_node(db):
    inst = str(uuid.uuid4())
    _node(db, instance_uuid=inst, name="a")
    second = _node(db)
    with pytest.raises(exception.InstanceAssociated) as e:
        db.update_node(second.id, {"instance_uuid": inst})
    assert second.uuid in str(e.value)
    with pytest.raises(exception.DuplicateName):
        db.update_node(second.id, {"name": "a"})
    assert db.get_node_by_id(second.id).name is None


def test_duplicate_port_mac(db):
    node = _node(db)
    db.create_port({"node_id": node.id, "address": "52:54:00:00:00:01"})
    with pytest.raises(exception.MACAlreadyExists,
                       match="A port with MAC address 52:54:00:00:00:01 "
                             "already exists."):
        db.create_port({"node_id": node.id, "address": "52:54:00:00:00:01"})


def test_duplicate_port_name_is_not_reported_as_a_mac(db):
    # The old translation searched the error text for "0address".
    node = _node(db)
    db.create_port({"node_id": node.id, "address": "52:54:00:00:00:01",
                    "name": "eth0address"})
    with pytest.raises(exception.Conflict, match="name eth0address"):
        db.create_port({"node_id": node.id, "address": "52:54:00:00:00:02",
                        "name": "eth0address"})


def test_duplicate_portgroup_and_chassis(db):
    node = _node(db)
    db.create_portgroup({"node_id": node.id, "name": "bond0",
                         "address": "52:54:00:00:00:03"})
    with pytest.raises(exception.PortgroupDuplicateName):
        db.create_portgroup({"node_id": node.id, "name": "bond0"})
    with pytest.raises(exception.PortgroupMACAlreadyExists):
        db.create_portgroup({"node_id": node.id,
                             "address": "52:54:00:00:00:03"})
    chassis = db.create_chassis({})
    with pytest.raises(exception.ChassisAlreadyExists):
        db.create_chassis({"uuid": chassis.uuid})


# --- listing -----------------------------------------------------------------

_NAMES = [None, "delta", "alpha", None, "charlie", None, "bravo"]
_CLASSES = ["gold", None, "gold", "iron", None, "gold", "iron"]


@pytest.fixture
def listed(db):
    rows = []
    for name, rc in zip(_NAMES, _CLASSES, strict=True):
        node = _node(db, name=name, resource_class=rc)
        rows.append({"id": node.id, "name": name, "resource_class": rc})
    return rows


@pytest.mark.parametrize("key", ["name", "resource_class", "id"])
@pytest.mark.parametrize("direction", ["asc", "desc"])
def test_sort_order_with_nulls(db, listed, key, direction):
    got = [r["id"] for r in db.get_node_list(
        columns=["id"], sort_key=key, sort_dir=direction)]
    assert got == dbutils.expected_order(listed, key, direction)


@pytest.mark.parametrize("key", ["name", "resource_class"])
@pytest.mark.parametrize("direction", ["asc", "desc"])
@pytest.mark.parametrize("limit", [1, 2, 3, 7])
def test_marker_pages_cover_every_row_once(db, listed, key, direction,
                                           limit):
    pages = dbutils.walk_pages(db.get_node_list, key, direction, limit)
    assert pages == dbutils.expected_order(listed, key, direction)


def test_nulls_first_ascending_and_last_descending(db, listed):
    asc = db.get_node_list(columns=["name"], sort_key="name")
    desc = db.get_node_list(columns=["name"], sort_key="name",
                            sort_dir="desc")
    assert [r["name"] for r in asc][:3] == [None, None, None]
    assert [r["name"] for r in desc][-3:] == [None, None, None]


def test_list_filters_and_full_objects(db, listed):
    from ironic.db.sqlalchemy import models
    rows = db.get_node_list(filters=[models.Node.resource_class == "gold"])
    assert sorted(r.id for r in rows) == sorted(
        r["id"] for r in listed if r["resource_class"] == "gold")
    assert all(r.extra == {} for r in rows)


def test_unknown_marker_is_not_found(db, listed):
    missing = str(uuid.uuid4())
    with pytest.raises(exception.NodeNotFound, match=missing):
        db.get_node_list(marker=missing)


@pytest.mark.parametrize("key", ["extra", "driver_info", "nope", "__class__"])
def test_bad_sort_keys_are_rejected(db, key):
    with pytest.raises(exception.InvalidParameterValue, match="sort_key"):
        db.get_node_list(sort_key=key)


def test_bad_sort_dir_is_rejected(db):
    with pytest.raises(exception.InvalidParameterValue, match="sideways"):
        db.get_node_list(sort_dir="sideways")


# --- traits --------------------------------------------------------------------

def test_traits_at_create_are_deduplicated(db):
    node = db.create_node({"driver": "fake-hardware"},
                          traits=["CUSTOM_B", "CUSTOM_A", "CUSTOM_B"])
    assert db.get_node_traits(node.id) == ["CUSTOM_A", "CUSTOM_B"]


def test_set_add_delete_traits(db):
    node, other = _node(db), _node(db)
    db.set_node_traits(node.id, ["CUSTOM_X", "CUSTOM_Y", "CUSTOM_X"])
    db.set_node_traits(other.id, ["CUSTOM_Z"])
    db.add_node_trait(node.id, "CUSTOM_Y")  # already there: no error
    db.add_node_trait(node.id, "CUSTOM_W")
    db.set_node_traits(node.id, ["CUSTOM_W", "CUSTOM_V"])
    assert db.get_traits_for_nodes([node.id, other.id, 9999]) == {
        node.id: ["CUSTOM_V", "CUSTOM_W"], other.id: ["CUSTOM_Z"], 9999: []}
    db.delete_node_trait(node.id, "CUSTOM_V")
    with pytest.raises(exception.NodeTraitNotFound):
        db.delete_node_trait(node.id, "CUSTOM_V")
    assert db.get_node_traits(node.id) == ["CUSTOM_W"]


def test_node_with_traits_is_one_row_and_sorted_traits(db):
    node = db.create_node({"driver": "fake-hardware", "name": "n1",
                           "extra": {"k": [1]}},
                          traits=["CUSTOM_C", "CUSTOM_A", "CUSTOM_B"])
    bare = _node(db, name="n2")
    for column, value in (("id", node.id), ("uuid", node.uuid),
                          ("name", "n1")):
        row, traits = db.get_node_with_traits(column, value)
        assert (row.id, row.extra, traits) == (
            node.id, {"k": [1]}, ["CUSTOM_A", "CUSTOM_B", "CUSTOM_C"])
    assert db.get_node_with_traits("name", "n2")[1] == []
    assert db.get_node_with_traits("name", "n2")[0].uuid == bare.uuid
    with pytest.raises(exception.NodeNotFound):
        db.get_node_with_traits("name", "missing")


# --- destroy -------------------------------------------------------------------

def test_destroy_node_removes_its_ports_portgroups_and_traits(db):
    node, keep = _node(db), _node(db)
    pg = db.create_portgroup({"node_id": node.id, "name": "bond0"})
    db.create_port({"node_id": node.id, "address": "52:54:00:00:00:01",
                    "portgroup_id": pg.id})
    kept_port = db.create_port({"node_id": keep.id,
                                "address": "52:54:00:00:00:02"})
    db.set_node_traits(node.id, ["CUSTOM_A"])
    db.destroy_node(node.id)
    with pytest.raises(exception.NodeNotFound):
        db.get_node_by_id(node.id)
    assert [p.id for p in db.get_port_list()] == [kept_port.id]
    assert db.get_portgroup_list() == []
    assert db.get_node_traits(node.id) == []
    with pytest.raises(exception.NodeNotFound):
        db.destroy_node(node.id)


def test_portgroup_with_ports_and_chassis_with_nodes_stay(db):
    chassis = db.create_chassis({"description": "rack 1"})
    node = _node(db, chassis_id=chassis.id)
    pg = db.create_portgroup({"node_id": node.id})
    db.create_port({"node_id": node.id, "address": "52:54:00:00:00:01",
                    "portgroup_id": pg.id})
    with pytest.raises(exception.PortgroupNotEmpty):
        db.destroy_portgroup(pg.id)
    with pytest.raises(exception.ChassisNotEmpty):
        db.destroy_chassis(chassis.id)
    db.destroy_node(node.id)
    db.destroy_chassis(chassis.id)
    with pytest.raises(exception.ChassisNotFound):
        db.get_chassis(chassis.id, "id")


def test_uuids_for_ids(db):
    a, b = _node(db), _node(db)
    assert db.uuids_for_ids("node", [a.id, b.id, None, a.id]) == {
        a.id: a.uuid, b.id: b.uuid}
    assert db.uuids_for_ids("chassis", []) == {}


def test_json_column_with_nan_reads_back(db):
    # json.dumps writes NaN; orjson alone would refuse to read it back.
    node = _node(db, extra={"x": float("nan"), "y": 1})
    back = db.get_node_by_id(node.id)
    assert back.extra["x"] != back.extra["x"] and back.extra["y"] == 1


def test_node_inventory_replaced_and_deleted_with_node(db):
    node = _node(db)
    with pytest.raises(exception.NotFound):
        db.get_node_inventory(node.id)
    db.set_node_inventory(node.id, {"cpu": {"count": 1}}, {"a": 1})
    db.set_node_inventory(node.id, {"cpu": {"count": 2}}, {"b": 2})
    record = db.get_node_inventory(node.id)
    assert record.inventory_data == {"cpu": {"count": 2}}
    assert record.plugin_data == {"b": 2}
    db.destroy_node(node.id)
    with pytest.raises(exception.NotFound):
        db.get_node_inventory(node.id)


def test_node_inventory_destroy(db):
    node = _node(db)
    db.set_node_inventory(node.id, {"x": 1}, {})
    db.destroy_node_inventory(node.id)
    with pytest.raises(exception.NotFound):
        db.get_node_inventory(node.id)
