"""Node list criteria (ironic.db.sqlalchemy.node_criteria) on sqlite."""

import pytest

from ironic.db import api as db_api


@pytest.fixture
def db(database):
    dbapi = db_api.get_instance()
    for name, values in {
        "plain": {},
        "kept": {"maintenance": True, "retired": True, "shard": "s1",
                 "owner": "p1", "description": "100% of it"},
        "leased": {"lessee": "p1", "instance_uuid":
                   "1be26c0b-03f2-4d2e-ae87-c02d7f33c123", "shard": "s2"},
        "child": {"parent_node": "1be26c0b-03f2-4d2e-ae87-c02d7f33c124"},
    }.items():
        dbapi.create_node({"driver": "fake-hardware", "name": name,
                           **values})
    return dbapi


def _names(db, *criteria):
    return sorted(r["name"] for r in db.get_nodes_matching(
        criteria, columns=["id", "uuid", "name"]))


@pytest.mark.parametrize("criteria, expected", [
    ((), ["child", "kept", "leased", "plain"]),
    ((("maintenance", True),), ["kept"]),
    ((("retired", False),), ["child", "leased", "plain"]),
    ((("shard", ["s1", "s2"]),), ["kept", "leased"]),
    ((("sharded", False),), ["child", "plain"]),
    ((("associated", True),), ["leased"]),
    ((("project", "p1"),), ["kept", "leased"]),
    ((("description_contains", "0%"),), ["kept"]),
    ((("description_contains", "_"),), []),
    ((("top_level", True),), ["kept", "leased", "plain"]),
    ((("top_level", True), ("project", "p1"), ("shard", ["s2"])),
     ["leased"]),
    ((("name", "plain"), ("name", "kept")), []),
])
def test_every_criterion_must_hold(db, criteria, expected):
    assert _names(db, *criteria) == expected


def test_unknown_criterion_is_a_programming_error(db):
    with pytest.raises(ValueError):
        _names(db, ("no_such_column", 1))
