"""Table facts and simple criteria (ironic.db.sqlalchemy.tables)."""

import pytest

from ironic.db.sqlalchemy import tables
from ironic.objects.chassis import Chassis
from ironic.objects.inspection_rule import InspectionRule


def test_columns_in_table_order_and_json_ones():
    cols = tables.columns("Port")
    assert cols[0] == "id" and "address" in cols and "node_id" in cols
    assert {"extra", "internal_info", "local_link_connection"} <= \
        tables.json_columns("Port")
    assert "address" not in tables.json_columns("Port")


def test_unknown_table_or_column_is_a_programming_error():
    with pytest.raises(ValueError):
        tables.columns("NoSuchModel")
    with pytest.raises(ValueError):
        tables.conditions("Port", [("no_such_column", 1)])


def test_objects_list_rows_by_criteria(database):
    for text in ("a", "b"):
        Chassis(description=text).create()
    rows = Chassis.list_rows([("description", "b")],
                             columns=["id", "uuid", "description"])
    assert [r["description"] for r in rows] == ["b"]
    assert len(Chassis.list_rows(columns=["id", "uuid"])) == 2
    assert InspectionRule.list_rows([("phase", "main")]) == []


def test_item_criteria_through_their_node(database):
    from ironic.db import api as db_api
    from ironic.objects.port import Port
    dbapi = db_api.get_instance()
    mine = dbapi.create_node({"driver": "fake-hardware", "owner": "p1",
                              "shard": "s1", "conductor_group": "g1"})
    other = dbapi.create_node({"driver": "fake-hardware", "lessee": "p2"})
    first = Port(address="52:54:00:00:00:01", node_id=mine.id)
    first.create()
    Port(address="52:54:00:00:00:02", node_id=mine.id).create()
    Port(address="52:54:00:00:00:03", node_id=other.id).create()

    def addresses(*criteria):
        return sorted(r["address"][-2:] for r in Port.list_rows(
            criteria, columns=["id", "uuid", "address"]))

    assert addresses(("node.project", "p1")) == ["01", "02"]
    assert addresses(("node.project", "p2")) == ["03"]
    assert addresses(("node.shard", ["s1", "s9"])) == ["01", "02"]
    assert addresses(("node.conductor_group", ["g2"])) == []
    assert addresses(("node_id", mine.id), ("!id", first.id)) == ["02"]
